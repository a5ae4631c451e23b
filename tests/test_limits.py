"""The worker's limits and confinement: taken from course.yaml, named when
exceeded, and holding where the platform allows them."""
import dataclasses
import json
import math
import os
import subprocess
import sys
import time

import pytest

from modlab.course import Limits
from modlab.engine import MAX_TIMEOUTS, GradeOptions, grade_exercise
from modlab.formats.feedback import feedback_line
from modlab.isolation.process import _size
from modlab.isolation.protocol import ProtocolError, check_answer, observation, parse_answer
from modlab.isolation.sleep import ASLEEP, ASLEEP_AFTER_S, LOCKED, SAMPLE_S, SleepWatch, sleeps_past, wakes_at
from modlab.isolation.sandbox import environment, landlock, namespaces, seccomp
from modlab.isolation.sandbox.libc import libc

from conftest import ROOT

LINUX = sys.platform.startswith("linux")
ROOTED = LINUX and os.geteuid() == 0
LIMITS = Limits(scenario_timeout_s=1, submission_timeout_s=3, memory_mib=768, max_processes=32)

# Appended to the stub of parameter.py: every scenario fails with what the
# worker sees, as JSON in the exception's message.
REPORTER = '''
import json as _json


def _report(cls, *args, **kwargs):
    raise RuntimeError("SEEN" + _json.dumps(_seen()))


Parameter.__new__ = _report
'''


@pytest.fixture(scope="module")
def quick(course):
    quick = dataclasses.replace(course, limits=LIMITS)
    grade_exercise(quick, quick.exercise("01"), quick.solutions, GradeOptions(device="cpu"))  # start-up, untimed
    return quick


def graded(course, tmp_path, appended: str):
    package = tmp_path / course.package
    package.mkdir()
    stub = (ROOT / "exercises" / course.package / "parameter.py").read_text()
    (package / "parameter.py").write_text(stub + "\n\n" + appended)
    return grade_exercise(course, course.exercise("01"), package, GradeOptions(device="cpu"))


def seen(course, tmp_path, function: str) -> dict:
    """What ``_seen()`` (defined by ``function``) returns inside a worker."""
    result = graded(course, tmp_path, function + REPORTER)
    feedback = feedback_line(result.tests[0])
    assert "SEEN" in feedback, feedback
    return json.loads(feedback.split("SEEN", 1)[1].split("}", 1)[0] + "}")


def test_limits_are_named_in_their_units():
    assert [_size(2048), _size(1536), _size(768), _size(100)] == ["2 GiB", "1.5 GiB", "768 MiB", "100 MiB"]


def test_a_hang_costs_two_scenarios_then_the_rest_fail_at_once(quick, tmp_path):
    """A submission that hangs in every scenario would cost each check a full
    scenario timeout: after MAX_TIMEOUTS of them, the rest fail at once."""
    started = time.monotonic()
    result = graded(quick, tmp_path, "Parameter.__new__ = lambda cls, *a, **k: any(iter(int, 1))\n")  # spins
    assert time.monotonic() - started < MAX_TIMEOUTS * LIMITS.scenario_timeout_s + 3
    assert {test.reason for test in result.tests} == {"timeout"}
    texts = [feedback_line(test) for test in result.tests]
    assert all("scenario exceeded 1 s" in text for text in texts[:MAX_TIMEOUTS])
    assert all(f"not run: the submission already exceeded its time in {MAX_TIMEOUTS} checks" in text
               for text in texts[MAX_TIMEOUTS:])


DEADLOCK = "(lambda lock: lock.acquire() and lock.acquire())(threading.Lock())"  # waits on itself, with no timeout
SLEEPS = {  # how a submission sleeps -> what it is told, and how long each of its first checks may cost
    "time.sleep(60)": (sleeps_past("scenario exceeded 10 s"), 0.5),
    "select.select([], [], [], 60)": (ASLEEP, ASLEEP_AFTER_S + 1),  # a wait whose end is not read
    DEADLOCK: (LOCKED, 0.5),
}


