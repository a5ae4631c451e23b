"""Gradescope's ``results.json``: what ``--gradescope FILE`` and the Gradescope
autograder (``modlab gradescope run``) write, read by Gradescope from
``/autograder/results/results.json``.

Every field written is one of Gradescope's documented fields
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): at the top
``score``, ``execution_time``, ``output``, ``output_format``,
``test_output_format``, ``test_name_format``, ``stdout_visibility`` and
``tests``; per test ``score``, ``max_score``, ``status``, ``name``,
``name_format``, ``number``, ``output``, ``output_format`` and ``visibility``.

A hidden check that students will see (after the due date, say) is shown as
``hidden check 2``, without its name and description, as nbgrader's feedback
shows it: the feedback teaches the mistake without publishing the hidden grader.
"""
from __future__ import annotations

from dataclasses import dataclass

from modlab.records import FAILED, PASSED, SKIPPED, ExerciseResult, SubmissionResult

from .feedback import failure_text

# When Gradescope shows a test (or the autograder's stdout) to students.
HIDDEN, AFTER_DUE_DATE, AFTER_PUBLISHED, VISIBLE = "hidden", "after_due_date", "after_published", "visible"
VISIBILITIES = (HIDDEN, AFTER_DUE_DATE, AFTER_PUBLISHED, VISIBLE)
WHEN = {AFTER_DUE_DATE: "after the due date", AFTER_PUBLISHED: "once the grades are published"}
TEXT = "text"  # outputs and names are plain text: nothing a submission writes is rendered as HTML


@dataclass(frozen=True)
class Visibility:
    """When students see each kind of check on Gradescope (one of ``VISIBILITIES``).

    Attributes:
        public: the checks students run themselves with ``modlab check``.
        hidden: the hidden checks; anything but ``hidden`` shows them
            numbered, without their names.
    """

    public: str = VISIBLE
    hidden: str = HIDDEN

    def __post_init__(self):
        for kind, value in (("public", self.public), ("hidden", self.hidden)):
            if value not in VISIBILITIES:
                raise ValueError(f"{kind} checks' visibility {value!r}: expected one of {', '.join(VISIBILITIES)}")

    @property
    def withholds_score(self) -> bool:
        """Whether some checks stay out of students' sight for a while, and with them the total
        (Gradescope then hides the score, so the output must not say it either)."""
        return self.hidden in WHEN


def gradescope_results(result: SubmissionResult, visibility: Visibility = Visibility()) -> dict:
    """One Gradescope test per grader test, in the course's order, numbered ``10.1``, ``10.2``, ...

    Args:
        result: one submission's grade.
        visibility: when students see public and hidden checks.

    Returns:
        The ``results.json`` data; its ``score`` is ``result.score``, rounded.

    Example::

        gradescope_results(result, Visibility(hidden="after_due_date"))["tests"][0]["visibility"]   # 'visible'
    """
    data = message_results(_summary(result, visibility), result.score, sum(e.seconds for e in result.exercises))
    data["tests"] = [test for exercise in result.exercises for test in _exercise_tests(exercise, visibility)]
    return data


def message_results(output: str, score: float = 0.0, seconds: float = 0.0) -> dict:
    """A ``results.json`` with this top-level output and no tests yet: a submission that
    could not be graded (``score`` 0), or the start of one that was.

    Example::

        message_results("nothing to grade: upload losses.py (exercise 10), the mynn/ folder holding it, or ...")
    """
    return {
        "score": round(score, 4),
        "execution_time": round(seconds, 3),
        "output": output,
        "output_format": TEXT,
        "test_output_format": TEXT,
        "test_name_format": TEXT,
        "stdout_visibility": HIDDEN,  # the autograder's log names hidden checks: for instructors only
        "tests": [],
    }


def _exercise_tests(exercise: ExerciseResult, visibility: Visibility) -> list[dict]:
    tests, hidden = [], 0
    for number, test in enumerate(exercise.tests, start=1):
        if not test.public:
            hidden += 1
        anonymous = not test.public and visibility.hidden != HIDDEN
        tests.append({
            "name": f"{exercise.id} hidden check {hidden}" if anonymous else f"{exercise.id} {test.name}",
            "name_format": TEXT,
            "number": f"{exercise.id}.{number}",
            "score": round(test.score, 4),
            "max_score": round(test.max_score, 4),
            "status": "passed" if test.outcome in (PASSED, SKIPPED) else "failed",
            "output": _output(test, anonymous),
            "output_format": TEXT,
            "visibility": visibility.public if test.public else visibility.hidden,
        })
    return tests


def _output(test, anonymous: bool) -> str:
    if test.outcome == SKIPPED:
        return f"skipped: {test.note}"
    return failure_text(test, hidden=anonymous) if test.outcome == FAILED else ""


def _summary(result: SubmissionResult, visibility: Visibility) -> str:
    """The top-level output: the score (unless it is withheld for now), then why any exercise
    could not be graded at all (a missing file, a package that does not import)."""
    if visibility.withholds_score:
        public = [t for e in result.exercises for t in e.tests if t.public and t.outcome != SKIPPED]
        passed = sum(t.outcome == PASSED for t in public)
        lines = [f"{passed} of {len(public)} public checks passed; "
                 f"the hidden checks and your score are shown {WHEN[visibility.hidden]}"]
    else:
        lines = [f"{result.score:.2f} of {result.max_score:g} points"]
    lines += [f"exercise {e.id}: {e.error}" for e in result.exercises if e.error]
    return "\n".join(lines)
