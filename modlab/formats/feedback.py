"""A failed check in words: the one renderer of a :class:`~modlab.records.Failure`.

Every output shows failures through here: the terminal (``modlab check``,
``modlab grade``), JSON's ``feedback`` field, Markdown, JUnit, Gradescope,
nbgrader feedback, the pytest plugin, the HTML report, and a lesson cell
that reaches a stub. The record holds facts; this module alone puts them
into words, and writes ``file:line`` (:func:`file_line`). Two shapes:

- one labelled line per fact, so a record's fields are never run together
  (:func:`fact_lines`, :func:`failure_block`)::

    FAILED tied_weights_are_yielded_once
      a Parameter registered in two modules is yielded once, under its first name
      where   root.named_parameters()
      torch   [['encoder.weight', [3, 3]], ['encoder.bias', [3]], ['decoder.bias', [3]]]
      yours   [['encoder.weight', [3, 3]], ['encoder.bias', [3]], ['decoder.weight', [3, 3]], ...]
      detail  extra `decoder.weight`
      hint    tied weights counted twice: the walk must remember ... [tied-twice]

- one line for the whole failure, where a line is all there is room for
  (:func:`feedback_line`: a JSON field, a Markdown list, a pytest failure).

A hidden check is shown without its name and description (``hidden check 3``),
so feedback teaches the mistake without publishing the hidden grader.
"""
from __future__ import annotations

from modlab.course import Exercise
from modlab.records import FAILED, MISMATCH, PASSED, RAISED, SKIPPED, ExerciseResult, Failure, TestResult

INDENT = "  "
ONE_LINE = 900  # characters a one-line rendering keeps


def file_line(file: str, line) -> str:
    """Where code is: ``losses.py:41`` (``losses.py:?`` where the line is unknown)."""
    return f"{file}:{'?' if line is None else line}"


def _at(raised: dict) -> str:
    """`` (losses.py:41)`` for an exception record that knows its file, else ``""``."""
    return f" ({file_line(raised['file'], raised.get('line'))})" if raised.get("file") else ""


def problem(failure: Failure) -> str:
    """What went wrong, in one sentence, without hints."""
    if failure.reason == MISMATCH:
        where = f" at {failure.where}" if failure.where else ""
        detail = f" ({failure.detail})" if failure.detail else ""
        return f"torch gave {failure.torch}, yours gave {failure.yours}{where}{detail}"
    if failure.raised:
        raised = failure.raised
        if failure.reason == RAISED:
            expected = f"torch gave {failure.torch}, " if failure.torch else ""
            return f"{expected}yours raised {raised['type']}{_at(raised)}: {raised['message']}"
        return f"{failure.message}: {raised['type']}{_at(raised)}: {raised['message']}"  # did not import
    return failure.message


def explanation_text(explanation: dict | None) -> str:
    """What an exception means (:func:`modlab.grading.explain.explain_raised`'s facts), in words."""
    if not explanation:
        return ""
    kind, facts = explanation.get("kind"), explanation
    if kind == "stub":
        of = f" (exercise {facts['exercise']})" if facts.get("exercise") else ""
        return f"still the stub: fill in {facts['function']} in {facts.get('file') or 'your package'}{of}"
    if kind == "scenario":
        if not facts.get("code"):
            return "the check's own code failed on what your package returned"
        return (f"the check's own code failed at `{facts['code']}` ({file_line(facts['file'], facts['line'])}) on what "
                f"your package returned there{_held_there(facts)}")
    if kind == "package-lacks":
        return f"your package provides no `{facts['name']}`, which the check uses"
    if kind == "missing-name":
        files = " and ".join(facts["own"])
        return (f"your {file_line(facts['file'], facts['line'])} uses `{facts['name']}`, which the course's "
                f"reference package does not provide: exercise {facts['exercise']} is graded with your {files} "
                f"inside the reference package, so keep what {files} needs in {files}")
    if kind == "earlier-exercise":
        origin = facts["exercise"]
        return (f"the failure is inside exercise {origin}'s code ({file_line(facts['file'], facts['line'])}): "
                f"fix exercise {origin} first (`modlab check {origin}`)")
    if kind == "inside-reference":
        of = f" (exercise {facts['exercise']}, the course's reference here)" if facts.get("exercise") \
            else " (the course's reference)"
        return (f"raised inside {file_line(facts['file'], facts['line'])}{of}, called from your "
                f"{file_line(facts['own_file'], facts['own_line'])}: look at what your code passed to it")
    return str(facts.get("text", ""))  # a record of an older modlab: its words as they were


