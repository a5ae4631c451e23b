"""The trusted autograde pipeline, plugged into ``Autograde.autograde_preprocessors``.

nbgrader scores a graded cell from what the student's kernel printed, and the
student controls that kernel: replacing ``pytest.main``, faking
``sys.modules['pytest']`` or dropping a ``pytest.py`` beside the notebook all
change what it prints. Here the score never comes from the kernel:

0. :class:`KeepOnlyScoreCell` (sanitizing) unmarks any cell the student
   marked as graded, so the score cell is the only one.
1. :class:`GradeSubmission` grades the submitted ``.py`` files with modlab's
   engine (graft mode, as ``modlab grade``) before the kernel starts, reading
   them from ``submitted/`` (in ``mynn/`` or beside the notebook: :mod:`modlab.folders`),
   where the notebook cannot reach them first.
2. :class:`ExecuteNotebook` runs the notebook for the instructor to read, as
   nbgrader's ``Execute`` does, except that a kernel that dies or hangs is a
   line in the log instead of a failed submission.
3. :class:`WriteScore` replaces the score cell's outputs with the trusted
   score, which nbgrader's ``SaveAutoGrades`` then records.
"""
from __future__ import annotations

import functools
import time
from pathlib import Path

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbformat import v4
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearOutput,
                                    DeduplicateIds, Execute, GetGrades, IgnorePattern, LimitOutput,
                                    NbGraderPreprocessor, OverwriteCells, OverwriteKernelspec, SaveAutoGrades)
from traitlets import Enum, List, Unicode

from modlab.course import Course, load_course
from modlab.engine import GradeOptions, grade_exercise
from modlab.folders import exercise_folder

from .notebook import SCORE_CELL_ID
from .report import score_text


class GradingFailed(RuntimeError):
    """modlab could not grade a submission; nbgrader reports the submission as failed."""


class KeepOnlyScoreCell(NbGraderPreprocessor):
    """Sanitizing: a cell the student marked as graded becomes a plain cell.

    The score cell is the notebook's only nbgrader cell. nbgrader itself
    would fail the whole submission on a graded cell it does not know.
    """

    def preprocess_cell(self, cell, resources, index):
        marks = cell.metadata.get("nbgrader")
        if marks is not None and marks.get("grade_id") != SCORE_CELL_ID:
            self.log.warning("%s %s: cell %d carries nbgrader marks the assignment never gave it; removed",
                             *_who(resources), index)
            del cell.metadata["nbgrader"]
        return cell, resources


class GradeSubmission(NbGraderPreprocessor):
    """Grade the submitted student files of this notebook's exercise, outside its kernel."""

    course_file = Unicode(help="the course.yaml whose graders score this course").tag(config=True)
    device = Enum(("auto", "cpu", "cuda"), "auto", help="as `modlab grade --device`").tag(config=True)

    def preprocess(self, nb, resources):
        student, assignment = _who(resources)
        started = time.monotonic()
        try:
            course = _course(self.course_file)
            exercise = next((e for e in course.exercises if e.name == assignment), None)
            if exercise is None:
                raise GradingFailed(f"{assignment!r} is no exercise of {course.root / 'course.yaml'}")
            coursedir = CourseDirectory(config=self.config)
            submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, assignment))
            result = grade_exercise(course, exercise, exercise_folder(submitted, course, exercise),
                                    GradeOptions(device=self.device, exercises=(exercise.id,)))
        except Exception as problem:
            self.log.error("modlab could not grade %s of %s, so it has no score: %s: %s",
                           assignment, student, type(problem).__name__, problem)
            _mark_ungraded(resources)
            raise GradingFailed(f"modlab could not grade {assignment} of {student}") from problem
        self.log.info("%s %s: trusted score %g / %g (%d passed, %d failed, %d skipped) in %.1f s",
                      student, assignment, round(result.score, 4), result.max_score,
                      result.passed, result.failed, result.skipped, time.monotonic() - started)
        if result.error:
            self.log.warning("%s %s: scored 0 because %s", student, assignment, result.error)
        resources["modlab"] = {"exercise": exercise, "result": result}
        return nb, resources


