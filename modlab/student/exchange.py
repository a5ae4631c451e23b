"""Submitting through nbgrader's own exchange, where ``course.yaml`` names one.

nbgrader is imported only here, and only when the course has an exchange: the
kit's ``modlab submit`` runs without it otherwise.
"""
from __future__ import annotations

import io
import logging
import tempfile
import zipfile
from pathlib import Path

from modlab.course import Exercise
from modlab.errors import UsageError

from .workspace import Workspace


def submit_to_exchange(workspace: Workspace, exercise: Exercise, student: str, archive: bytes) -> None:
    """Submit through nbgrader's own exchange, as ``nbgrader submit`` would.

    The assignment is the exercise's ``NN_slug``; it holds the exercise's
    files, the manifest, and the assignment's notebook as nbgrader released
    it: autograde works on that notebook (its score cell), and the student's
    code is in the package files, not in the notebook.
    """
    try:
        from nbgrader.auth import Authenticator
        from nbgrader.coursedir import CourseDirectory
        from nbgrader.exchange import ExchangeError
        from nbgrader.exchange.default.submit import ExchangeSubmit
    except ImportError:
        raise UsageError("course.yaml names an nbgrader exchange, but nbgrader is not installed here: "
                         "python -m pip install nbgrader") from None
    root = Path(workspace.course.root, workspace.course.exchange)
    quiet = logging.getLogger("modlab.exchange")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    with tempfile.TemporaryDirectory(prefix="modlab-submit-") as staging:
        folder = Path(staging) / exercise.name
        with zipfile.ZipFile(io.BytesIO(archive)) as unpacked:
            unpacked.extractall(folder)
        for notebook in (root / workspace.course.id / "outbound" / exercise.name).glob("*.ipynb"):
            (folder / notebook.name).write_bytes(notebook.read_bytes())
        coursedir = CourseDirectory(course_id=workspace.course.id, assignment_id=exercise.name,
                                    student_id=student, log=quiet)
        try:
            ExchangeSubmit(coursedir=coursedir, authenticator=Authenticator(log=quiet), root=str(root),
                           assignment_dir=staging, log=quiet).start()
        except (ExchangeError, OSError) as error:
            raise UsageError(f"the nbgrader exchange {root} refused the submission: {error}") from None
