"""The student side: ``modlab check`` and ``modlab status`` on the student's
own folder (the kit), where no reference code exists.

A check grades the student's package *as a whole* with the public scenarios,
through the same trusted runner as real grading. When a check fails inside an
earlier exercise's code, the runner's hint says which exercise to fix first.
Each check is recorded in ``.modlab/checks.json`` with the checksums of the
exercise's files, so ``status`` can tell a result that still holds from one
the student's edits have made stale.
"""
from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from modlab.cli import UsageError, find_package
from modlab.course import Course, Exercise
from modlab.formats.jsonfile import write_json

RECORDS = Path(".modlab") / "checks.json"
SUBMISSIONS = "submissions"


@dataclass(frozen=True)
class Workspace:
    """A student's folder: the package, the check records, the submissions."""

    course: Course
    root: Path

    @property
    def package_dir(self) -> Path:
        return self.root / self.course.package

    @property
    def submissions(self) -> Path:
        return self.root / SUBMISSIONS

    def files_of(self, exercise: Exercise) -> dict[str, Path]:
        """The exercise's files, ``{"mynn/walk.py": path}``: for a cumulative
        exercise (graded on the whole package), every file of the package."""
        names = exercise.files
        if exercise.cumulative:
            names = sorted({*names, *(p.name for p in self.package_dir.glob("*.py"))})
        return {f"{self.course.package}/{name}": self.package_dir / name for name in names}

    def checksums(self, exercise: Exercise) -> dict[str, str]:
        return {name: sha256(path) for name, path in self.files_of(exercise).items() if path.is_file()}


def open_workspace(course: Course, path: Path | None = None) -> Workspace:
    """The folder holding the student's package: ``path``, else the current
    folder when it holds one, else the folder of ``course.yaml``.

    Raises:
        UsageError: no package folder there.
    """
    if path is None:
        path = Path.cwd() if (Path.cwd() / course.package).is_dir() else course.root
    return Workspace(course, find_package(Path(path), course.package).parent.resolve())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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


def platform_note() -> str:
    """One line on what this platform lacks for checks, or '' where nothing."""
    from modlab.runner.process import start_method

    lacks = []
    method = start_method()
    if method != "fork":
        lacks.append(f"worker processes are started with '{method}', so each check starts a few seconds slower")
    if not sys.platform.startswith("linux"):
        lacks.append(f"the Linux-only limits on memory and processes are not applied on {sys.platform}")
    return "note: " + "; ".join(lacks) if lacks else ""


def check(workspace: Workspace, exercise: Exercise, device: str = "auto"):
    """Run the exercise's public checks on the whole package; record the result.

    Returns:
        The runner's :class:`~modlab.runner.records.ExerciseResult`.

    Raises:
        UsageError: a missing file, a SyntaxError, or no public checks for
            this exercise.
    """
    from modlab.grading.loader import grader_file
    from modlab.runner.grade import WHOLE, GradeOptions, grade_exercise

    require_files(workspace, exercise)
    require_valid_syntax(workspace)
    if not grader_file(workspace.course, exercise).is_file():
        raise UsageError(f"exercise {exercise.id} has no public checks in this course folder "
                         f"(graders/test_{exercise.name}.py is missing)")
    result = grade_exercise(workspace.course, exercise, workspace.package_dir,
                            GradeOptions(mode=WHOLE, device=device, public_only=True))
    if not result.tests:
        raise UsageError(f"exercise {exercise.id} has no public checks")
    _record(workspace, exercise, result)
    return result


def _record(workspace: Workspace, exercise: Exercise, result) -> None:
    records = read_records(workspace)
    shown = {m["id"]: m["text"] for t in result.tests if t.failure for m in t.failure.misconceptions}
    records[exercise.id] = {
        "passed": result.passed, "failed": result.failed, "skipped": result.skipped,
        "checked_at": utc_now().isoformat().replace("+00:00", "Z"),
        "sha256": workspace.checksums(exercise),
        "misconceptions": shown,
    }
    try:
        write_json(workspace.root / RECORDS, records)
    except OSError:
        pass  # a read-only folder still gets its check, just no record for status


def read_records(workspace: Workspace) -> dict:
    """The last check of each exercise, ``{"03": {...}}``; empty if none or unreadable."""
    try:
        records = json.loads((workspace.root / RECORDS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return records if isinstance(records, dict) else {}


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def check_report(exercise: Exercise, result) -> str:
    """Per check: passed, failed (with the feedback) or skipped; then a summary."""
    from modlab.formats.feedback import INDENT, failure_block
    from modlab.runner.records import FAILED, PASSED

    lines = []
    if result.error:
        lines.append(f"error: {result.error}")
    for test in result.tests:
        if test.outcome == PASSED:
            lines.append(f"  passed   {test.name}")
        elif test.outcome == FAILED:
            block = failure_block(test)
            lines += [f"  {block[0]}"] + [INDENT * 2 + line for line in block[1:]]
        else:
            lines.append(f"  skipped  {test.name}: {test.feedback}")
    counted = result.passed + result.failed
    verdict = "all passed" if result.failed == 0 else f"{result.failed} failed"
    lines.append(f"exercise {exercise.id}: {result.passed} of {counted} public checks passed ({verdict}) "
                 f"in {result.seconds:.1f} s")
    return "\n".join(lines)


@dataclass(frozen=True)
class Row:
    """One exercise in ``modlab status``."""

    exercise: Exercise
    checks: str
    submitted: str
    due: str
    misconceptions: tuple[str, ...] = ()  # what the last check's hints were about, by id


def status_rows(workspace: Workspace, submissions: dict[str, list[dict]]) -> list[Row]:
    """What ``modlab status`` shows for each exercise.

    Args:
        submissions: the manifests of the student's submissions, by exercise id.
    """
    records = read_records(workspace)
    rows = []
    for exercise in workspace.course.exercises:
        record = records.get(exercise.id)
        if record is None:
            checks = "not run"
        else:
            total = record.get("passed", 0) + record.get("failed", 0)
            stale = record.get("sha256") != workspace.checksums(exercise)
            checks = f"{record.get('passed', 0)}/{total} passed" + (" *" if stale else "")
        latest = max((m["submitted_at"] for m in submissions.get(exercise.id, [])), default=None)
        submitted = _shown_time(latest) if latest else "-"
        if latest and exercise.due and _parse_time(latest) > exercise.due:
            submitted += " (late)"
        due = exercise.due.strftime("%Y-%m-%d %H:%M") if exercise.due else "-"
        shown = (record or {}).get("misconceptions") or {}
        rows.append(Row(exercise, checks, submitted, due, tuple(shown) if isinstance(shown, dict) else ()))
    return rows


def status_table(rows: list[Row]) -> str:
    header = ("ex", "title", "public checks", "last submitted (UTC)", "due (UTC)")
    cells = [header] + [(r.exercise.id, r.exercise.title, r.checks, r.submitted, r.due) for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in cells]
    if any(r.checks.endswith("*") for r in rows):
        lines.append("* your files changed since that check: run `modlab check NN` again")
    hinted = [r for r in rows if r.misconceptions]
    if hinted:
        lines.append("hints from your last checks (`modlab check NN` explains them):")
        lines += [f"  {r.exercise.id}  {', '.join(r.misconceptions)}" for r in hinted]
    return "\n".join(lines)


def _parse_time(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _shown_time(text: str) -> str:
    return _parse_time(text).strftime("%Y-%m-%d %H:%M:%S")