class ExecuteNotebook(Execute):
    """nbgrader's ``Execute``, for a kernel the score does not depend on.

    A kernel that dies (``os._exit``) or a cell that hangs would fail the
    whole submission in nbgrader; here the notebook keeps the outputs it got
    so far, the log says what happened, and grading goes on.
    """

    def preprocess(self, nb, resources, km=None):
        try:
            return super().preprocess(nb, resources, km=km)
        except (DeadKernelError, CellTimeoutError) as problem:
            self.log.warning("%s %s: the notebook's kernel stopped (%s: %s); its outputs end there. "
                             "The score does not depend on them.", *_who(resources),
                             type(problem).__name__, str(problem).splitlines()[0] if str(problem) else "")
            return nb, resources

    def on_cell_executed(self, **kwargs):
        super().on_cell_executed(**kwargs)
        reply = kwargs["execute_reply"]["content"]
        if reply.get("ename") == self.error_on_timeout.get("ename"):
            self.log.warning("%s %s: cell %d ran past Execute.timeout (%s s) and was interrupted",
                             *_who(self.resources), kwargs["cell_index"], self.timeout)


class WriteScore(NbGraderPreprocessor):
    """Make the score cell's outputs say the trusted score, and nothing else."""

    def preprocess(self, nb, resources):
        graded = resources.get("modlab")
        if graded is None:
            raise GradingFailed("WriteScore needs GradeSubmission earlier in Autograde.autograde_preprocessors")
        noisy = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and utils.has_failed(cell)]
        if noisy:
            self.log.info("%s %s: cells %s wrote to stderr or raised; ignored, the score comes from the graders",
                          *_who(resources), noisy)
        score_cells = [cell for cell in nb.cells if utils.is_grade(cell)]
        for cell in score_cells:
            cell.outputs = score_outputs(graded)
        if len(score_cells) != 1:
            raise GradingFailed(f"{' '.join(_who(resources))}: the notebook has {len(score_cells)} score cells, not 1")
        return nb, resources


class ClearHiddenTestRegions(ClearHiddenTests):
    """nbgrader's ``ClearHiddenTests``, configurable as nbconvert configures every preprocessor.

    nbconvert's exporters set ``display_data_priority`` for all preprocessors;
    nbgrader's base preprocessor redeclares it as not configurable, so
    ``ClearHiddenTests`` warned about it in every ``generate_feedback``
    (nbgrader's ``GetGrades`` declares it configurable, as here).
    """

    display_data_priority = List(NbGraderPreprocessor.class_traits()["display_data_priority"].default()).tag(config=True)


def score_outputs(graded: dict) -> list:
    """The feedback as printed text, then the score as the cell's value (nbgrader's partial credit)."""
    exercise, result = graded["exercise"], graded["result"]
    score = min(round(result.score, 4), float(exercise.points))
    return [v4.new_output("stream", name="stdout", text=score_text(exercise, result) + "\n"),
            v4.new_output("execute_result", data={"text/plain": repr(score)}, execution_count=None)]


def _mark_ungraded(resources) -> None:
    """No score, and a flag for the instructor, rather than an earlier or a zero score."""
    info = resources["nbgrader"]
    with Gradebook(info["db_url"]) as gradebook:
        notebook = gradebook.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
        for grade in notebook.grades:
            grade.auto_score, grade.needs_manual_grade = None, True
        gradebook.db.commit()


def _who(resources) -> tuple[str, str]:
    return resources["nbgrader"]["student"], resources["nbgrader"]["assignment"]


@functools.lru_cache(maxsize=None)
def _course(path: str) -> Course:
    return load_course(path or None)


# Autograde.sanitize_preprocessors: nbgrader's own list, foreign nbgrader marks removed first.
SANITIZE = [ClearOutput, KeepOnlyScoreCell, DeduplicateIds, OverwriteKernelspec, OverwriteCells, CheckCellMetadata]

# Autograde.autograde_preprocessors: nbgrader's own list with Execute replaced
# and the trusted grade in front.
AUTOGRADE = [GradeSubmission, ExecuteNotebook, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
             WriteScore, SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]

# GenerateFeedback.preprocessors: nbgrader's default shows hidden test regions.
FEEDBACK = [GetGrades, ClearHiddenTestRegions, CSSHTMLHeaderPreprocessor]
