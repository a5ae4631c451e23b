"""A property check's search: many specs drawn by Hypothesis, the smallest that fails kept.

A search that passed once is replayed first, without drawing again; one that
failed after a failed replay is recorded, and a later submission failing the
replay alike is led through the recorded calls instead of searching
(:class:`~.memory.Memory` keeps both). Either shortcut ends where a real
search would: the same verdict, the same smallest spec (tested in
``tests/test_batch.py``).

The search works through three capabilities of the exercise's grading (see
:class:`~.exercise.ExerciseGrading`): ``compare(case, arguments)`` (raise
the problem, if any), ``outcomes(case, specs)`` (each spec's problem, asked
in one stream) and ``restart()`` (a fresh worker), and through its ``memory``.
"""
from __future__ import annotations

from contextlib import closing

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Flaky

from modlab.grading.scenario import Case

from .verdict import Problem


class StopSearch(BaseException):
    """Ends a Hypothesis search at once (Hypothesis shrinks on Exceptions only)."""

    def __init__(self, problem: Problem):
        super().__init__(problem.reason)
        self.problem = problem


def search_outcome(problem: Problem | None) -> tuple | None:
    """What Hypothesis tells apart in a call's outcome: passed (None), or failed
    with this reason, raised where and from what (its "interesting origin")."""
    return None if problem is None else (problem.reason, _origin(problem))


def _origin(exc: BaseException, seen: tuple = ()) -> tuple:
    """An exception's type, the file and line it was raised at, and the same of
    the exception it was raised while handling: as Hypothesis distinguishes failures."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    where = (frame.tb_frame.f_code.co_filename, frame.tb_lineno) if frame is not None else None
    context = exc.__context__
    before = _origin(context, (*seen, exc)) if context is not None and context not in seen else ()
    return type(exc).__qualname__, where, before


def search(grading, case: Case) -> None:
    """Compare on many specs drawn by Hypothesis; raise the problem of the smallest that fails.

    A hang, a crash, a failed import or a stub fails the same way for
    every spec, so the search stops at the first one instead of shrinking.
    A search that passed once is replayed first, and one that failed there
    as a search before did is followed first (see :class:`~.memory.Memory`).
    """
    memory = grading.memory
    key = (case.scenario.key, case.name)
    first_failure = None
    if key in memory.passing_specs:
        first_failure = replay(grading, case, memory.passing_specs[key])
        if first_failure is None:
            return
        # Whatever the replay left running, the search (or the detour below)
        # starts from a fresh worker, so that what the submission is asked
        # next never depends on how far the replay read.
        grading.restart()
        followed = memory.failing_searches.get((key, first_failure))
        smallest = followed and follow(grading, case, followed)
        if smallest:
            raise smallest
    calls = []

    # No "explain" phase: it re-runs a failing spec many times to annotate
    # it, and the feedback already shows the smallest failing spec.
    @settings(derandomize=True, max_examples=case.scenario.examples, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False,
              phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink))
    @given(spec=case.scenario.specs)
    def property_holds(spec):
        try:
            grading.compare(case, case.arguments(spec))
        except Problem as problem:
            problem.spec = spec
            if problem.stops_search():
                raise StopSearch(problem) from None
            calls.append((spec, search_outcome(problem)))
            raise
        calls.append((spec, None))

    try:
        property_holds()
    except StopSearch as stop:
        raise stop.problem from None
    except Problem:
        if first_failure is not None:
            memory.remember_failing((key, first_failure), calls)
        raise
    except Flaky as flaky:
        # The submission failed a spec and passed it when asked again (it read uninitialised
        # memory, or kept state between calls): what it showed the first time stands, and a
        # search no rerun can repeat is not remembered for others to follow.
        problem = next(_problems(flaky), None)
        if problem is None:
            raise
        raise problem from None
    memory.passing_specs[key] = [spec for spec, _ in calls]


def _problems(error: BaseException):
    """The Problems inside an exception group (Hypothesis's report of a flaky failure), first first."""
    if isinstance(error, Problem):
        yield error
    for inner in getattr(error, "exceptions", ()):
        yield from _problems(inner)


def replay(grading, case: Case, specs: list) -> tuple | None:
    """Compare on the specs a passing search draws, in its order.

    Returns None if all pass: the search would draw just these and pass.
    Otherwise, for the search to find the smallest failing spec, where the
    first failure worth shrinking is: ``(index, outcome)``. Raises the
    failures that stop a search, as the search would at that same spec.

    The first spec is asked alone, the rest in one stream: a stub, or a
    submission that fails at once, then leaves no stream running that its
    worker would have to be ended (and started again) for.
    """
    for start, chunk in ((0, specs[:1]), (1, specs[1:])):
        with closing(grading.outcomes(case, chunk)) as outcomes:
            for index, problem in enumerate(outcomes, start):
                if problem is not None:
                    return index, search_outcome(problem)
    return None


def follow(grading, case: Case, calls: list) -> Problem | None:
    """The problem a search would end with, found without searching.

    Hypothesis draws derandomized and decides each next spec from the
    outcomes so far alone. A submission asked a recorded search's specs
    as that search asked them (one at a time, in its order, from a fresh
    worker), whose every outcome is the recorded one, would therefore be
    led through the very same search to the same smallest spec: its
    problem there is returned. At the first outcome that differs, None,
    and the worker ends: the search then starts afresh, as it would have
    without this detour.
    """
    found = None
    for spec, recorded in calls:
        try:
            grading.compare(case, case.arguments(spec))
            found = None
        except Problem as problem:
            problem.spec = spec
            if problem.stops_search():
                raise
            found = problem
        if search_outcome(found) != recorded:
            grading.restart()
            return None
    return found
