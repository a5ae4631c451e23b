"""The assignment notebook: the lesson notebook plus one locked, graded cell.

nbgrader records a score for each graded cell of a notebook. An exercise has
exactly one: its score is the trusted graders' score of the exercise, which
:mod:`modlab.instructor.nbgrader.pipeline` writes into the cell's output at autograde
time. The cell's own code does nothing, so what the student's kernel does
cannot decide a score.

One cell per exercise, not one per scenario group: the engine renormalises
weights when CUDA cases are skipped, so only the exercise total has a maximum
that is fixed before grading.
"""
from __future__ import annotations

import copy

import nbformat
from nbformat.notebooknode import NotebookNode

from modlab.course import Course, Exercise

SCORE_CELL_ID = "modlab_score"


def assignment_notebook(course: Course, exercise: Exercise, lesson: NotebookNode) -> NotebookNode:
    """The notebook of the exercise's nbgrader assignment.

    Args:
        course: the course.
        exercise: the exercise the assignment is made of.
        lesson: its lesson notebook.

    Returns:
        A copy of ``lesson`` with the exercise's score cell appended.
    """
    notebook = nbformat.from_dict(copy.deepcopy(lesson))
    notebook.cells.append(score_cell(course, exercise))
    return notebook


def score_cell(course: Course, exercise: Exercise) -> NotebookNode:
    """The locked, graded cell that carries the exercise's points."""
    files = ", ".join(f"{course.package}/{name}" for name in exercise.files)
    source = (
        f"# Score of exercise {exercise.id} ({exercise.points:g} points).\n"
        f"# Your instructor's autograding runs the course's graders on {files}\n"
        f"# outside this notebook and writes the score here; running this cell does nothing.\n"
        f"# Check your work now with: modlab check {exercise.id}"
    )
    cell = nbformat.v4.new_code_cell(source, id=f"ex{exercise.id}-score")
    cell.metadata["editable"] = False
    cell.metadata["deletable"] = False
    cell.metadata["nbgrader"] = {
        "grade": True, "solution": False, "task": False, "locked": True,
        "grade_id": SCORE_CELL_ID, "points": exercise.points, "schema_version": 3,
    }
    return cell

