"""The score cell's text: what the student reads in their nbgrader feedback.

Public checks appear by name with their feedback, as ``modlab check`` shows
them. Hidden checks are numbered, and their feedback loses the lead that
names what the hidden scenario checks, so feedback teaches the mistake
without publishing the hidden grader.
"""
from __future__ import annotations

from modlab.course import Exercise
from modlab.grading.scenario import Scenario
from modlab.runner.records import FAILED, ExerciseResult


def score_text(exercise: Exercise, result: ExerciseResult, scenarios: list[Scenario]) -> str:
    """The feedback printed above the score, one line per check."""
    docs = {s.name: s.doc for s in scenarios}
    lines = [f"Exercise {exercise.id}: {result.score:.2f} / {result.max_score:g} points, "
             f"graded by the course's graders on your submitted files."]
    if result.error:
        lines.append(f"Nothing could be graded: {result.error}")
        return "\n".join(lines)
    hidden = 0
    for test in result.tests:
        if test.public:
            lines.append(_line(test.outcome, test.name, test.feedback if test.outcome == FAILED else ""))
        else:
            hidden += 1
            feedback = _without_lead(test.feedback, docs.get(test.name.split("[")[0], ""))
            lines.append(_line(test.outcome, f"hidden check {hidden}", feedback if test.outcome == FAILED else ""))
    return "\n".join(lines)


def _line(outcome: str, name: str, feedback: str) -> str:
    return f"  {outcome:<7} {name}" + (f": {feedback}" if feedback else "")


def _without_lead(feedback: str, doc: str) -> str:
    """The failure without its scenario's docstring, which names what is checked."""
    lead = f"{doc}: "
    return feedback[len(lead):] if doc and feedback.startswith(lead) else feedback

