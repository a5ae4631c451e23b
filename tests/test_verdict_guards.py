"""Grades, not code paths: each test here fails when a plausible slip in the code that
decides a verdict does its harm.

A maintainer's small edit to the comparison, the search's replay, the worker's
checks, a worker's inherited descriptors, the batch's resume decision or the
reading of a deadline can leave every code path running and every other test
green while grades change. So each test grades a small submission (one edit to
the reference) or fetches a small class, and asserts what a student or an
instructor would see: a score, a word in the feedback, the grading process's
own output, a regrade, a commit. ``scripts/breakages.py`` makes those slips
on purpose and checks that these tests notice.
"""
import dataclasses
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from modlab.batch.grading import Batch, pending
from modlab.batch.layout import find_submissions
from modlab.batch.store import ResultStore
from modlab.course import load_course
from modlab.engine import GradeOptions, Memory, grade_exercise
from modlab.formats.feedback import failure_text, feedback_line
from modlab.instructor.ci.fetch import fetch_class, parse_deadline
from modlab.instructor.ci.roster import load_roster
from modlab.instructor.variants import reference_package
from modlab.records import FAILED, PASSED, TAMPER

from conftest import ROOT
from test_ci import commit, write_roster

CPU = GradeOptions(device="cpu")


def edited(course, folder, file: str, old: str, new: str):
    """The reference package with one edit to ``file``, in ``folder``."""
    text = (course.solutions / file).read_text()
    assert text.count(old) == 1, f"{old!r} is not once in {file}: update this test"
    return reference_package(course, folder, {file: text.replace(old, new)})


def failed(result) -> dict:
    return {test.name: test for test in result.tests if test.outcome == FAILED}


# -- the comparison ------------------------------------------------------------------------

def test_a_layer_computing_in_float64_loses_its_check_and_the_feedback_says_dtype(course, tmp_path):
    package = edited(course, tmp_path, "layers.py", "output = input @ self.weight.T\n",
                     "output = input.double() @ self.weight.T.double()\n")
    result = grade_exercise(course, course.exercise("08"), package, CPU)
    assert result.score < result.max_score
    test = failed(result)["linear_forward_and_gradients"]
    assert test.failure.where.endswith("· dtype")
    text = failure_text(test)
    assert "dtype" in text and "'float32'" in text and "'float64'" in text


def test_weights_drawn_almost_like_torch_are_not_bit_for_bit_and_lose_the_check(course, tmp_path):
    package = edited(course, tmp_path, "layers.py", "kaiming_uniform_(self.weight, a=math.sqrt(5))",
                     "kaiming_uniform_(self.weight, a=2.236)")
    result = grade_exercise(course, course.exercise("08"), package, CPU)
    assert result.score < result.max_score
    test = failed(result)["linear_initial_weights_match_under_a_seed"]
    assert test.failure.detail == "values differ" and "weight" in test.failure.where


# -- the search ------------------------------------------------------------------------------

FIRST_SIGHT_WRONG = ("        seen = set()\n        for name, module in self._modules.items():\n"
                     "            if module is not None and module not in seen:\n                seen.add(module)\n"
                     "                yield name, module\n",
                     "        seen, layouts = set(), globals().setdefault('LAYOUTS_SEEN', set())\n"
                     "        if tuple(self._modules) not in layouts:  # wrong the first time, right after\n"
                     "            layouts.add(tuple(self._modules))\n            return\n"
                     "        for name, module in self._modules.items():\n"
                     "            if module is not None and module not in seen:\n                seen.add(module)\n"
                     "                yield name, module\n")


def test_a_submission_that_fails_a_case_once_and_passes_it_again_loses_the_check(course, tmp_path):
    """As uninitialised memory does (torch.empty never filled): Hypothesis calls such a failure
    flaky, and grading must score it, not stop."""
    package = edited(course, tmp_path, "walk.py", *FIRST_SIGHT_WRONG)
    result = grade_exercise(course, course.exercise("03"), package, CPU)
    test = failed(result)["random_trees_named_modules"]
    assert "named_children" in feedback_line(test) and result.score < result.max_score


# -- the search's replay -------------------------------------------------------------------

RAISES_ON_SHARED = ("        if self in memo:\n            return\n",
                    "        if self in memo:\n            raise RuntimeError('met a module twice')\n")


def test_a_batch_grade_equals_a_fresh_grade_when_the_submission_raises_in_a_replayed_search(course, tmp_path):
    """A batch grades the reference first, so its searches replay the reference's specs;
    a submission that raises on one of them must be graded as a fresh search grades it."""
    package = edited(course, tmp_path, "walk.py", *RAISES_ON_SHARED)
    exercise = course.exercise("03")
    memory = Memory()

    def verdicts():
        result = grade_exercise(course, exercise, package, CPU, memory)
        return result.score, [(t.name, t.outcome, t.reason, failure_text(t)) for t in result.tests]

    fresh = verdicts()
    grade_exercise(course, exercise, course.solutions, CPU, memory)  # the batch's warm-up
    assert verdicts() == fresh
    assert any(reason == "raised" and "random_trees" in name for name, _, reason, _ in fresh[1])


# -- what a worker answers and what it inherits --------------------------------------------

NAMED_MODULES_BODY = """\
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, _join(prefix, name), remove_duplicate)
"""


