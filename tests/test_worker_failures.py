"""A worker that exits, hangs or fails to import still yields a recorded result."""
import dataclasses

import pytest

from modlab.course import Limits
from modlab.engine import GradeOptions, grade_exercise
from modlab.formats.feedback import feedback_line
from modlab.instructor.variants import reference_package
from modlab.records import FAILED, PASSED

HANGS_IN_REPR = "\n    def __repr__(self):\n        while True:\n            pass\n"
EXITS_IN_DEEPCOPY = "\n    def __deepcopy__(self, memo):\n        import os\n        os._exit(3)\n"


@pytest.fixture
def quick_course(course):
    return dataclasses.replace(course, limits=Limits(scenario_timeout_s=2, submission_timeout_s=60))


def parameter_with(course, extra_method: str) -> str:
    """The reference Parameter with one method replaced (appended last, so it wins:
    the class ends the file)."""
    text = (course.solutions / "parameter.py").read_text()
    assert text.rstrip().endswith("### END SOLUTION"), "parameter.py no longer ends with Parameter's last method"
    return text.rstrip("\n") + "\n" + extra_method


def outcomes(result):
    return {t.name: (t.outcome, t.reason) for t in result.tests}


def test_os_exit_mid_scenario_fails_only_that_scenario(quick_course, tmp_path):
    package = reference_package(quick_course, tmp_path, {"parameter.py": parameter_with(quick_course, EXITS_IN_DEEPCOPY)})
    result = grade_exercise(quick_course, quick_course.exercise("01"), package, GradeOptions(device="cpu"))
    seen = outcomes(result)
    assert seen["survives_deepcopy"] == (FAILED, "crash")
    assert "exited with code 3" in next(feedback_line(t) for t in result.tests if t.name == "survives_deepcopy")
    assert seen["survives_save_and_load"] == (PASSED, "")  # the worker was restarted


def test_infinite_loop_times_out_and_grading_goes_on(quick_course, tmp_path):
    package = reference_package(quick_course, tmp_path, {"parameter.py": parameter_with(quick_course, HANGS_IN_REPR)})
    result = grade_exercise(quick_course, quick_course.exercise("01"), package, GradeOptions(device="cpu"))
    seen = outcomes(result)
    assert seen["repr_says_parameter_containing"] == (FAILED, "timeout")
    assert "scenario exceeded 2 s" in next(feedback_line(t) for t in result.tests if t.reason == "timeout")
    assert seen["gradients_flow"] == (PASSED, "")


@pytest.mark.parametrize("source, shown", [
    ("import torch\nraise ValueError('no')\n", "ValueError"),
    ("def broken(:\n", "SyntaxError (parameter.py:1)"),
    ("import sys\nsys.exit(0)\n", "SystemExit"),
    ("import os\nos._exit(0)\n", "exited with code 0"),
])
def test_failing_import_is_recorded_for_every_test(quick_course, tmp_path, source, shown):
    package = reference_package(quick_course, tmp_path, {"parameter.py": source})
    result = grade_exercise(quick_course, quick_course.exercise("01"), package, GradeOptions(device="cpu"))
    assert result.score == 0
    assert result.tests and all(t.outcome == FAILED for t in result.tests)
    assert shown in (result.error or feedback_line(result.tests[0]))


def test_missing_student_file_is_recorded(quick_course, tmp_path):
    package = reference_package(quick_course, tmp_path, {})
    (package / "parameter.py").unlink()
    result = grade_exercise(quick_course, quick_course.exercise("01"), package, GradeOptions(device="cpu"))
    assert result.score == 0
    assert "needs mynn/parameter.py, which is missing" in result.error
    assert all(t.reason == "missing" for t in result.tests)
