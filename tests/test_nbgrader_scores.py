"""The score nbgrader records: the trusted score, fractions kept, capped at the points,
written into the one score cell, with hidden checks numbered and undescribed.

These call the pipeline's pieces directly on hand-made records and notebooks;
``tests/test_nbgrader_e2e.py`` runs real nbgrader end to end.
"""
import logging

import nbformat
import pytest

pytest.importorskip("nbgrader")

from modlab.instructor.nbgrader.notebook import SCORE_CELL_ID, assignment_notebook, score_cell  # noqa: E402
from modlab.instructor.nbgrader.pipeline import (GradingFailed, KeepOnlyScoreCell, WriteScore,  # noqa: E402
                                                 score_outputs)
from modlab.instructor.nbgrader.report import score_text  # noqa: E402
from modlab.records import ExerciseResult  # noqa: E402

from test_formats_outcomes import walk  # noqa: E402

WHO = {"nbgrader": {"student": "ada", "assignment": "03_walk"}}


def graded(course, score: float, exercise_id: str = "03"):
    exercise = course.exercise(exercise_id)
    return {"exercise": exercise, "result": ExerciseResult(exercise_id, score, float(exercise.points))}


def test_the_score_cells_value_keeps_four_decimals(course):
    [text, value] = score_outputs(graded(course, 20 / 3))
    assert value["output_type"] == "execute_result" and value["data"]["text/plain"] == "6.6667"
    points = course.exercise("03").points
    assert text["name"] == "stdout" and text["text"].startswith(f"Exercise 03: 6.67 / {points:g} points")
    assert score_outputs(graded(course, 2.5))[1]["data"]["text/plain"] == "2.5"


def test_the_score_is_never_above_the_exercises_points(course):
    points = course.exercise("03").points
    assert score_outputs(graded(course, points + 1e-7))[1]["data"]["text/plain"] == str(float(points))
    assert score_outputs(graded(course, 0.0))[1]["data"]["text/plain"] == "0.0"


def test_the_feedback_names_public_checks_and_numbers_hidden_ones(course):
    text = score_text(course.exercise("03"), walk())
    assert text.split("\n") == [
        "Exercise 03: 6.25 / 10 points, graded by the course's graders on your submitted files.",
        "  passed  own_members_first",
        "  FAILED tied_once",
        "    tied weights | once",
        "    where   root.named_parameters()",
        "    torch   ['a']",
        "    yours   ['a', 'b']",
        "    detail  extra `b`",
        "    hint    tied weights counted twice [tied-twice]",
        "  FAILED hidden check 1",
        "    raised  KeyError (walk.py:7): 'w'",
        "  skipped on_device[cuda]",
        "  passed  hidden check 2",
    ]


def test_an_exercise_that_could_not_be_graded_says_why_and_nothing_else(course):
    result = ExerciseResult("04", 0.0, 10.0, tests=walk().tests, error="mynn/calling.py is missing")
    assert score_text(course.exercise("04"), result) == (
        "Exercise 04: 0.00 / 10 points, graded by the course's graders on your submitted files.\n"
        "Nothing could be graded: mynn/calling.py is missing")


def test_the_score_cell_carries_the_exercises_points_and_is_locked(course):
    exercise = course.exercise("03")
    cell = score_cell(course, exercise)
    assert cell.metadata["nbgrader"] == {"grade": True, "solution": False, "task": False, "locked": True,
                                         "grade_id": SCORE_CELL_ID, "points": exercise.points, "schema_version": 3}
    assert cell.metadata["editable"] is False and cell.metadata["deletable"] is False
    assert cell.id == "ex03-score" and cell.source.startswith(f"# Score of exercise 03 ({exercise.points:g} points).")
    assert "mynn/walk.py" in cell.source and "modlab check 03" in cell.source


def test_the_assignment_notebook_is_the_lesson_and_one_score_cell(course):
    lesson = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# walk")])
    notebook = assignment_notebook(course, course.exercise("03"), lesson)
    assert [c.cell_type for c in notebook.cells] == ["markdown", "code"]
    assert notebook.cells[1].metadata["nbgrader"]["grade_id"] == SCORE_CELL_ID
    assert len(lesson.cells) == 1  # the lesson itself is left as it was


