"""Each buggy variant loses points in its own exercise, and the feedback names the mistake."""
from pathlib import Path

import pytest
import yaml

from modlab.runner.grade import GradeOptions, grade_exercise
from modlab.runner.records import FAILED

from conftest import ROOT

BUGGY = Path(__file__).parent / "buggy"


def variants():
    for path in sorted(BUGGY.glob("*.yaml")):
        for variant in yaml.safe_load(path.read_text()):
            yield pytest.param(path.stem[:2], variant, id=f"{path.stem}-{variant['name']}",
                               marks=[pytest.mark.cuda] if variant.get("cuda") else [])


def apply_variant(variant: dict, package: Path) -> str:
    """The variant's file: the reference file with each edit applied exactly once."""
    text = (package / variant["file"]).read_text()
    for edit in variant["replace"]:
        count = text.count(edit["old"])
        assert count == 1, f"{variant['name']}: `old` occurs {count} times in {variant['file']}; update the variant"
        text = text.replace(edit["old"], edit["new"])
    return text


def buggy_submission(course, variant, tmp_path) -> Path:
    package = tmp_path / course.package
    package.mkdir()
    for source in course.solutions.glob("*.py"):
        (package / source.name).write_text(source.read_text())
    (package / variant["file"]).write_text(apply_variant(variant, course.solutions))
    return package


@pytest.mark.parametrize("exercise_id, variant", variants())
def test_variant_loses_points_with_feedback_that_names_the_mistake(course, tmp_path, exercise_id, variant):
    exercise = course.exercise(exercise_id)
    assert variant["file"] in exercise.files
    device = "cuda" if variant.get("cuda") else "cpu"
    result = grade_exercise(course, exercise, buggy_submission(course, variant, tmp_path), GradeOptions(device=device))
    failed = [t for t in result.tests if t.outcome == FAILED]
    assert failed, f"{variant['name']} passed every grader test of exercise {exercise_id}"
    assert result.score < result.max_score
    feedback = " | ".join(t.feedback for t in failed)
    assert variant["expect"].lower() in feedback.lower(), feedback


def test_variants_leave_other_exercises_whole(course):
    """Grafting grades exercise k with only exercise k's files from the submission:
    a variant's file belongs to exactly one exercise."""
    for path in BUGGY.glob("*.yaml"):
        for variant in yaml.safe_load(path.read_text()):
            owners = [e.id for e in course.exercises if variant["file"] in e.files]
            assert owners == [path.stem[:2]], variant["name"]
