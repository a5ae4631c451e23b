"""The worker's environment is proven free of planted secrets.

The secrets are planted under the names a runner really has (``GITHUB_TOKEN``,
the course's ``MODLAB_FETCH_TOKEN``, a course token of any name) and searched
for by their *values*, everywhere a submission could look: ``os.environ`` and
``/proc/self/environ``. Nothing here is compared against the code's own list
of kept variables.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import uuid

import pytest

from modlab.isolation.sandbox.environment import clean_environment, scrub_environment

from conftest import ROOT
from test_sandbox_limits import count_hits, in_child, mutmut_hits

SECRETS = {"GITHUB_TOKEN": "ghp_" + uuid.uuid4().hex, "MODLAB_FETCH_TOKEN": "fetch-" + uuid.uuid4().hex,
           "COURSE_API_TOKEN": "course-" + uuid.uuid4().hex, "ACTIONS_RUNTIME_TOKEN": "rt-" + uuid.uuid4().hex}


def test_clean_environment_drops_every_planted_secret_and_keeps_path(monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    env = clean_environment({"MODLAB_ZYGOTE": "1"})
    assert not [value for value in env.values() if value in SECRETS.values()]
    assert env["PATH"] == "/usr/bin:/bin" and env["MODLAB_ZYGOTE"] == "1"
    assert "HOME" not in env and "PYTHONPATH" not in env


def test_scrubbing_leaves_no_secret_and_the_worker_in_its_own_directory():
    workdir = tempfile.mkdtemp(prefix="modlab-test-worker-")

    def payload():
        os.environ.update(SECRETS)
        os.environ["PATH"] = "/usr/bin"
        scrub_environment(workdir)
        return {"environ": dict(os.environ), "cwd": os.getcwd(), "tempdir": tempfile.gettempdir(),
                "argv": sys.argv, "bytecode": sys.dont_write_bytecode}

    seen = in_child(payload)
    os.rmdir(workdir)
    assert not [value for value in seen["environ"].values() if value in SECRETS.values()]
    assert seen["environ"]["HOME"] == seen["environ"]["TMPDIR"] == workdir and seen["environ"]["PATH"] == "/usr/bin"
    assert seen["cwd"] == os.path.realpath(workdir) and seen["tempdir"] == workdir
    assert seen["argv"] == [""] and seen["bytecode"] is True


# A submission's parameter.py that shows, in every check's feedback, where it found a planted secret.
SNOOP = '''

def _snoop():
    import json, os
    with open("/proc/self/environ", "rb") as raw:
        initial = raw.read().decode(errors="replace")
    found = [name for name, value in SECRETS.items() if value in initial or value in repr(dict(os.environ))]
    raise RuntimeError("SNOOP" + json.dumps({"found": found, "names": sorted(os.environ)}) + "END")


Parameter.__new__ = lambda cls, *args, **kwargs: _snoop()
'''

GRADE = '''
import json, sys
from pathlib import Path
from modlab.course import load_course
from modlab.engine import GradeOptions, grade_exercise
from modlab.formats.feedback import feedback_line
course = load_course(Path(sys.argv[1]) / "course.yaml")
result = grade_exercise(course, course.exercise("01"), Path(sys.argv[2]), GradeOptions(device="cpu"))
print(json.dumps([feedback_line(t) for t in result.tests]))
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/environ is Linux's")
def test_a_worker_started_with_secrets_in_the_environment_finds_none(tmp_path):
    """Planted before the grading process starts, so its zygote and workers inherit them if anything does."""
    package = tmp_path / "mynn"
    package.mkdir()
    stub = (ROOT / "exercises" / "mynn" / "parameter.py").read_text()
    (package / "parameter.py").write_text(stub + f"\nSECRETS = {SECRETS!r}\n" + SNOOP)
    env = {**os.environ, **SECRETS}
    done = subprocess.run([sys.executable, "-c", GRADE, str(ROOT), str(package)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    feedback = json.loads(done.stdout.strip().splitlines()[-1])
    reports = [json.loads(text.split("SNOOP", 1)[1].split("END", 1)[0]) for text in feedback if "SNOOP" in text]
    assert reports, feedback[:3]  # the snoop ran in the worker and answered
    assert all(report["found"] == [] for report in reports), reports[0]
    assert not set(SECRETS) & set(reports[0]["names"])
    assert not [value for value in SECRETS.values() if value in done.stdout]


def test_the_worker_keeps_only_its_connection_and_writes_to_dev_null():
    from modlab.isolation.sandbox.environment import quiet_descriptors

    read, keep = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: what it reports goes through the one descriptor it keeps; never back into pytest
        try:
            inherited = [os.open(os.devnull, os.O_RDONLY) for _ in range(3)] + [os.dup2(read, 900)]
            os.dup2(read, 0)  # whatever stdin was, the worker's is /dev/null
            # a descriptor limit above 65536 (root may raise it), and a descriptor up there
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (70_001, 70_001))
                inherited.append(os.dup2(read, 70_000))
            except (ValueError, OSError):
                pass  # not allowed here: the descriptors below the limit are still checked
            quiet_descriptors(keep)
            still_open = [fd for fd in range(resource.getrlimit(resource.RLIMIT_NOFILE)[0]) if _is_open(fd)]
            targets = [os.readlink(f"/proc/self/fd/{fd}") for fd in (0, 1, 2)]
            os.write(keep, json.dumps({"open": still_open, "targets": targets, "inherited": inherited,
                                       "hits": mutmut_hits()}).encode())
        finally:
            os._exit(0)
    os.close(keep)
    answer = b""
    while chunk := os.read(read, 65536):
        answer += chunk
    os.close(read)
    os.waitpid(pid, 0)
    seen = json.loads(answer)
    count_hits(seen["hits"])
    assert seen["targets"] == ["/dev/null"] * 3
    assert seen["open"] == [0, 1, 2, keep]
    assert 900 in seen["inherited"]


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False
