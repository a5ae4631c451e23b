"""``--gradescope FILE``: Gradescope's ``results.json``, so the same graders
serve courses that grade on Gradescope (its autograder reads
``/autograder/results/results.json``)."""
from __future__ import annotations

from modlab.records import FAILED, PASSED, SKIPPED, SubmissionResult

from .feedback import failure_text


def gradescope_results(result: SubmissionResult) -> dict:
    """One Gradescope test per grader test; hidden graders stay hidden from students."""
    tests = []
    for exercise in result.exercises:
        for test in exercise.tests:
            tests.append({
                "name": f"{exercise.id} {test.name}",
                "score": round(test.score, 4),
                "max_score": round(test.max_score, 4),
                "status": "passed" if test.outcome in (PASSED, SKIPPED) else "failed",
                "output": _output(test),
                "visibility": "visible" if test.public else "hidden",
            })
    return {
        "score": round(result.score, 4),
        "execution_time": round(sum(e.seconds for e in result.exercises), 3),
        "output": f"{result.score:.2f} of {result.max_score:g} points",
        "tests": tests,
    }


def _output(test) -> str:
    if test.outcome == SKIPPED:
        return f"skipped: {test.note}"
    return failure_text(test) if test.outcome == FAILED else ""
