"""``modlab gradescope run``: grade what a student uploaded to Gradescope, and write
the ``results.json`` Gradescope reads back.

Gradescope's tree, under a root that is ``/autograder`` there and any folder
elsewhere (the project's tests, an instructor trying a zip)::

    ROOT/source/                 the autograder zip, unpacked: course.yaml, graders/, solutions/, modlab/
    ROOT/submission/             what the student uploaded (see :mod:`.upload`)
    ROOT/results/results.json    what this writes

Grading is ``modlab grade``'s, through the same engine entry point and the same
sandboxed workers, so the score is the one ``modlab grade`` gives the same files.
A submission that hangs, crashes, exits or tampers loses its points and still
gets its results file; an upload with nothing to grade gets one line saying
what was expected, and 0.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from modlab.course import Course, Exercise
# The one import of the engine: the entry point `modlab grade` itself uses.
from modlab.engine import GradeOptions, grade_submission
from modlab.formats.gradescope import Visibility, gradescope_results, message_results
from modlab.formats.jsonfile import write_json
from modlab.formats.table import score_table
from modlab.records import ExerciseResult, SubmissionResult

from .upload import UnusableUpload, stage_upload

STUDENT = "submission"  # Gradescope keeps who submitted; the records need a name


@dataclass(frozen=True)
class Tree:
    """Gradescope's ``/autograder`` tree, under ``root``."""

    root: Path

    @property
    def submission(self) -> Path:
        return self.root / "submission"

    @property
    def results(self) -> Path:
        return self.root / "results" / "results.json"

    @property
    def metadata(self) -> Path:
        """Gradescope's record of the submission and of earlier ones, with their results."""
        return self.root / "submission_metadata.json"


def run_autograder(course: Course, root: Path, exercises: list[Exercise], visibility: Visibility,
                   log: Callable[[str], None] = print) -> dict:
    """Grade ``ROOT/submission`` and write ``ROOT/results/results.json``.

    Before anything is graded the file already says that grading did not finish,
    and it says so after each exercise with the points so far, so that a run
    Gradescope stops at its own time limit still leaves a result that says why.
    A fault of the grading itself (a grader's bug, never the submission's) removes
    it and raises: Gradescope then reports that the autograder failed, which the
    instructor sees and can regrade, instead of a silent 0.

    Args:
        course: the zip's course.
        root: the tree's root (``/autograder`` on Gradescope).
        exercises: the exercises graded, in course order.
        visibility: when students see public and hidden checks.
        log: where the instructor's log goes (the autograder's stdout, which
            students never see): where the files came from, the score table.

    Returns:
        The data written.

    Example::

        run_autograder(course, Path("/autograder"), [course.exercise("10")], Visibility(hidden="after_due_date"))
    """
    tree = Tree(Path(root))
    try:
        _keep_private(tree.metadata)
        data = _grade(course, tree, exercises, visibility, log)
    except BaseException:
        tree.results.unlink(missing_ok=True)
        raise
    return _write(tree, data)


def _grade(course: Course, tree: Tree, exercises: list[Exercise], visibility: Visibility,
           log: Callable[[str], None]) -> dict:
    """The upload's results: graded (the results so far written after each exercise), or refused in one line."""
    partial = SubmissionResult(STUDENT)

    def graded(exercise: ExerciseResult) -> None:
        partial.exercises.append(exercise)
        _write_unfinished(tree, partial, exercises, visibility)

    _write_unfinished(tree, partial, exercises, visibility)
    with tempfile.TemporaryDirectory(prefix="modlab-upload-") as staging:
        try:
            staged = stage_upload(tree.submission, course, exercises, Path(staging))
        except UnusableUpload as refused:
            log(f"not graded: {refused}")
            return message_results(str(refused))
        log(f"graded the files of {staged.found}: {', '.join(sorted(p.name for p in staged.package.iterdir()))}")
        result = grade_submission(course, staged.package, exercises, GradeOptions(), student=STUDENT, progress=graded)
    log(score_table(course, result))
    return gradescope_results(result, visibility)


def _write_unfinished(tree: Tree, partial: SubmissionResult, exercises: list[Exercise],
                      visibility: Visibility) -> None:
    """The results so far, saying which exercises grading has not reached."""
    done = {e.id for e in partial.exercises}
    left = ", ".join(e.id for e in exercises if e.id not in done)
    data = gradescope_results(partial, visibility)
    data["output"] = (f"grading did not finish (the autograder's time limit?): exercises {left} not graded\n"
                      + data["output"])
    _write(tree, data)


def _keep_private(path: Path) -> None:
    """Make ``path`` readable by the grading process's user alone. The metadata and the results
    so far hold hidden checks' feedback: a submission's code, run as a user of its own, must not
    read it and show it through a public check before the due date."""
    if path.exists():
        path.chmod(0o600)


def _write(tree: Tree, data: dict) -> dict:
    write_json(tree.results, data)
    _keep_private(tree.results)
    return data