@pytest.fixture(scope="module")
def patient(course):
    """The course with the scenario's own 10 s, its start-up done (not timed below)."""
    patient = dataclasses.replace(course, limits=dataclasses.replace(LIMITS, scenario_timeout_s=10,
                                                                     submission_timeout_s=60))
    grade_exercise(patient, patient.exercise("01"), patient.solutions, GradeOptions(device="cpu"))
    return patient


@pytest.mark.skipif(not LINUX, reason="a worker's sleep is read from Linux's /proc")
@pytest.mark.parametrize("sleep", SLEEPS)
def test_a_submission_that_sleeps_is_found_out_long_before_its_timeout(patient, tmp_path, sleep):
    """Asleep, running nothing, a worker is waiting on nothing: each check
    costs a moment where its sleep can be read, ASLEEP_AFTER_S where not,
    never the scenario's 10 s."""
    told, each = SLEEPS[sleep]
    started = time.monotonic()
    result = graded(patient, tmp_path, f"import select, threading, time\nParameter.__new__ = lambda cls, *a, **k: {sleep}\n")
    assert time.monotonic() - started < MAX_TIMEOUTS * each + 2
    assert {test.reason for test in result.tests} == {"timeout"}
    texts = [feedback_line(test) for test in result.tests]
    assert all(told in text for text in texts[:MAX_TIMEOUTS]), texts
    assert all("not run: the submission already exceeded its time" in text for text in texts[MAX_TIMEOUTS:])


@pytest.mark.skipif(not LINUX, reason="a worker's sleep is read from Linux's /proc")
def test_where_a_sleep_ends_is_read_from_the_sleeping_process():
    waits = {"time.sleep(60)": 60, "threading.Event().wait(60)": 60,
             DEADLOCK: math.inf,
             "select.select([], [], [], 60)": None, "sum(iter(int, 1))": None}  # the last one spins
    sleepers = {wait: subprocess.Popen([sys.executable, "-c", f"import select, threading, time; {wait}"]) for wait in waits}
    try:
        for wait, process in sleepers.items():
            expected, started = waits[wait], time.monotonic()
            ends = wakes_at(process.pid)
            # Until the interpreter has started and reached its wait (a while on a loaded machine), there is none.
            while expected is not None and ends in (None, math.inf) and ends != expected \
                    and time.monotonic() - started < 20:
                time.sleep(0.1)
                ends = wakes_at(process.pid)
            if expected is None or expected == math.inf:
                assert ends == expected, wait
            else:
                assert expected - 1 < ends - time.monotonic() < expected, wait
    finally:
        for process in sleepers.values():
            process.kill()
            process.wait()


@pytest.mark.skipif(not LINUX, reason="a worker's sleep is read from Linux's /proc")
def test_a_sleep_that_wakes_is_not_taken_for_a_hang():
    """Sleeping a tenth of a second at a time, or once for less than the time
    left, is slow but alive; never running at all is not."""
    scripts = ["import time\nwhile True:\n    time.sleep(0.1)", "import time; time.sleep(5)", "import time; time.sleep(60)"]
    processes = [subprocess.Popen([sys.executable, "-c", script]) for script in scripts]
    try:
        time.sleep(0.5)  # every interpreter started
        watches, asleep = [SleepWatch(process.pid, 10, "scenario exceeded 10 s") for process in processes], [None] * len(processes)
        until = time.monotonic() + 3 * ASLEEP_AFTER_S
        while time.monotonic() < until:
            asleep = [seen or watch.asleep() for seen, watch in zip(asleep, watches)]
            time.sleep(SAMPLE_S)
        assert asleep == [None, None, "scenario would exceed 10 s: the submission's code went to sleep for longer than that"]
    finally:
        for process in processes:
            process.kill()
            process.wait()


