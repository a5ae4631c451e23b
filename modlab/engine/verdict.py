"""The verdict on one case: compare the two worlds' answers, and what a failure is made of.

:func:`judge` compares torch's answer with the submission's and raises the
:class:`Problem` they show; :func:`failure_record` turns a problem into the
:class:`~modlab.records.Failure` every output shows: what each world did,
where, the smallest failing case, what an exception means, and the
misconceptions whose detectors found evidence in this very failure.
"""
from __future__ import annotations

from modlab.course import stub_of
from modlab.grading.compare import Difference, compare, show
from modlab.grading.evidence import Evidence
from modlab.grading.explain import Graded, explain_raised
from modlab.grading.catalog import detect
from modlab.grading.observe import EXCEPTION
from modlab.grading.scenario import Case
from modlab.isolation.process import WorkerFailed, observation_of
from modlab.isolation.protocol import has_observation, observation
from modlab.records import MISMATCH, RAISED, WORKER_REASONS, Failure


class Problem(Exception):
    """Why one case failed, as the comparison found it.

    Attributes:
        reason: one of ``records.REASONS``.
        message: what happened, for reasons that compared nothing.
        difference: where the observations part (``mismatch``).
        raised: the submission's exception record (``raised``, ``import``).
        expected: torch's whole observation; ``actual``: the submission's.
        spec: the failing Hypothesis spec, if drawn.
    """

    def __init__(self, reason: str, message: str = "", *, difference: Difference | None = None,
                 raised: dict | None = None, expected=None, actual=None):
        super().__init__(message or reason)
        self.reason, self.message, self.difference, self.raised = reason, message, difference, raised
        self.expected, self.actual = expected, actual
        self.spec = None

    @property
    def stub(self) -> tuple[str, str] | None:
        """``(exercise, function)`` when a stub raised, in the scenario or inside any ``attempt()``."""
        if self.raised is not None:
            return stub_of(self.raised)
        found = stub_record(self.actual)
        return stub_of(found) if found else None

    def stops_search(self) -> bool:
        """A hang, a crash, a failed import or a stub fails alike for every spec: nothing to shrink."""
        return self.reason in WORKER_REASONS or self.stub is not None


def judge(case: Case, expected: dict, actual: dict) -> None:
    """Compare one answer of each world; raise the :class:`Problem` they show, if any.

    An observation that is byte for byte torch's passes unread: most do.

    Raises:
        Problem: the submission raised, answered nonsense, or observed something else.
        RuntimeError: torch itself raised: the grader is at fault, not the submission.
    """
    if not has_observation(expected):
        raise RuntimeError(f"grader bug: torch raised in {case.name}: {expected}")
    if not has_observation(actual):
        raised = actual.get("raised") or {"type": "unknown", "message": ""}
        raise Problem(RAISED, raised=raised, expected=observation(expected))
    if actual["observed"] == expected["observed"]:
        return
    try:
        theirs = observation_of(actual)
    except WorkerFailed as failed:  # an observation that is not plain data
        raise Problem(failed.kind, str(failed)) from None
    ours = observation(expected)
    difference = compare(ours, theirs, case.scenario.tolerance)
    if difference:
        raise Problem(MISMATCH, difference=difference, expected=ours, actual=theirs)


def failure_record(case: Case, problem: Problem, graded: Graded) -> Failure:
    """The failure record: what each world did, where, and what it means.

    A hint is a misconception whose detector found evidence in this very
    failure; a stub (nothing written yet) gets none, and an exception gets
    the explanation its record supports.
    """
    failure = Failure(problem.reason, message=problem.message, smallest_case=_shown_case(case, problem.spec))
    evidence = None
    if problem.difference is not None:
        found = problem.difference
        failure.where, failure.detail = found.where, found.detail
        failure.torch, failure.yours = show(found.expected), show(found.actual)
        inside = stub_record(problem.actual)
        if inside:
            failure.explanation = explain_raised(inside, graded)
        evidence = Evidence.of(problem.expected, problem.actual, found, None, case.scenario.tolerance)
    elif problem.raised is not None:
        failure.raised = _with_exercise(problem.raised, graded)
        failure.explanation = explain_raised(problem.raised, graded)
        evidence = Evidence.of(problem.expected, None, None, problem.raised)
    if failure.explanation and failure.explanation["kind"] == "scenario" and not case.scenario.public:
        failure.explanation = {"kind": "scenario"}  # a hidden check's own code stays hidden
    if evidence is not None and problem.stub is None:
        failure.misconceptions = [m.as_record() for m in detect(case.scenario.misconceptions, case.scenario.graders,
                                                                 evidence)]
    return failure


def _shown_case(case: Case, spec) -> str | None:
    """The smallest failing spec as the scenario shows it (its own words: the code that builds it), else as data."""
    if spec is None:
        return None
    if case.scenario.shown is not None:
        try:
            text = str(case.scenario.shown(spec))
            return text if len(text) <= MAX_CASE else text[: MAX_CASE - 3] + "..."
        except Exception:  # a grader's renderer meeting a spec it did not expect: the spec as data
            pass
    return show(spec, 300)


MAX_CASE = 600  # characters of a smallest case shown


def _with_exercise(raised: dict, graded: Graded) -> dict:
    """The exception record as the failure shows it: type, message, file, line, exercise."""
    shown = {key: raised[key] for key in ("type", "message", "file", "line") if key in raised}
    if raised.get("file") in graded.exercise_of_file:
        shown["exercise"] = graded.exercise_of_file[raised["file"]]
    return shown


def stub_record(observation, depth: int = 0) -> dict | None:
    """The first exception record in an observation that a stub raised, if any."""
    if depth > 60:
        return None
    if isinstance(observation, dict):
        if EXCEPTION in observation:
            return observation[EXCEPTION] if stub_of(observation[EXCEPTION]) else None
        observation = list(observation.values())
    if isinstance(observation, list):
        for item in observation:
            found = stub_record(item, depth + 1)
            if found:
                return found
    return None
