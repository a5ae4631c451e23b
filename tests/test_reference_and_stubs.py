"""The reference scores full marks on every grader; the stubs score zero."""
import pytest

from modlab.engine import GradeOptions, grade_exercise
from modlab.formats.feedback import feedback_line
from modlab.records import FAILED, PASSED

from conftest import ROOT

EXERCISES = [f"{n:02d}" for n in range(1, 10)]


def graded(course, exercise_id, folder, mode="graft"):
    exercise = course.exercise(exercise_id)
    if not course.grader_file(exercise).exists():
        pytest.skip(f"no grader for exercise {exercise_id} yet")
    return grade_exercise(course, exercise, folder / course.package, GradeOptions(mode=mode, device="cpu"))


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_reference_scores_full_marks(course, exercise_id):
    result = graded(course, exercise_id, ROOT / "solutions")
    failures = [f"{t.name}: {feedback_line(t)}" for t in result.tests if t.outcome == FAILED]
    assert failures == []
    assert result.score == pytest.approx(result.max_score)
    assert len(result.tests) >= 8, "each exercise deserves a real grader"


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_stubs_score_zero(course, exercise_id):
    result = graded(course, exercise_id, ROOT / "exercises")
    passing = [t.name for t in result.tests if t.outcome == PASSED]
    assert passing == [], "a grader that passes an empty submission is a defect"
    assert result.score == 0
    assert all(feedback_line(t) for t in result.tests if t.outcome == FAILED)
