"""The score tables: one submission's (``modlab grade``) and a class's summary (``modlab grade CLASS``)."""
from __future__ import annotations

import statistics

from modlab.course import Course
from modlab.records import FAILED, GRADING_FAILED, SubmissionResult

from .feedback import INDENT, failure_block
from .terminal import table

SCORE_HEADER = ("ex", "title", "score", "passed", "failed", "skipped")
SUMMARY_HEADER = ("ex", "title", "mean", "median", "max", "full", "zero")


def score_table(course: Course, result: SubmissionResult, feedback: bool = True) -> str:
    """One row per exercise and the total, then the feedback of each failed test (see :mod:`.feedback`).

    Example::

        print(score_table(course, grade_submission(course, Path("solutions/mynn"))))
    """
    titles = {e.id: e.title for e in course.exercises}
    rows = [(e.id, titles[e.id], _score(e.score, e.max_score), e.passed, e.failed, e.skipped) for e in result.exercises]
    rows.append(("", "total", _score(result.score, result.max_score), "", "", ""))
    lines = [table(SCORE_HEADER, rows, right=(2, 3, 4, 5))]
    if feedback:
        for exercise in result.exercises:
            if exercise.error:
                lines.append(f"\n{exercise.id}: {exercise.error}")
                continue
            failed = [t for t in exercise.tests if t.outcome == FAILED]
            if failed:
                lines.append("")
            for test in failed:
                block = failure_block(test)
                lines += [f"{exercise.id} {block[0]}"] + [INDENT + line for line in block[1:]]
    return "\n".join(lines)


def class_summary(course: Course, results: list[SubmissionResult], failures: dict[str, str]) -> str:
    """Per exercise: mean and median score, how many earned full marks and zero; then grading failures.

    Args:
        course: names the exercises, in course order.
        results: one per student.
        failures: why grading itself failed, by student.
    """
    titles = {e.id: e.title for e in course.exercises}
    ids = [e.id for e in course.exercises if any(x.id == e.id for r in results for x in r.exercises)]
    rows = []
    for exercise_id in ids:
        graded = [x for r in results for x in r.exercises if x.id == exercise_id]
        rows.append(_summary_row(exercise_id, titles[exercise_id], [x.score for x in graded], graded[0].max_score))
    rows.append(_summary_row("", "total", [r.score for r in results], results[0].max_score))
    lines = [table(SUMMARY_HEADER, rows, right=range(2, 7))]
    lines.append(f"\n{len(results)} students graded" + (f"; {GRADING_FAILED} for {len(failures)}:" if failures else ""))
    lines += [f"  {student}: {why}" for student, why in failures.items()]
    return "\n".join(lines)


def _score(score: float, most: float) -> str:
    return f"{score:.2f} / {most:g}"


def _summary_row(label: str, title: str, scores: list[float], most: float) -> tuple:
    full = sum(abs(s - most) < 1e-9 for s in scores)
    zero = sum(s == 0 for s in scores)
    return (label, title, f"{statistics.fmean(scores):.2f}", f"{statistics.median(scores):.2f}", f"{most:g}",
            full, zero)
