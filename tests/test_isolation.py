"""Grade each exercise in isolation: a bug in one exercise costs points there only."""
import pytest

from modlab.engine import WHOLE, GradeOptions, Memory, grade_exercise, grade_submission
from modlab.formats.feedback import explanation_text, feedback_line
from modlab.instructor.variants import reference_package

from conftest import ROOT

BROKEN_REGISTRATION = "raise RuntimeError('this student broke exercise 02 beyond repair')\n"


def test_a_broken_exercise_02_costs_nothing_elsewhere(course, tmp_path):
    package = reference_package(course, tmp_path, {"registration.py": BROKEN_REGISTRATION})
    graded = [e for e in course.exercises if e.id != "02" and course.grader_file(e).exists()]
    assert graded, "no other exercise has graders yet"
    for exercise in graded:
        if exercise.id == "09":  # the capstone is cumulative by design
            continue
        result = grade_exercise(course, exercise, package, GradeOptions(device="cpu"))
        assert result.score == pytest.approx(result.max_score), (exercise.id, [feedback_line(t) for t in result.tests if feedback_line(t)])
    broken = grade_exercise(course, course.exercise("02"), package, GradeOptions(device="cpu"))
    assert broken.score == 0
    assert "did not import" in broken.error


def test_local_checks_point_at_the_earlier_exercise_to_fix(course, tmp_path):
    """In whole-package mode (a student's own kit) a failure inside exercise 01's
    code, met while checking exercise 02, names exercise 01's stub as the cause."""
    stub = (ROOT / "exercises" / course.package / "parameter.py").read_text()
    package = reference_package(course, tmp_path, {"parameter.py": stub})
    result = grade_exercise(course, course.exercise("02"), package, GradeOptions(mode=WHOLE, device="cpu"))
    failures = [t.failure for t in result.tests if t.outcome == "failed"]
    assert failures
    assert any(explanation_text(f.explanation).startswith("still the stub") and explanation_text(f.explanation).endswith("in parameter.py (exercise 01)")
               for f in failures), [explanation_text(f.explanation) for f in failures]
    assert not any(f.misconceptions for f in failures)


def test_local_checks_name_an_earlier_exercise_that_raised_in_its_own_code(course, tmp_path):
    """Whole-package mode: exercise 02's own code raising, met while checking exercise 03."""
    source = (course.solutions / "registration.py").read_text()
    broken = source.replace('raise AttributeError(f"\'{type(self).__name__}\' object has no attribute \'{name}\'")',
                            'raise KeyError(name)')
    assert broken != source
    package = reference_package(course, tmp_path, {"registration.py": broken})
    result = grade_exercise(course, course.exercise("03"), package, GradeOptions(mode=WHOLE, device="cpu"))
    explanations = [explanation_text(t.failure.explanation) for t in result.tests if t.outcome == "failed"]
    assert any(e.startswith("the failure is inside exercise 02's code (registration.py:") for e in explanations), explanations


def test_a_graft_blames_a_name_the_reference_lacks_not_another_exercise(course, tmp_path):
    """Graded on top of the reference, a student's walk.py that calls a helper kept
    in its own registration.py is told the name and its line, not "fix exercise 02"."""
    walk = (course.solutions / "walk.py").read_text().replace(
        "    def _named_members(self, members_of, prefix, recurse, remove_duplicate):",
        "    def _named_members(self, members_of, prefix, recurse, remove_duplicate):\n"
        "        return self._walk_helper_of_mine(members_of, prefix)\n\n"
        "    def _unused(self, members_of, prefix, recurse, remove_duplicate):")
    assert "_walk_helper_of_mine" in walk
    package = reference_package(course, tmp_path, {"walk.py": walk})
    result = grade_exercise(course, course.exercise("03"), package, GradeOptions(device="cpu"))
    failures = [t.failure for t in result.tests if t.outcome == "failed"]
    assert failures
    line = next(number for number, text in enumerate(walk.splitlines(), 1) if "_walk_helper_of_mine" in text)
    expected = f"your walk.py:{line} uses `_walk_helper_of_mine`, which the course's reference package does not provide"
    raised = [f for f in failures if f.raised]
    assert raised and all(explanation_text(f.explanation).startswith(expected) for f in raised), [explanation_text(f.explanation) for f in raised]
    assert not any("fix exercise" in explanation_text(f.explanation) for f in failures)
    assert not any(f.misconceptions for f in failures)


def test_grading_one_exercise_loads_its_grader_only(course):
    """An nbgrader assignment, `modlab grade -e 01`: the workers of a grading of 01 load 01's
    grader, and never wait for another's imports (08's: torch._dynamo)."""
    memory = Memory()
    result = grade_submission(course, course.solutions, [course.exercise("01")], GradeOptions(device="cpu"),
                              memory=memory)
    assert result.score == pytest.approx(result.max_score)
    assert [oracle.worker.grader_files for oracle in memory.oracles.values()] == [course.grader_files(["01"])]
