"""Each buggy variant loses points in its own exercise, and the feedback names the mistake."""
from pathlib import Path

import pytest

from modlab.runner.grade import GradeOptions, grade_exercise, oracle_for
from modlab.runner.records import FAILED
from modlab.variants import Variant, load_variants, variant_package

VARIANTS = load_variants(Path(__file__).parent / "buggy")


@pytest.mark.parametrize("variant", [
    pytest.param(v, id=f"{v.exercise}-{v.name}", marks=[pytest.mark.cuda] if v.cuda else []) for v in VARIANTS
])
def test_variant_loses_points_with_feedback_that_names_the_mistake(course, tmp_path, variant: Variant):
    exercise = course.exercise(variant.exercise)
    if variant.cuda and not oracle_for(course).cuda:
        pytest.skip("CUDA not available")  # without CUDA every CUDA case fails, bug or not
    device = "cuda" if variant.cuda else "cpu"
    result = grade_exercise(course, exercise, variant_package(course, variant, tmp_path), GradeOptions(device=device))
    failed = [t for t in result.tests if t.outcome == FAILED]
    assert failed, f"{variant.name} passed every grader test of exercise {variant.exercise}"
    assert result.score < result.max_score
    feedback = " | ".join(t.feedback for t in failed)
    assert variant.expect.lower() in feedback.lower(), feedback


def test_each_variant_edits_a_file_of_its_own_exercise_only(course):
    """Grafting grades exercise k with only exercise k's files from the submission,
    so a variant's file must belong to exactly its own exercise."""
    for variant in VARIANTS:
        owners = [e.id for e in course.exercises if variant.file in e.files]
        assert owners == [variant.exercise], variant.name


def test_every_edit_applies_exactly_once(course):
    for variant in VARIANTS:
        variant.apply((course.solutions / variant.file).read_text())


def test_a_stale_edit_fails_loudly():
    stale = Variant("01", "stale", "parameter.py", "x", (("no such text", "y"),))
    with pytest.raises(ValueError, match="occurs 0 times"):
        stale.apply("class Parameter: pass\n")
