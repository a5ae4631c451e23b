"""Adversarial submissions score no more than their honest work, and spare the batch.

Each attack in ``tests/adversarial/`` is appended to the exercise's stub, so
its honest work scores zero. Graded with small limits, each must score zero,
fail every test with a reason that names what happened, end within the
submission's time limit, leave no process and no file behind, and leave the
reference, graded right after it in the same process, at full marks.
"""
import dataclasses
import json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass

import pytest

from modlab.course import Limits
from modlab.engine import GradeOptions, grade_exercise
from modlab.formats.feedback import feedback_line
from modlab.isolation.sandbox.landlock import landlock_abi
from modlab.isolation.sandbox.user import WORKER_UIDS
from modlab.isolation.launcher import zygote
from modlab.records import FAILED

from conftest import ROOT

ATTACKS = ROOT / "tests" / "adversarial"
LIMITS = Limits(scenario_timeout_s=2, submission_timeout_s=4, memory_mib=768, max_processes=32)
EXERCISE_FILE = {"01": "parameter.py", "02": "registration.py"}
ESCAPEE = "modlab-escapee"
CONFINED = os.geteuid() == 0 or landlock_abi() > 0


@dataclass(frozen=True)
class Attack:
    name: str
    reasons: frozenset[str]
    says: str  # in the feedback of every test it fails
    exercise: str = "01"


def attack(name, reasons, says, exercise="01"):
    return Attack(name, frozenset(reasons.split()), says, exercise)


CASES = [
    attack("exit_at_import", "import", "SystemExit"),
    attack("os_exit_at_import", "crash", "exited with code 0"),
    attack("exit_mid_scenario", "raised", "SystemExit"),
    attack("os_exit_mid_scenario", "crash", "exited with code 0"),
    attack("infinite_loop", "timeout", "exceeded"),
    attack("ignores_signals", "timeout", "exceeded"),
    attack("sleeps_every_scenario", "timeout", "exceed"),  # "would exceed 2 s", then "already exceeded its time"
    attack("fork_bomb", "limit", "worker exceeded 32 processes"),
    attack("allocates_50gb", "limit", "worker exceeded 768 MiB"),
    attack("prints_fake_results", "raised", "NotImplementedError"),
    attack("fakes_pytest", "raised", "NotImplementedError"),
    attack("patches_torch_compare", "raised", "NotImplementedError"),
    attack("always_equal", "mismatch raised", "yours "),  # compared as data: what it really gave is shown
    attack("delegates_subclass", "tamper", "delegating to torch.nn"),
    attack("delegates_objects", "tamper", "delegating to torch.nn"),
    attack("delegates_methods", "tamper", "delegating to torch.nn", "02"),
    attack("delegates_base_class", "tamper", "inherits from torch.nn.modules.module.Module", "02"),
    attack("reads_solutions", "raised", "NotImplementedError"),
    attack("escapes_by_double_fork", "raised", "NotImplementedError"),
]


@pytest.fixture(scope="module")
def strict(course):
    """The course with small limits, its zygote and oracle started (not timed below)."""
    strict = dataclasses.replace(course, limits=LIMITS)
    grade_exercise(strict, strict.exercise("01"), strict.solutions, GradeOptions(device="cpu"))
    return strict


def submission(course, folder, case: Attack):
    """The stub of the attacked exercise with the attack appended, in ``folder/mynn``."""
    package = folder / course.package
    package.mkdir(parents=True)
    name = EXERCISE_FILE[case.exercise]
    stub = (ROOT / "exercises" / course.package / name).read_text()
    (package / name).write_text(stub + "\n\n" + (ATTACKS / f"{case.name}.py").read_text())
    return package


def leftovers() -> list[str]:
    """Processes the graded workers left: an escapee by name, or anything below
    this process's zygote run by a worker's user."""
    parents, found = {}, []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{entry}/stat").read()
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        comm, fields = stat[stat.index("(") + 1: stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        parents[int(entry)] = (int(fields[1]), comm, uid)
    ours = {zygote().process.pid}
    for pid in sorted(parents):
        ancestors, up = set(), pid
        while up in parents and up not in ancestors:
            ancestors.add(up)
            up = parents[up][0]
        _, comm, uid = parents[pid]
        if comm == ESCAPEE or (uid in WORKER_UIDS and ancestors & ours):
            found.append(f"{pid} {comm} uid {uid}")
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux's")
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_attack_earns_nothing_and_the_batch_goes_on(strict, tmp_path, case):
    exercise = strict.exercise(case.exercise)
    started = time.monotonic()
    result = grade_exercise(strict, exercise, submission(strict, tmp_path, case), GradeOptions(device="cpu"))
    assert time.monotonic() - started < LIMITS.submission_timeout_s + 10
    assert result.tests and result.score == 0
    assert all(test.outcome == FAILED for test in result.tests)
    assert {test.reason for test in result.tests} <= case.reasons, [(t.reason, feedback_line(t)) for t in result.tests]
    assert all(case.says in feedback_line(test) for test in result.tests), [feedback_line(t) for t in result.tests]
    assert leftovers() == []
    assert not list(ROOT.rglob("PWNED"))
    reference = grade_exercise(strict, exercise, strict.solutions, GradeOptions(device="cpu"))
    assert reference.score == pytest.approx(reference.max_score), [feedback_line(t) for t in reference.tests if feedback_line(t)]


def test_fake_results_never_reach_the_grading_output(strict, tmp_path, capfd):
    case = next(case for case in CASES if case.name == "prints_fake_results")
    grade_exercise(strict, strict.exercise("01"), submission(strict, tmp_path, case), GradeOptions(device="cpu"))
    out, err = capfd.readouterr()
    assert "FAKE-RESULT-MARKER" not in out + err


def test_files_beside_the_submission_are_never_imported(strict, tmp_path):
    """A pytest.py or conftest.py beside the student's files would fake a pass if imported."""
    trap = "import pathlib; pathlib.Path({marker!r}).write_text('imported')\n"
    package = tmp_path / "submission" / strict.package
    package.mkdir(parents=True)
    (package / "parameter.py").write_text((ROOT / "exercises" / strict.package / "parameter.py").read_text())
    for folder in (package, package.parent):
        for name in ("pytest.py", "conftest.py", "sitecustomize.py"):
            (folder / name).write_text(trap.format(marker=str(tmp_path / f"{folder.name}-{name}.imported")))
    result = grade_exercise(strict, strict.exercise("01"), package, GradeOptions(device="cpu"))
    assert result.score == 0
    assert not list(tmp_path.glob("*.imported"))


@pytest.mark.skipif(not CONFINED, reason="needs root or Landlock to hide the grading process from its workers")
def test_worker_cannot_learn_where_results_go(tmp_path):
    """The grading process's arguments and environment name a secret; the
    attack looks for it everywhere it can reach and reports what it finds."""
    secret = f"SECRET-{uuid.uuid4().hex}"
    results = tmp_path / secret / "results.json"
    results.parent.mkdir()
    case = Attack("learns_where_results_go", frozenset({"raised"}), "found: nothing")
    package = tmp_path / "submission"
    from modlab.course import load_course
    submission(load_course(ROOT / "course.yaml"), package, case)
    env = {**os.environ, "MODLAB_TEST_TOKEN": secret}
    command = [sys.executable, "-m", "modlab", "grade", str(package), "--exercise", "01", "--device", "cpu",
               "--json", str(results)]
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    feedback = [test["feedback"] for test in json.loads(results.read_text())["exercises"][0]["tests"]]
    assert feedback and all("found: nothing" in text for text in feedback), feedback[0]