def _held_there(facts: dict) -> str:
    """What the line's names held, and its calls gave, in each world where they differ, with the
    line that made each name: ``: `p` is None in yours, a Parameter in torch's (made by `p =
    nn.Parameter(data)`, line 21)``; ``: `root.named_parameters()` gave None in yours, a generator
    in torch's``. A call on a name already told is left out: it says the same again."""
    yours, torch, made = facts.get("yours", {}), facts.get("torch", {}), facts.get("made", {})
    differ = [text for text in yours if text in torch and torch[text] != yours[text]]
    names = {text for text in differ if text.isidentifier()}
    parts = []
    for text in differ:
        if text in names:
            origin = made.get(text)
            by = f" (made by `{origin['code']}`, line {origin['line']})" if origin else ""
            parts.append(f"`{text}` is {yours[text]} in yours, {torch[text]} in torch's{by}")
        elif text.split("(", 1)[0].split(".", 1)[0] not in names:
            parts.append(f"`{text}` {_gave(yours[text])} in yours, {torch[text]} in torch's")
    return ": " + "; ".join(parts) if parts else "; torch's run of that line went through"


def _gave(kind: str) -> str:
    return kind if kind.startswith("raised ") else f"gave {kind}"


def fact_lines(test: TestResult) -> list[str]:
    """The failure's facts, one labelled line each (a skip's note, for a skipped test)."""
    failure = test.failure
    if failure is None:
        return [test.note] if test.note else []
    facts = []
    if failure.reason == MISMATCH:
        facts += _labelled("where", failure.where or "the whole result")
        facts += _labelled("torch", failure.torch) + _labelled("yours", failure.yours)
        facts += _labelled("detail", failure.detail)
    elif failure.raised:
        lead = f"{failure.message}: " if failure.message else ""
        facts += _labelled("raised", f"{lead}{failure.raised['type']}{_at(failure.raised)}: {failure.raised['message']}")
    else:
        facts += _labelled(failure.reason, failure.message)
    facts += _labelled("case", failure.smallest_case)
    facts += _labelled("note", explanation_text(failure.explanation))
    for misconception in failure.misconceptions:
        facts += _labelled("hint", f"{misconception['text']} [{misconception['id']}]")
    return facts


def _labelled(label: str, value) -> list[str]:
    if value in (None, ""):
        return []
    text = " ".join(str(value).split())
    return [f"{label:<7} {text}"]


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


def failure_text(test: TestResult, hidden: bool = False) -> str:
    """The facts of a failure as one block of text (JUnit's and Gradescope's output)."""
    lead = [] if hidden or not test.doc else [test.doc]
    return "\n".join(lead + fact_lines(test))


def feedback_line(test: TestResult) -> str:
    """A test's feedback on one line: ``doc: problem. Smallest failing case: ... . note. Hint: ...``
    for a failure, the note for a skip, nothing for a pass.

    Example::

        feedback_line(test)   # 'names join the path with dots ...: torch gave [...], yours gave [...] at ...'
    """
    if test.outcome == SKIPPED:
        return test.note
    if test.outcome != FAILED or test.failure is None:
        return ""
    failure = test.failure
    parts = [f"{test.doc}: {problem(failure)}" if test.doc else problem(failure)]
    if failure.smallest_case:
        parts.append(f"Smallest failing case: {failure.smallest_case}")
    if failure.explanation:
        parts.append(explanation_text(failure.explanation))
    if failure.misconceptions:
        parts.append("Hint: " + "; ".join(m["text"] for m in failure.misconceptions))
    text = " ".join(". ".join(parts).split())
    return text if len(text) <= ONE_LINE else text[: ONE_LINE - 3] + "..."


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
            lines.append(f"  skipped  {test.name}: {test.note}")
    counted = result.passed + result.failed
    verdict = "all passed" if result.failed == 0 else f"{result.failed} failed"
    lines.append(f"exercise {exercise.id}: {result.passed} of {counted} public checks passed ({verdict}) "
                 f"in {result.seconds:.1f} s")
    return "\n".join(lines)
