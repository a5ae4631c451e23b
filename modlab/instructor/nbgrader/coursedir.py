"""``modlab nbgrader init``: an nbgrader course directory written from ``course.yaml``.

::

    COURSE_DIR/
      nbgrader_config.py          course id, gradebook, exchange, the trusted pipeline
      gradebook.db                one assignment per exercise, with its due date
      source/10_losses/
        10_losses.ipynb        the lesson notebook + one locked, graded score cell
        mynn/                     the whole package as stubs; the exercise's files are graded

``source/`` holds only what students may see: stubs, never solutions, and no
grader at all; the graders stay in the course repository, where the autograde
pipeline reads them.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from modlab.course import Course, Exercise
from modlab.instructor.build import stub_sources
from modlab.instructor.notebooks import build_notebook

from .notebook import assignment_notebook

CONFIG_NAME = "nbgrader_config.py"
PENALTIES = ("none", "zero")

CONFIG = '''\
"""nbgrader configuration of the course {course_name}, written by `modlab nbgrader init`
from {course_file}.

Scores come from modlab's graders, run on the submitted .py files outside the
student's kernel; see docs/nbgrader.md in modlab's repository.
"""
import os
import warnings

import zmq
from sqlalchemy.exc import SAWarning

from modlab.instructor.nbgrader import pipeline

# nbgrader 0.9.6's autograde reads a new submission's notebooks while SQLAlchemy
# autoflushes it half-made, which warns ("Object of type <SubmittedAssignment> not
# in session, add operation ... will not proceed"); nbgrader adds it to the session
# right after, so no grade is lost. Only that warning is hidden.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\\w+> not in session", category=SAWarning)

c = get_config()  # noqa: F821 (nbgrader provides it)
here = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = {course_id}
c.CourseDirectory.root = here
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(here, "gradebook.db")
c.Exchange.root = {exchange}
# Never copied from source/ into releases, submissions or feedback.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "test_*.py", "graders"]

# The trusted pipeline: graders score the submitted files, not the notebook's outputs.
c.GradeSubmission.course_file = {course_path}
c.GradeSubmission.device = "auto"
c.Autograde.sanitize_preprocessors = pipeline.SANITIZE
c.Autograde.autograde_preprocessors = pipeline.AUTOGRADE
# Students' own files are graded as submitted, never replaced by the source stubs.
c.Autograde.exclude_overwriting = {{
{exclude}}}
# A deleted score cell is put back, so every submission gets its score.
c.OverwriteCells.add_missing_cells = True
c.GenerateFeedback.preprocessors = pipeline.FEEDBACK

# Running the notebook only shows its outputs; a cell past this many seconds is interrupted.
c.Execute.timeout = {cell_timeout}
# The kernel's connection is encrypted (CurveZMQ, where its kernelspec supports it,
# as ipykernel's does), so it does not warn that it runs over plain TCP.
if zmq.has("curve"):
    c.KernelManager.transport_encryption = "auto"
c.Execute.startup_timeout = 60
# Late outputs cannot change a score here, so they need not fail the submission.
c.Execute.raise_on_iopub_timeout = False

# Submissions after an assignment's due date (from course.yaml): "none" or "zero".
c.LateSubmissionPlugin.penalty_method = {late_penalty}
'''


@dataclass(frozen=True)
class Settings:
    """What ``course.yaml`` does not say about grading with nbgrader."""

    exchange: str
    late_penalty: str = "none"
    cell_timeout: int = 60


def write_course_dir(course: Course, folder: Path, settings: Settings) -> list[Path]:
    """Write (or rewrite) the course directory; the gradebook's grades are kept.

    Returns:
        The files written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    stubs = stub_sources(course)
    written = [write_config(course, folder, settings, stubs)]
    for exercise in course.exercises:
        written += write_assignment(course, exercise, folder / "source" / exercise.name, stubs)
    record_assignments(course, folder)
    return written


def write_config(course: Course, folder: Path, settings: Settings, stubs: dict[str, str]) -> Path:
    course_file = str(course.root / "course.yaml")
    files = {e.name: [f"{course.package}/{name}" for name in course.files_read(e, stubs)] for e in course.exercises}
    exclude = "".join(f"    {json.dumps(name)}: {json.dumps(paths)},\n" for name, paths in files.items())
    path = folder / CONFIG_NAME
    path.write_text(CONFIG.format(
        course_name=course.id, course_file=course_file, course_id=json.dumps(course.id),
        course_path=json.dumps(course_file), exchange=json.dumps(settings.exchange), exclude=exclude,
        cell_timeout=settings.cell_timeout, late_penalty=json.dumps(settings.late_penalty),
    ), encoding="utf-8")
    return path


def write_assignment(course: Course, exercise: Exercise, folder: Path, stubs: dict[str, str]) -> list[Path]:
    """The exercise's notebook and the whole package as stubs: the lesson's cells
    run all of it, and its first cell brings in the student's own files of
    earlier exercises (:func:`modlab.student.lesson.bring_earlier_work`). Only
    the exercise's own files are graded (``Autograde.exclude_overwriting``)."""
    package = folder / course.package
    package.mkdir(parents=True, exist_ok=True)
    notebook = folder / f"{exercise.name}.ipynb"
    nbformat.write(assignment_notebook(course, exercise, build_notebook(course, exercise)), notebook)
    written = [notebook]
    for name in sorted(stubs):
        (package / name).write_text(stubs[name], encoding="utf-8")
        written.append(package / name)
    return written


def record_assignments(course: Course, folder: Path) -> None:
    """Put every exercise in the gradebook with its due date, so late penalties apply."""
    from nbgrader.api import Gradebook

    tools_on_path()
    with Gradebook(f"sqlite:///{folder.resolve() / 'gradebook.db'}", course.id) as gradebook:
        for exercise in course.exercises:
            gradebook.update_or_create_assignment(exercise.name, duedate=exercise.due)


def tools_on_path() -> None:
    """Put this interpreter's scripts on PATH: nbgrader runs ``alembic`` to create a gradebook."""
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
