"""The score cell's text: what the student reads in their nbgrader feedback.

Public checks appear by name with their feedback, as ``modlab check`` shows
them. Hidden checks are numbered and shown without their description, so
feedback teaches the mistake without publishing the hidden grader.
"""
from __future__ import annotations

from modlab.course import Exercise
from modlab.formats.feedback import failure_block
from modlab.records import FAILED, ExerciseResult


def score_text(exercise: Exercise, result: ExerciseResult) -> str:
    """The feedback printed above the score: a line per check, the facts of each failure below it."""
    lines = [f"Exercise {exercise.id}: {result.score:.2f} / {result.max_score:g} points, "
             f"graded by the course's graders on your submitted files."]
    if result.error:
        lines.append(f"Nothing could be graded: {result.error}")
        return "\n".join(lines)
    hidden = 0
    for test in result.tests:
        label = test.name
        if not test.public:
            hidden += 1
            label = f"hidden check {hidden}"
        if test.outcome == FAILED:
            lines += ["  " + line for line in failure_block(test, label, hidden=not test.public)]
        else:
            lines.append(f"  {test.outcome:<7} {label}")
    return "\n".join(lines)