def notebook_with(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


def marked(grade_id: str, points: float = 15):
    cell = nbformat.v4.new_code_cell("print('10 passed')")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": grade_id, "points": points}
    return cell


def preprocessor(kind):
    step = kind()
    step.log = logging.getLogger("test")
    return step


def test_a_cell_the_student_marked_as_graded_is_unmarked(course):
    own, score = marked("mine", 100), score_cell(course, course.exercise("03"))
    step = preprocessor(KeepOnlyScoreCell)
    step.preprocess_cell(own, WHO, 0)
    step.preprocess_cell(score, WHO, 1)
    assert "nbgrader" not in own.metadata
    assert score.metadata["nbgrader"]["grade_id"] == SCORE_CELL_ID


def test_the_score_cell_gets_the_trusted_score_whatever_the_kernel_printed(course):
    score = score_cell(course, course.exercise("03"))
    score.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "15"})]
    notebook = notebook_with(nbformat.v4.new_code_cell("x = 1"), score)
    preprocessor(WriteScore).preprocess(notebook, {**WHO, "modlab": graded(course, 7.125)})
    assert [o["output_type"] for o in score.outputs] == ["stream", "execute_result"]
    assert score.outputs[1]["data"]["text/plain"] == "7.125"


@pytest.mark.parametrize("count", [0, 2])
def test_a_notebook_without_exactly_one_score_cell_is_not_scored(course, count):
    notebook = notebook_with(*[score_cell(course, course.exercise("03")) for _ in range(count)])
    with pytest.raises(GradingFailed, match=f"ada 03_walk: the notebook has {count} score cells, not 1"):
        preprocessor(WriteScore).preprocess(notebook, {**WHO, "modlab": graded(course, 1.0)})


def test_writing_a_score_needs_the_trusted_grade_first(course):
    with pytest.raises(GradingFailed, match=r"^WriteScore needs GradeSubmission earlier in "
                                            r"Autograde\.autograde_preprocessors$"):
        preprocessor(WriteScore).preprocess(notebook_with(score_cell(course, course.exercise("03"))), dict(WHO))


def test_the_feedback_is_printed_whole_with_a_final_newline(course):
    exercise = course.exercise("03")
    [text, _] = score_outputs({"exercise": exercise, "result": walk()})
    assert text["text"] == score_text(exercise, walk()) + "\n"


def test_the_score_cell_names_every_file_of_the_exercise(course):
    exercise = next(e for e in course.exercises if len(e.files) > 1)
    assert ", ".join(f"mynn/{name}" for name in exercise.files) in score_cell(course, exercise).source
    assert "mynn/layers.py, mynn/printing.py" in score_cell(course, course.exercise("08")).source


def test_what_the_pipeline_ignores_or_removes_is_logged(course, caplog):
    caplog.set_level(logging.INFO, logger="test")
    preprocessor(KeepOnlyScoreCell).preprocess_cell(marked("mine"), WHO, 4)
    noisy = nbformat.v4.new_code_cell("import sys; print('x', file=sys.stderr)")
    noisy.outputs = [nbformat.v4.new_output("stream", name="stderr", text="x\n")]
    quiet = nbformat.v4.new_markdown_cell("text")
    notebook = notebook_with(quiet, noisy, score_cell(course, course.exercise("03")))
    preprocessor(WriteScore).preprocess(notebook, {**WHO, "modlab": graded(course, 1.0)})
    assert caplog.messages == [
        "ada 03_walk: cell 4 carries nbgrader marks the assignment never gave it; removed",
        "ada 03_walk: cells [1] wrote to stderr or raised; ignored, the score comes from the graders"]


def test_a_clean_notebook_logs_nothing(course, caplog):
    caplog.set_level(logging.INFO, logger="test")
    notebook = notebook_with(nbformat.v4.new_code_cell("x = 1"), score_cell(course, course.exercise("03")))
    preprocessor(WriteScore).preprocess(notebook, {**WHO, "modlab": graded(course, 1.0)})
    assert caplog.messages == []
