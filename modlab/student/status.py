"""``modlab status``: every exercise, its last check, its last submission and its due date.

Runs nothing: it reads the check records (:meth:`.workspace.Workspace.read_checks`)
and the manifests of the submissions (:func:`.submit.read_submissions`).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from modlab.course import Exercise
from modlab.formats.terminal import table

from .workspace import Workspace

HEADER = ("ex", "title", "public checks", "last submitted (UTC)", "due (UTC)")


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
        workspace: the student's folder.
        submissions: the manifests of the student's submissions, by exercise id.

    Returns:
        One row per exercise of the course, in course order.
    """
    checks = workspace.read_checks()
    rows = []
    for exercise in workspace.course.exercises:
        last = checks.get(exercise.id)
        if last is None:
            shown_checks = "not run"
        else:
            total = last.get("passed", 0) + last.get("failed", 0)
            stale = last.get("sha256") != workspace.checksums(exercise)
            shown_checks = f"{last.get('passed', 0)}/{total} passed" + (" *" if stale else "")
        latest = max((m["submitted_at"] for m in submissions.get(exercise.id, [])), default=None)
        submitted = _shown_time(latest) if latest else "-"
        if latest and exercise.due and _parse_time(latest) > exercise.due:
            submitted += " (late)"
        due = exercise.due.strftime("%Y-%m-%d %H:%M") if exercise.due else "-"
        hinted = (last or {}).get("misconceptions") or {}
        rows.append(Row(exercise, shown_checks, submitted, due, tuple(hinted) if isinstance(hinted, dict) else ()))
    return rows


def status_table(rows: list[Row]) -> str:
    """The table of ``modlab status``, then what a ``*`` means and the hints of the last checks."""
    lines = [table(HEADER, [(r.exercise.id, r.exercise.title, r.checks, r.submitted, r.due) for r in rows])]
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