def test_a_slow_submission_stops_at_its_total_limit(quick, tmp_path):
    """Slow in every scenario but never past the scenario limit: the exercise's
    total limit ends it, and says so (as soon as a sleep is read to end past it)."""
    started = time.monotonic()
    slow = "import time\n_new = Parameter.__new__\nParameter.__new__ = lambda cls, *a, **k: time.sleep(0.3) or _new(cls, *a, **k)\n"
    reference = (quick.solutions / "parameter.py").read_text()
    package = tmp_path / quick.package
    package.mkdir()
    (package / "parameter.py").write_text(reference + "\n\n" + slow)
    result = grade_exercise(quick, quick.exercise("01"), package, GradeOptions(device="cpu"))
    assert time.monotonic() - started < LIMITS.submission_timeout_s + 5
    texts = [feedback_line(test) for test in result.tests if test.outcome == "failed"]
    assert any(f"submission {verb} 3 s in all" in text for text in texts for verb in ("exceeded", "would exceed")), texts
    assert any(test.outcome == "passed" for test in result.tests)  # the early ones, within the limit


def test_a_correct_but_slow_submission_gets_every_point(quick, tmp_path):
    slow = "import time\n_new = Parameter.__new__\nParameter.__new__ = lambda cls, *a, **k: time.sleep(0.02) or _new(cls, *a, **k)\n"
    package = tmp_path / quick.package
    package.mkdir()
    (package / "parameter.py").write_text((quick.solutions / "parameter.py").read_text() + "\n\n" + slow)
    result = grade_exercise(quick, quick.exercise("01"), package, GradeOptions(device="cpu"))
    assert result.score == pytest.approx(result.max_score), [feedback_line(t) for t in result.tests if feedback_line(t)]


def test_an_import_that_hangs_is_waited_for_once(quick, tmp_path):
    started = time.monotonic()
    result = graded(quick, tmp_path, "import time\ntime.sleep(60)\n")
    assert time.monotonic() - started < 2 * LIMITS.scenario_timeout_s + 3
    assert all(test.reason == "timeout" and "importing the package exceeded 1 s" in feedback_line(test)
               for test in result.tests)


def test_the_worker_sees_its_own_directory_and_a_scrubbed_environment(quick, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "not for students")
    facts = seen(quick, tmp_path, '''
import os


def _seen():
    return {"environment": sorted(os.environ), "cwd": os.getcwd(), "home": os.environ.get("HOME"),
            "files": sorted(os.listdir(".")), "package": sorted(os.listdir("mynn"))}
''')
    assert set(facts["environment"]) <= set(environment.KEPT_ENVIRONMENT) | {"HOME", "TMPDIR"}
    assert facts["home"] == facts["cwd"] and os.path.basename(facts["cwd"]).startswith("modlab-worker-")
    assert facts["files"] == ["mynn"] and facts["package"] == ["parameter.py"]  # the exercise's files only
    assert not os.path.exists(facts["cwd"])  # removed with the worker


@pytest.mark.skipif(not LINUX, reason="the confinement is Linux's")
def test_the_worker_can_reach_no_network_and_no_grader(quick, tmp_path):
    facts = seen(quick, tmp_path, f'''
import socket


def _attempt(action):
    try:
        action()
        return "allowed"
    except OSError as exc:
        return type(exc).__name__


def _seen():
    return {{"udp": _attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)),
             "tcp": _attempt(lambda: socket.create_connection(("127.0.0.1", 22), timeout=0.5)),
             "grader": _attempt(lambda: open({str(ROOT / "graders" / "01_parameter" / "test_01_parameter.py")!r}).read()),
             "solution": _attempt(lambda: open({str(quick.solutions / "parameter.py")!r}).read())}}
''')
    assert facts["udp"] != "allowed" and facts["tcp"] != "allowed"
    if ROOTED or landlock.landlock_abi():
        assert facts["grader"] == facts["solution"] == "PermissionError"


