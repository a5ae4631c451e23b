"""An exercise's score: its points times the weighted share of its tests passed."""
from __future__ import annotations

import time

from modlab.course import Exercise
from modlab.grading.scenario import Case
from modlab.records import PASSED, SKIPPED, ExerciseResult, TestResult


def scored(exercise: Exercise, cases: list[Case], tests: list[TestResult], started: float,
           error: str = "") -> ExerciseResult:
    """Weight each counted test by its scenario's points; skipped tests do not count.

    Args:
        cases: the graded cases, one per test, in order.
        started: when grading began (``time.monotonic()``): the result's seconds count from it.
        error: why nothing could be graded, if so.
    """
    counted = [(case, test) for case, test in zip(cases, tests) if test.outcome != SKIPPED]
    total = sum(case.scenario.points for case, _ in counted)
    for case, test in counted:
        test.max_score = exercise.points * case.scenario.points / total
        test.score = test.max_score if test.outcome == PASSED else 0.0
    return ExerciseResult(
        id=exercise.id,
        score=sum(t.score for t in tests),
        max_score=float(exercise.points),
        tests=tests,
        error=error,
        seconds=time.monotonic() - started,
    )
