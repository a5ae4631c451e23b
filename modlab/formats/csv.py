"""The gradebook: one CSV row per student, one column per exercise.

It is written from the result records alone and holds no timings, so the
same class graded twice, with any number of processes or shards, gives the
same file byte for byte::

    student,10_losses,11_optim,total,max_score,status
    ada,10.00,13.50,23.50,25,graded
    bob,0.00,0.00,0.00,25,grading failed: exercise 02: RuntimeError: ...
"""
from __future__ import annotations

import csv
import io

from modlab.course import Course
from modlab.records import GRADED, GRADING_FAILED, SubmissionResult

def gradebook_csv(course: Course, results: list[SubmissionResult], failures: dict[str, str] | None = None) -> str:
    """The gradebook of these results, sorted by student.

    Args:
        course: names the exercise columns, in course order.
        results: one per student.
        failures: why grading failed, by student; the status column says
            so, so that a grading fault is never mistaken for a zero earned.
    """
    failures = failures or {}
    graded = {e.id for r in results for e in r.exercises}
    exercises = [e for e in course.exercises if e.id in graded]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", *(e.name for e in exercises), "total", "max_score", "status"])
    for result in sorted(results, key=lambda r: r.student):
        scores = {e.id: e.score for e in result.exercises}
        status = f"{GRADING_FAILED}: {failures[result.student]}" if result.student in failures else GRADED
        writer.writerow([result.student, *(_points(scores[e.id]) if e.id in scores else "" for e in exercises),
                         _points(result.score), f"{result.max_score:g}", status])
    return out.getvalue()


def _points(value: float) -> str:
    return f"{value:.2f}"