@pytest.mark.skipif(not LINUX, reason="the confinement is Linux's")
def test_what_holds_is_reported(quick):
    from modlab.engine import package_sources
    from modlab.grading.loader import load_scenarios
    from modlab.isolation.process import WorkerProcess

    exercise = quick.exercise("01")
    case = load_scenarios(quick, exercise)[0].cases()[0]
    world = {"kind": "package", "package": quick.package, "own": ["parameter.py"],
             "sources": package_sources(quick, exercise, quick.solutions, "graft")}
    worker = WorkerProcess(world, quick.grader_files(), limits=quick.limits)
    try:
        worker.ask({"op": "run", "scenario": case.scenario.key, "arguments": case.arguments()}, 10)
    finally:
        worker.close()
    held = worker.sandbox
    assert "768 MiB" in held["memory"] and "32" in held["processes"]
    if os.uname().machine in seccomp.SYSCALLS:
        assert "seccomp" in held["network"]
    if ROOTED:
        assert held["user"].startswith("uid ") and "namespace" in held["network"]
        assert held["processes seen"] == "own PID namespace"
    if landlock.landlock_abi():
        assert held["files"].startswith("Landlock")


def observed(value) -> str:
    return json.dumps(value)


@pytest.mark.parametrize("answer, problem", [
    ({"observed": observed({"$tensor": {"class": "Tensor", "module": "torch", "dtype": "float32", "shape": [2],
                                        "device": "cpu", "requires_grad": False, "data": "AAAA"}})}, "does not fill"),
    ({"observed": observed({"$tensor": {"class": "Tensor"}})}, "malformed tensor"),
    ({"observed": observed({"$tensor": {"class": "Tensor", "module": "torch", "dtype": "Tensor", "shape": [],
                                        "device": "cpu", "requires_grad": False, "data": ""}})}, "unknown dtype"),
    ({"observed": observed({"$secret": 1})}, "unknown observation tag"),
    ({"observed": observed([float("nan")])}, "non-finite"),
    ({"observed": observed({"$dict": [["a"]]})}, "malformed mapping"),
    ({"observed": "{"}, "not JSON"),
    ({"observed": 1}, "not text"),
    ({"raised": {"type": "X"}}, "neither"),
    ({"observed": "1", "tamper": "no"}, "malformed tamper"),
    # the worker sending this side's reading of its text, to skip the checks of the reading
    ({"observed": "1", "observation": {"$secret": 1}}, "already read"),
])
def test_malformed_answers_are_refused(answer, problem):
    with pytest.raises(ProtocolError, match=problem):
        observation(check_answer(answer))


def test_answers_too_deep_or_not_objects_are_refused():
    for raw in (b"[" * 100_000 + b"]" * 100_000, b"[1, 2]", b"{"):
        with pytest.raises(ProtocolError):
            parse_answer(raw)
    deep = 1
    for _ in range(200):
        deep = [deep]
    with pytest.raises(ProtocolError, match="too deep"):
        observation(check_answer({"observed": observed(deep)}))


@pytest.mark.skipif(not ROOTED, reason="a root of binds needs root")
def test_without_landlock_root_gives_the_worker_a_root_of_binds(quick, tmp_path):
    """Where the kernel has no Landlock, root chroots the worker into
    read-only binds of what Landlock would allow; checked here in a fork."""
    workdir = tmp_path / "worker"
    workdir.mkdir()
    hidden = [ROOT / "graders" / "01_parameter" / "test_01_parameter.py", quick.solutions / "parameter.py"]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        facts = {}
        for name in [name for name in sys.modules if name.split(".")[0] == quick.package]:
            del sys.modules[name]  # as in the zygote, which never imports it: another test here did
        try:
            namespaces.unshare(namespaces.CLONE_NEWNS)
            libc.mount(None, b"/", None, namespaces.MS_REC | namespaces.MS_PRIVATE, None)
            facts["chroot"] = namespaces.private_root(str(workdir))
            facts["hidden"] = [os.path.exists(path) for path in hidden]
            facts["python"] = os.path.isdir(sys.prefix) and __import__("xml.dom.minidom").__name__
            facts["system writable"] = os.access(sys.prefix, os.W_OK)
            (workdir / "mine").write_text("its own directory is writable")
        finally:
            os.write(write, json.dumps(facts).encode())
            os._exit(0)
    os.close(write)
    facts = json.loads(os.read(read, 65536))
    os.waitpid(pid, 0)
    assert facts == {"chroot": True, "hidden": [False, False], "python": "xml", "system writable": False}
    assert (workdir / "mine").exists()
