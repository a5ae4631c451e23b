"""The student's folder: their package, the records of their checks, their submissions.

There is no reference code in a student's folder (the kit): everything here
works on the student's own package, found by :func:`modlab.folders.package_folder`.
A missing or renamed file and a SyntaxError are refused in one line
(:class:`~modlab.errors.UsageError`) before any of the student's code runs.
"""
from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from modlab.course import Course, Exercise
from modlab.errors import UsageError
from modlab.folders import find_package_folder, package_folder
from modlab.formats.jsonfile import write_json

SUBMISSIONS = "submissions"
CHECKS = Path(".modlab") / "checks.json"


@dataclass(frozen=True)
class Workspace:
    """A student's folder: the package, the check records, the submissions."""

    course: Course
    package_dir: Path

    @property
    def root(self) -> Path:
        """The folder holding the package: where ``submissions/`` and the check records go."""
        return self.package_dir.parent if self.package_dir.name == self.course.package else self.package_dir

    @property
    def submissions(self) -> Path:
        return self.root / SUBMISSIONS

    def files_of(self, exercise: Exercise) -> dict[str, Path]:
        """The exercise's files, ``{"mynn/losses.py": path}``: for a cumulative
        exercise (graded on the whole package), every file of the package."""
        names = self.course.files_read(exercise, (p.name for p in self.package_dir.glob("*.py")))
        return {f"{self.course.package}/{name}": self.package_dir / name for name in names}

    def checksums(self, exercise: Exercise) -> dict[str, str]:
        return {name: sha256(path) for name, path in self.files_of(exercise).items() if path.is_file()}

    def read_checks(self) -> dict:
        """The last check of each exercise, ``{"03": {...}}``; empty if none or unreadable."""
        try:
            checks = json.loads((self.root / CHECKS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return checks if isinstance(checks, dict) else {}

    def write_checks(self, checks: dict) -> None:
        """Keep the checks for ``modlab status``; a read-only folder keeps none."""
        try:
            write_json(self.root / CHECKS, checks)
        except OSError:
            pass  # the check itself is shown all the same


def open_workspace(course: Course, path: Path | None = None) -> Workspace:
    """The student's folder: ``path``, else the current folder when it holds the
    package (a lesson notebook's check cell runs there), else the folder of ``course.yaml``.

    Raises:
        UsageError: no package folder there.

    Example::

        workspace = open_workspace(load_course("kit/course.yaml"), Path("kit"))
    """
    if path is None:
        path = Path.cwd() if find_package_folder(Path.cwd(), course) else course.root
    return Workspace(course, package_folder(Path(path), course).resolve())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def require_files(workspace: Workspace, exercise: Exercise) -> None:
    """Raise a one-line error for a missing (or renamed) file of the exercise."""
    known = {name for e in workspace.course.exercises for name in e.files}
    strays = sorted(p.name for p in workspace.package_dir.glob("*.py") if p.name not in known)
    for shown, path in workspace.files_of(exercise).items():
        if not path.is_file():
            close = difflib.get_close_matches(path.name, strays, n=1)
            hint = f"; found {close[0]}: rename it back" if close else ""
            written_in = ", ".join(f"{workspace.course.package}/{name}" for name in exercise.files)
            raise UsageError(f"{shown} is missing: exercise {exercise.id} is written in {written_in}{hint}")


def require_valid_syntax(workspace: Workspace, paths: list[Path] | None = None) -> None:
    """Raise ``file:line: SyntaxError: ...`` for the first file (default: any
    file of the package) Python cannot parse. Parsing runs no student code."""
    package = workspace.course.package
    for path in paths if paths is not None else sorted(workspace.package_dir.glob("*.py")):
        shown = f"{package}/{path.name}"
        try:
            compile(path.read_bytes(), shown, "exec", dont_inherit=True)
        except SyntaxError as error:
            raise UsageError(f"{shown}:{error.lineno}: {type(error).__name__}: {error.msg}") from None
        except ValueError as error:  # e.g. a NUL byte: not a Python source at all
            raise UsageError(f"{shown}: not a Python source file: {error}") from None
