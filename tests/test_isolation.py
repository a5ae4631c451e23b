"""Grade each exercise in isolation: a bug in one exercise costs points there only."""
import pytest

from modlab.runner.grade import WHOLE, GradeOptions, grade_exercise
from modlab.variants import reference_package

from conftest import ROOT

BROKEN_REGISTRATION = "raise RuntimeError('this student broke exercise 02 beyond repair')\n"


def test_a_broken_exercise_02_costs_nothing_elsewhere(course, tmp_path):
    package = reference_package(course, tmp_path, {"registration.py": BROKEN_REGISTRATION})
    graded = [e for e in course.exercises if e.id != "02" and (course.graders / f"test_{e.name}.py").exists()]
    assert graded, "no other exercise has graders yet"
    for exercise in graded:
        if exercise.id == "09":  # the capstone is cumulative by design
            continue
        result = grade_exercise(course, exercise, package, GradeOptions(device="cpu"))
        assert result.score == pytest.approx(result.max_score), (exercise.id, [t.feedback for t in result.tests if t.feedback])
    broken = grade_exercise(course, course.exercise("02"), package, GradeOptions(device="cpu"))
    assert broken.score == 0
    assert "did not import" in broken.error


def test_local_checks_point_at_the_earlier_exercise_to_fix(course, tmp_path):
    """In whole-package mode (a student's own kit) a failure inside exercise 01's
    code, met while checking exercise 02, says to fix exercise 01 first."""
    stub = (ROOT / "exercises" / course.package / "parameter.py").read_text()
    package = reference_package(course, tmp_path, {"parameter.py": stub})
    result = grade_exercise(course, course.exercise("02"), package, GradeOptions(mode=WHOLE, device="cpu"))
    feedback = [t.feedback for t in result.tests if t.outcome == "failed"]
    assert feedback
    assert any("fix exercise 01 first" in text for text in feedback), feedback
