"""``modlab nbgrader grade``: nbgrader's own autograde, one submission at a time.

Running ``nbgrader autograde`` per student, in this process, gives a progress
line per submission with its score, keeps the graders' torch.nn oracle warm
across submissions, and turns every submission nbgrader could not grade into
a counted failure instead of a missing row that exports as 0.
"""
from __future__ import annotations

import glob
import os
import time
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import AutogradeApp
from nbgrader.coursedir import CourseDirectory


@dataclass
class Outcome:
    """How autograding one submission went."""

    student: str
    seconds: float
    score: float | None = None  # None: not graded
    max_score: float = 0.0
    penalty: float = 0.0
    problem: str = ""


def submitted_students(root: Path, assignment: str) -> list[str]:
    """Students with a collected submission of the assignment, whatever it holds."""
    coursedir = CourseDirectory(root=str(root))
    pattern = coursedir.format_path(coursedir.submitted_directory, "*", assignment)
    return sorted(Path(path).parent.name for path in glob.glob(pattern))


def autograde(root: Path, assignment: str, students: list[str], extra_args: list[str],
              progress=None) -> list[Outcome]:
    """Autograde each student's submission with nbgrader.

    Args:
        root: the course directory, where nbgrader finds ``nbgrader_config.py``.
        assignment: the nbgrader assignment (``10_losses``).
        students: whose submissions to grade.
        extra_args: more nbgrader arguments (``--force``, ``--no-execute``).
        progress: called with each :class:`Outcome` as it is known.
    """
    outcomes = []
    for student in students:
        outcome = _autograde_one(root, assignment, student, extra_args)
        outcomes.append(outcome)
        if progress:
            progress(outcome)
    return outcomes


def _autograde_one(root: Path, assignment: str, student: str, extra_args: list[str]) -> Outcome:
    started = time.monotonic()
    outcome = Outcome(student, 0.0)
    app = AutogradeApp()
    previous = os.getcwd()
    os.chdir(root)  # nbgrader reads nbgrader_config.py from the current folder
    try:
        app.initialize([assignment, f"--student={student}", *extra_args])
        app.start()
    except SystemExit as stop:  # nbgrader exits 1 when a submission failed
        if stop.code not in (0, None):
            outcome.problem = "nbgrader could not autograde it (its log above says why)"
    finally:
        os.chdir(previous)
    outcome.seconds = time.monotonic() - started
    if not outcome.problem:
        _read_score(app.coursedir, assignment, outcome)
    return outcome


def _read_score(coursedir: CourseDirectory, assignment: str, outcome: Outcome) -> None:
    with Gradebook(coursedir.db_url, coursedir.course_id) as gradebook:
        try:
            submission = gradebook.find_submission(assignment, outcome.student)
        except MissingEntry:
            outcome.problem = "no submission in the gradebook"
            return
        if any(grade.auto_score is None for notebook in submission.notebooks for grade in notebook.grades):
            outcome.problem = "some graded cell has no score"
            return
        outcome.score, outcome.max_score = submission.score, submission.max_score
        outcome.penalty = submission.late_submission_penalty or 0.0