def test_a_walk_that_reaches_torch_nn_unseen_at_load_time_earns_no_more_than_the_stub(course, tmp_path):
    """No module-level alias and no torch.nn base class: only the tripwires, reported with
    every answer, see that named_modules is torch.nn's."""
    delegating = edited(course, tmp_path / "delegating", "walk.py", NAMED_MODULES_BODY,
                        "        import torch\n"
                        "        yield from getattr(torch, 'nn').Module.named_modules(self, memo, prefix, remove_duplicate)\n")
    unwritten = edited(course, tmp_path / "unwritten", "walk.py", NAMED_MODULES_BODY,
                       "        raise NotImplementedError('exercise 03: named_modules')\n")
    exercise = course.exercise("03")
    cheat = grade_exercise(course, exercise, delegating, CPU)
    honest = grade_exercise(course, exercise, unwritten, CPU)
    assert cheat.score <= honest.score < cheat.max_score
    assert {test.reason for test in failed(cheat).values()} == {TAMPER}
    assert all("delegating to torch.nn" in feedback_line(test) for test in failed(cheat).values())


INHERITANCE_PROBE = '''\
import os as _os
_os.write(1, b"FAKE-OUTPUT 10 passed\\n")
_os.write(2, b"FAKE-OUTPUT 10 passed\\n")
_inherited = {}
for _fd in _os.listdir("/proc/self/fd"):
    try:
        _inherited[int(_fd)] = _os.readlink(f"/proc/self/fd/{_fd}")
    except OSError:
        pass  # the listing's own descriptor, closed by now
_sockets = [fd for fd, target in _inherited.items() if target.startswith("socket:")]
if any(_inherited.get(fd) != _os.devnull for fd in (0, 1, 2)) or len(_sockets) != 1 or len(_inherited) != 4:
    raise RuntimeError(f"the worker inherited {_inherited}")
'''


def test_a_worker_inherits_no_descriptor_of_the_grading_side(course, tmp_path):
    """A worker's standard streams go nowhere, and it holds its own connection and nothing
    else: no socket of the zygote's, no stream of the grading process's, where a submission
    could print fake results into an instructor's or CI's log. Graded in a process of its own,
    whose zygote inherits the output this test reads."""
    reference = (course.solutions / "parameter.py").read_text()
    package = reference_package(course, tmp_path, {"parameter.py": INHERITANCE_PROBE + reference})
    out = tmp_path / "graded.json"
    done = subprocess.run([sys.executable, "-m", "modlab", "--course", str(ROOT / "course.yaml"), "grade",
                           str(package.parent), "-e", "01", "--device", "cpu", "--json", str(out)],
                          capture_output=True, text=True, env={**os.environ, "MODLAB_CHECK_SERVER": "0"})
    assert "FAKE-OUTPUT" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    graded = json.loads(out.read_text())
    assert graded["score"] == graded["max_score"], [t["feedback"] for e in graded["exercises"] for t in e["tests"]
                                                    if t["outcome"] == FAILED][:1]


# -- resuming a batch ----------------------------------------------------------------------

@pytest.fixture
def course_copy(tmp_path):
    """A copy of the course's grading files, to change one at a time."""
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(ROOT / "course.yaml", root)
    for folder in ("solutions", "graders"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_a_batch_resumed_after_its_grading_changed_regrades_everyone(course_copy, tmp_path):
    course = load_course(course_copy / "course.yaml")
    klass = tmp_path / "class"
    shutil.copytree(course.solutions, klass / "ada" / course.package)
    submissions = find_submissions(klass, course)
    exercises = [course.exercise("01")]
    store = ResultStore(tmp_path / "results")
    store.save(Batch(course, exercises, CPU).grade(submissions[0]))
    assert pending(Batch(course, exercises, CPU), store, submissions) == []

    changed_options = Batch(course, exercises, GradeOptions(device="cpu", public_only=True))
    assert pending(changed_options, store, submissions) == submissions
    changed_limits = Batch(dataclasses.replace(course, limits=dataclasses.replace(course.limits, memory_mib=1024)),
                           exercises, CPU)
    assert pending(changed_limits, store, submissions) == submissions
    grader = course.grader_file(course.exercise("01"))
    grader.write_text(grader.read_text() + "\n# a fix to a check\n")
    assert pending(Batch(course, exercises, CPU), store, submissions) == submissions


# -- deadlines -----------------------------------------------------------------------------

@pytest.fixture
def in_berlin(monkeypatch):
    """This process's local time is Berlin's (UTC+1 in March), as on a runner set up there."""
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_deadline_without_a_zone_is_utc_wherever_the_runner_is(in_berlin):
    assert parse_deadline("2026-03-01T23:59") == dt.datetime(2026, 3, 1, 23, 59, tzinfo=dt.timezone.utc)
    assert parse_deadline("2026-03-01T23:59:00+01:00") == dt.datetime(2026, 3, 1, 22, 59, tzinfo=dt.timezone.utc)


def test_a_commit_one_second_before_a_zoneless_deadline_counts_and_one_after_does_not(course, tmp_path, in_berlin):
    repository = tmp_path / "repos" / "ada"
    on_time = commit(repository, {"mynn/parameter.py": "on_time = 1\n"}, when="2026-03-01T23:58:59+00:00")
    commit(repository, {"mynn/parameter.py": "late = 1\n"}, when="2026-03-01T23:59:01+00:00")
    roster = load_roster(write_roster(tmp_path / "roster.yaml", [{"student": "ada", "repository": repository.as_uri()}]))
    [fetched] = fetch_class(course, roster, tmp_path / "class", parse_deadline("2026-03-01T23:59:00"))
    assert fetched.commit == on_time
    assert (tmp_path / "class" / "ada" / "mynn" / "parameter.py").read_text() == "on_time = 1\n"
