"""A cumulative exercise (the capstone) is graded with the submission's whole
package: a broken earlier exercise costs points there too, unlike grafting."""
import pytest

from modlab.course import CourseError, load_course
from modlab.engine import GradeOptions, grade_exercise
from modlab.formats.feedback import explanation_text, feedback_line

from conftest import ROOT


def test_the_capstone_uses_the_submissions_own_layers(course, make_submission):
    """The reference package with exercise 08's layers.py left as the stub."""
    capstone = course.exercise("09")
    assert capstone.cumulative and not course.exercise("08").cumulative
    stub = (ROOT / "exercises" / course.package / "layers.py").read_text()
    folder = make_submission({"layers.py": stub}, base=course.solutions)
    result = grade_exercise(course, capstone, folder / course.package, GradeOptions(device="cpu"))
    assert result.score < result.max_score / 2
    assert any(t.failure and explanation_text(t.failure.explanation).endswith("in layers.py (exercise 08)")
               for t in result.tests), [feedback_line(t) for t in result.tests]


def test_cumulative_must_be_a_boolean(tmp_path):
    text = (ROOT / "course.yaml").read_text().replace("cumulative: true", "cumulative: maybe")
    (tmp_path / "course.yaml").write_text(text)
    with pytest.raises(CourseError, match=r"exercises\[8\]\.cumulative: expected true or false"):
        load_course(tmp_path / "course.yaml")
