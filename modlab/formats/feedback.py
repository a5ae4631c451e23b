"""A failed check as a student reads it, written from its :class:`Failure` record.

Every text output shows failures through here: the terminal (``modlab check``,
``modlab grade``), nbgrader feedback, JUnit and Gradescope. One line per fact,
each labelled, so the record's fields are never run together and never need
to be parsed back::

    FAILED tied_weights_are_yielded_once
      a Parameter registered in two modules is yielded once, under its first name
      where   root.named_parameters()
      torch   [['encoder.weight', [3, 3]], ['encoder.bias', [3]], ['decoder.bias', [3]]]
      yours   [['encoder.weight', [3, 3]], ['encoder.bias', [3]], ['decoder.weight', [3, 3]], ...]
      detail  extra `decoder.weight`
      hint    tied weights counted twice: the walk must remember ... [tied-twice]

A hidden check is shown without its name and description (``hidden check 3``),
so feedback teaches the mistake without publishing the hidden grader.
"""
from __future__ import annotations

from modlab.course import Exercise
from modlab.records import FAILED, MISMATCH, PASSED, ExerciseResult, TestResult

INDENT = "  "


def failure_block(test: TestResult, label: str = "", hidden: bool = False) -> list[str]:
    """The lines showing one failed test, the first naming it.

    Args:
        test: a failed test with its ``failure`` record.
        label: what to call the test (default: its name).
        hidden: leave out what identifies the check (its description).
    """
    lines = [f"FAILED {label or test.name}"]
    if test.doc and not hidden:
        lines.append(INDENT + test.doc)
    lines += [INDENT + line for line in fact_lines(test)]
    return lines


def fact_lines(test: TestResult) -> list[str]:
    """The failure's facts, one labelled line each (the test's feedback if it has no record)."""
    failure = test.failure
    if failure is None:
        return [test.feedback] if test.feedback else []
    facts = []
    if failure.reason == MISMATCH:
        facts += _labelled("where", failure.where or "the whole result")
        facts += _labelled("torch", failure.torch) + _labelled("yours", failure.yours)
        facts += _labelled("detail", failure.detail)
    elif failure.raised:
        place = f" ({failure.raised['file']}:{failure.raised.get('line', '?')})" if failure.raised.get("file") else ""
        lead = f"{failure.message}: " if failure.message else ""
        facts += _labelled("raised", f"{lead}{failure.raised['type']}{place}: {failure.raised['message']}")
    else:
        facts += _labelled(failure.reason, failure.message)
    facts += _labelled("case", failure.smallest_case)
    facts += _labelled("note", failure.explanation)
    for misconception in failure.misconceptions:
        facts += _labelled("hint", f"{misconception['text']} [{misconception['id']}]")
    return facts


def _labelled(label: str, value) -> list[str]:
    if value in (None, ""):
        return []
    text = " ".join(str(value).split())
    return [f"{label:<7} {text}"]


def failure_text(test: TestResult, hidden: bool = False) -> str:
    """The facts of a failure as one block of text (JUnit's and Gradescope's output)."""
    lead = [] if hidden or not test.doc else [test.doc]
    return "\n".join(lead + fact_lines(test))


def check_report(exercise: Exercise, result: ExerciseResult) -> str:
    """``modlab check``'s report: per check, passed, failed (with its facts) or skipped; then a summary.

    Example::

        print(check_report(exercise, check(workspace, exercise)))
    """
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
