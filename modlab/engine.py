"""The engine: grade one submission's exercise, scenario by scenario.

Every consumer (``modlab grade``, ``modlab check``, the pytest plugin, the
nbgrader preprocessor, batch grading) goes through :func:`grade_exercise`.
For each case it asks the trusted oracle (torch.nn) and the submission's
worker for an observation, compares them here, and records a verdict with
the feedback that teaches (:mod:`modlab.records`).

May import: :mod:`modlab.isolation` (the workers), :mod:`modlab.grading`
(scenarios, comparison, evidence, misconceptions), :mod:`modlab.records`,
:mod:`modlab.course`. Never the batch, the tools or the CLI.
"""
from __future__ import annotations

import atexit
import json
import os
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from hypothesis import HealthCheck, Phase, given, settings

from modlab.course import Course, Exercise, stub_of
from modlab.fingerprint import fingerprint
from modlab.formats.feedback import file_line
from modlab.grading.compare import Difference, compare, show
from modlab.grading.evidence import Evidence
from modlab.grading.explain import Graded, explain_raised
from modlab.grading.loader import load_scenarios
from modlab.grading.misconceptions import detect
from modlab.grading.observe import RAISED as RAISED_TAG
from modlab.grading.scenario import Case

from modlab.isolation.process import STOP_TIMEOUT, WorkerFailed, WorkerProcess, observation_of
from modlab.isolation.protocol import has_observation, observation
from modlab.records import (CUDA, FAILED, IMPORT, MISMATCH, MISSING, PASSED, RAISED, SKIPPED, TIMEOUT, WORKER_REASONS,
                            ExerciseResult, Failure, SubmissionResult, TestResult)

GRAFT, WHOLE = "graft", "whole"
CUDA_ABSENT = "CUDA not available"
# A submission that hangs would cost every remaining check a full scenario
# timeout: after this many in one exercise, its remaining checks fail at once.
# (One that sleeps is found out sooner: see modlab.isolation.sleep. CUDA cases
# are not watched for sleep, since a worker may wait on its device.)
MAX_TIMEOUTS = 2


@dataclass(frozen=True)
class GradeOptions:
    """How to grade.

    Attributes:
        mode: ``graft`` grades exercise *k* with the submission's exercise-*k*
            files in the reference package (isolation); ``whole`` grades the
            submission's package as it is (local checks, no reference).
        device: ``auto`` runs CUDA cases where CUDA is available and skips
            them elsewhere; ``cpu`` skips them; ``cuda`` fails them where CUDA
            is missing, so a misconfigured GPU runner cannot pass by skipping.
        public_only: grade only the public scenarios (a student's check):
            the workers then load only the exercise's grader, not the course's.
        oracle_cache: a folder that keeps torch.nn's answers between
            processes (a student's checks), or None (kept by this process only).
    """

    mode: str = GRAFT
    device: str = "auto"
    public_only: bool = False
    oracle_cache: Path | None = None

    def key(self) -> dict:
        """The options that change a grade, as plain data (where answers are kept does not)."""
        return {"mode": self.mode, "device": self.device, "public_only": self.public_only}


class Problem(Exception):
    """Why one case failed, as the comparison found it (see :meth:`ExerciseGrading.failure`).

    Attributes:
        reason: one of ``records.REASONS``.
        message: what happened, for reasons that compared nothing.
        difference: where the observations part (``mismatch``).
        raised: the submission's exception record (``raised``, ``import``).
        expected: torch.nn's whole observation; ``actual``: the submission's.
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
        """``(exercise, function)`` when a stub raised, in the scenario or inside any ``outcome()``."""
        if self.raised is not None:
            return stub_of(self.raised)
        found = _stub_record(self.actual)
        return stub_of(found) if found else None

    def stops_search(self) -> bool:
        """A hang, a crash, a failed import or a stub fails alike for every spec: nothing to shrink."""
        return self.reason in WORKER_REASONS or self.stub is not None


class _StopSearch(BaseException):
    """Ends a Hypothesis search at once (Hypothesis shrinks on Exceptions only)."""

    def __init__(self, problem: Problem):
        super().__init__(problem.reason)
        self.problem = problem


class Oracle:
    """torch.nn's observations, computed once per process and remembered.

    With a ``cache_dir``, they are also kept on disk, so that a student's
    next check asks torch.nn nothing it answered before and mostly never
    starts its worker. The file is named by the fingerprint of the grading
    (:mod:`modlab.fingerprint`): when anything an answer depends on changes,
    the old file is no longer read, so it can never be stale.
    """

    def __init__(self, grader_files: list[str], cache_dir: Path | None = None, key: str = ""):
        self.worker = WorkerProcess({"kind": "torch"}, grader_files)
        self.cache: dict[str, dict] = {}
        self._cuda: bool | None = None
        self.cache_path = Path(cache_dir) / f"torch-{key}.json" if cache_dir else None
        self.unsaved = False  # answers asked since the cache file was written
        if self.cache_path is not None:
            self.cache.update(self._read_cache())

    def observe(self, request: dict, timeout: float) -> dict:
        return self.observe_many([request], timeout)[0]

    def observe_many(self, requests: list[dict], timeout: float) -> list[dict]:
        """torch.nn's answers to ``requests``: those not remembered yet are asked
        in one stream (see :meth:`~modlab.isolation.process.WorkerProcess.stream`)."""
        keys = [request_key(request) for request in requests]
        missing = list({key: request for key, request in zip(keys, requests) if key not in self.cache}.items())
        if missing:
            answers = self.worker.stream([request for _, request in missing], timeout)
            for key, _ in missing:
                self.cache[key] = answers.next()
            self.unsaved = True
        return [self.cache[key] for key in keys]

    def save(self) -> None:
        """Write the answers asked since the last save into the cache file, if there is one:
        once an exercise is graded, not at every answer (a search asks one at a time)."""
        if self.cache_path is not None and self.unsaved:
            self._write_cache()
            self.unsaved = False

    def _read_cache(self) -> dict[str, dict]:
        try:
            found = json.loads(self.cache_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or unreadable: torch.nn is asked again
        return found if isinstance(found, dict) else {}

    def _write_cache(self) -> None:
        """Keep the answers (written whole, then renamed: a reader never sees half a file),
        and remove the files of earlier versions; a read-only folder keeps nothing."""
        try:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.cache_path.with_suffix(f".{os.getpid()}.part")
            # Without the observations read from their text: the text is what is kept.
            kept = {key: {k: v for k, v in answer.items() if k != "observation"} for key, answer in self.cache.items()}
            partial.write_text(json.dumps(kept), encoding="utf-8")
            os.replace(partial, self.cache_path)
            for old in self.cache_path.parent.glob("torch-*.json"):
                if old != self.cache_path:
                    old.unlink(missing_ok=True)
        except OSError:
            pass

    @property
    def cuda(self) -> bool:
        """Whether CUDA works, asked of the oracle so this process never initialises it."""
        if self._cuda is None:
            self._cuda = bool(self.worker.ask({"op": "cuda"}, timeout=120).get("cuda"))
        return self._cuda


_oracles: dict[str, Oracle] = {}


def request_key(request: dict) -> str:
    return json.dumps(request, sort_keys=True)

# The specs a Hypothesis search draws while every one passes, by case: the
# same in every search (derandomized), so a search that passed once is
# replayed first, without drawing again, and Hypothesis runs only where a spec
# fails, to shrink it. Drawing costs the grading process more than comparing.
_passing_specs: dict[tuple[str, str], list] = {}


# The calls of each search that failed after a failed replay, by case and by
# where the replay first failed (index and outcome): a later submission failing
# there alike is led through the recorded specs first (ExerciseGrading._follow).
# Bugs recur across a class, and a search costs the grading process far more
# than asking its specs costs the submission's worker.
_failing_searches: dict[tuple, list] = {}
_recorded: list[tuple] = []  # (key, calls) of each failing search this process recorded, in turn


def remember_failing(key: tuple, calls: list) -> None:
    """Keep a failing search's calls, to follow here and to pass on (:func:`failed_since`)."""
    _failing_searches[key] = calls
    _recorded.append((key, calls))


def outcome(problem: Problem | None) -> tuple | None:
    """What Hypothesis tells apart in a test's outcome: passed (None), or failed
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


def oracle_for(course: Course, grader_files: list[str] | None = None, cache_dir: Path | None = None,
               key: str = "") -> Oracle:
    """The course's oracle for these graders (default: all of them), started on
    first use and ended when this process exits; ``cache_dir`` and ``key`` (the
    grading's fingerprint, which names the cache file): see :class:`Oracle`."""
    grader_files = grader_files or course.grader_files()
    known = json.dumps([course.id, grader_files, str(cache_dir or ""), key if cache_dir else ""])
    if known not in _oracles:
        oracle = _oracles[known] = Oracle(grader_files, cache_dir, key)
        atexit.register(lambda: oracle.worker.close())  # the worker in use at exit
    return _oracles[known]


def learnt() -> dict:
    """What this process's oracles and searches know so far, for another process to :func:`learn`."""
    return {"answers": {key: oracle.cache for key, oracle in _oracles.items()}, "specs": dict(_passing_specs),
            "failed": dict(_failing_searches)}


def failed_since(count: int) -> tuple[int, dict]:
    """The failing searches this process recorded after its first ``count``, and
    how many it has recorded now: for the other processes of a grading to learn."""
    return len(_recorded), dict(_recorded[count:])


def learn(known: dict) -> None:
    """Take what another process of this grading learnt (:func:`learnt`, or
    ``{"failed": ...}`` of :func:`failed_since`): the answers of torch.nn it
    was given, the specs its passing searches drew, the failing searches it
    recorded. None depends on a submission's code (a failing search is
    followed only where a submission answers it alike); an oracle this
    process has not started keeps nothing, and is asked again."""
    for key, answers in known.get("answers", {}).items():
        if key in _oracles:
            _oracles[key].cache.update(answers)
            _oracles[key].unsaved = True
    _passing_specs.update(known.get("specs", {}))
    _failing_searches.update(known.get("failed", {}))


def oracles_after_fork() -> None:
    """In a process forked from a grading process: keep what the oracles
    remember, but ask a worker of its own (the parent's answers the parent)."""
    for oracle in _oracles.values():
        oracle.worker = WorkerProcess({"kind": "torch"}, oracle.worker.grader_files)


def package_sources(course: Course, exercise: Exercise, package_dir: Path, mode: str) -> dict[str, str]:
    """The graded package as ``{file: source}``: in ``graft`` mode the
    reference with the exercise's files from the submission, in ``whole``
    mode, or for a ``cumulative`` exercise, the submission's package.

    Raises:
        FileNotFoundError: a file the exercise names is missing.
    """
    package_dir = Path(package_dir)
    graft = mode == GRAFT
    base = course.solutions if graft and not exercise.cumulative else package_dir
    sources = {path.name: path.read_text(encoding="utf-8") for path in sorted(base.glob("*.py"))}
    for name in course.files_read(exercise, (), graft):
        path = package_dir / name
        if not path.is_file():
            raise FileNotFoundError(f"exercise {exercise.id} needs {course.package}/{name}, which is missing from {package_dir}")
        sources[name] = path.read_text(encoding="utf-8", errors="replace")
    return sources


def grade_submission(course: Course, package_dir: Path, exercises: list[Exercise] | None = None,
                     options: GradeOptions = GradeOptions(), student: str = "",
                     progress: Callable[[ExerciseResult], None] | None = None) -> SubmissionResult:
    """Grade the given exercises (default: all) of the package in ``package_dir``.

    Args:
        progress: called with each exercise's result as soon as it is graded.

    Example::

        result = grade_submission(course, Path("solutions/mynn"), student="reference")
    """
    result = SubmissionResult(student=student or Path(package_dir).resolve().parent.name)
    for _, graded in grade_in_turn(course, exercises or course.exercises, lambda exercise: package_dir, options):
        if isinstance(graded, Exception):
            raise graded
        result.exercises.append(graded)
        if progress:
            progress(graded)
    return result


def grade_exercise(course: Course, exercise: Exercise, package_dir: Path,
                   options: GradeOptions = GradeOptions()) -> ExerciseResult:
    """Grade one exercise of one submission; never raises for the submission's faults.

    Returns once its worker, and all the submission's code started, is gone.
    """
    with ExerciseGrading(course, exercise, package_dir, options) as grading:
        return grading.grade()


def grade_in_turn(course: Course, exercises: list[Exercise], folder_of: Callable[[Exercise], Path],
                  options: GradeOptions = GradeOptions()) -> Iterator[tuple[Exercise, ExerciseResult | Exception]]:
    """Grade exercises one after another, yielding each one's result (or the
    exception a fault of the grading itself raised, for the caller to record).

    Each exercise still gets a fresh worker of its own, but the next one starts
    while the current exercise is graded, and each ends while the next is: no
    exercise waits for a worker to start or to be gone. Once the last result
    is taken, every worker is gone.
    """
    stopping, upcoming = [], None
    try:
        for index, exercise in enumerate(exercises):
            grading = upcoming or ExerciseGrading(course, exercise, folder_of(exercise), options)
            upcoming = None
            if index + 1 < len(exercises):
                upcoming = ExerciseGrading(course, exercises[index + 1], folder_of(exercises[index + 1]), options)
                upcoming.start_soon()
            try:
                graded = grading.grade()
            except Exception as error:  # a grader or engine bug: the caller records it
                graded = error
            finally:
                stopping.append(grading.close(wait=False))
            yield exercise, graded
    finally:
        if upcoming is not None:
            upcoming.close()
        for handle in stopping:
            if handle is not None:
                handle.exitcode(STOP_TIMEOUT)


class ExerciseGrading:
    """Grading one exercise of one submission: its worker, its deadline, its verdicts.

    Use as a context manager, so the worker process always ends::

        with ExerciseGrading(course, exercise, "solutions/mynn") as grading:
            test = grading.check(case)
    """

    def __init__(self, course: Course, exercise: Exercise, package_dir: Path, options: GradeOptions = GradeOptions()):
        self.course, self.exercise, self.options = course, exercise, options
        # A student's check needs its own exercise's grader only: loading them all
        # costs seconds (08's imports torch._dynamo) that a check would wait for.
        graders = [str(course.grader_file(exercise))] if options.public_only else course.grader_files()
        key = fingerprint(course, options.key()) if options.oracle_cache else ""
        self.oracle = oracle_for(course, graders, options.oracle_cache, key)
        self.deadline: float | None = None  # set when the submission's code first runs
        self.error, self.worker = "", None
        self.answered: dict[str, dict | WorkerFailed] = {}  # the submission's answers read ahead, by request
        self.timeouts = 0  # scenario timeouts so far: past MAX_TIMEOUTS, the rest fail at once
        graft = options.mode == GRAFT and not exercise.cumulative
        try:
            sources = package_sources(course, exercise, package_dir, options.mode)
        except (FileNotFoundError, UnicodeDecodeError) as missing:
            self.error, sources = str(missing), {}
        own = list(exercise.files) if graft else sorted(sources)
        self.graded = Graded(exercise.id, tuple(own), graft, files_by_exercise(course), reference_sources(course))
        if sources:
            world = {"kind": "package", "package": course.package, "sources": sources, "own": own,
                     "warm_cuda": self._runs_cuda()}
            self.worker = WorkerProcess(world, graders, limits=course.limits)

    def _runs_cuda(self) -> bool:
        """Whether this exercise runs CUDA cases here: its worker then makes its
        CUDA context as soon as it starts (while the exercise before is graded)."""
        if self.options.device == "cpu" or all(s.devices == ("cpu",) for s in self._scenarios()):
            return False
        return self.options.device == "cuda" or self.oracle.cuda

    def _scenarios(self):
        return load_scenarios(self.course, self.exercise, self.options.public_only)

    def __enter__(self) -> "ExerciseGrading":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def start_soon(self) -> None:
        """Start the submission's worker now, to be ready when grading begins."""
        if self.worker is not None:
            self.worker.start_soon()

    def close(self, wait: bool = True):
        """End the worker; with ``wait=False``, return its handle to wait on later."""
        return self.worker.close(wait) if self.worker is not None else None

    def grade(self) -> ExerciseResult:
        """Grade every case of the exercise (as the options select them)."""
        started = time.monotonic()
        cases = [case for s in self._scenarios() for case in s.cases()]
        tests = self.check_all(cases)
        self.oracle.save()
        return _scored(self.exercise, cases, tests, started, self.error)

    def check_all(self, cases: list[Case]) -> list[TestResult]:
        """Every case's verdict, in order. The submission's answers to the cases
        without a random search are asked in one stream, beside torch.nn's, so
        that each world runs while the grading side compares."""
        self._read_ahead([case for case in cases if case.scenario.specs is None and not self._skip_reason(case)])
        return [self.check(case) for case in cases]

    def check(self, case: Case) -> TestResult:
        started = time.monotonic()
        test = TestResult(name=case.name, outcome=PASSED, score=0.0, max_score=0.0, public=case.scenario.public,
                          doc=case.scenario.doc)
        skip = self._skip_reason(case)
        if skip:
            test.outcome, test.note = SKIPPED, skip
            return test
        try:
            if self.worker is None:
                raise Problem(MISSING, self.error)
            if self.options.device == "cuda" and case.needs_cuda and not self.oracle.cuda:
                raise Problem(CUDA, f"{CUDA_ABSENT}, but grading asked for --device cuda")
            if self.timeouts >= MAX_TIMEOUTS:
                raise Problem(TIMEOUT, f"not run: the submission already exceeded its time in {self.timeouts} checks "
                                       "of this exercise")
            if case.scenario.specs is None:
                self._compare(case, case.arguments())
            else:
                self._search(case)
        except Problem as problem:
            test.failure = self.failure(case, problem)
            test.outcome, test.reason = FAILED, problem.reason
        test.seconds = time.monotonic() - started
        return test

    def _read_ahead(self, cases: list[Case]) -> None:
        """Ask both worlds every case's scenario at once, and keep the submission's answers.

        A failure of the submission's worker ends the reading; the cases after
        it are asked one by one, as :meth:`_compare` does for any case not read.
        """
        if self.worker is None or not cases:
            return
        requests = [run_request(case, case.arguments()) for case in cases]
        self._start_clock()
        try:
            answers = self.worker.stream(requests, self.course.limits.scenario_timeout_s,
                                         watch_sleep=not any(case.needs_cuda for case in cases))
        except WorkerFailed:
            return  # each case meets the same failure when it is asked on its own
        self.oracle.observe_many(requests, self.course.limits.scenario_timeout_s * 3)
        try:
            for request in requests:
                key = request_key(request)
                self.answered[key] = answers.next()
        except WorkerFailed as failed:
            self.answered[key] = failed
        finally:
            answers.close()

    def _skip_reason(self, case: Case) -> str:
        if not case.needs_cuda or self.options.device == "cuda":
            return ""
        if self.options.device == "cpu":
            return "CUDA case skipped: grading with --device cpu"
        return "" if self.oracle.cuda else CUDA_ABSENT

    def _start_clock(self) -> None:
        """The submission's clock starts with its own first scenario, so the
        oracle's start-up never counts against the first exercise graded."""
        if self.deadline is None:
            self.deadline = time.monotonic() + self.course.limits.submission_timeout_s

    def _compare(self, case: Case, arguments: dict) -> None:
        request = run_request(case, arguments)
        expected = self.oracle.observe(request, self.course.limits.scenario_timeout_s * 3)
        self._start_clock()
        actual = self.answered.pop(request_key(request), None)  # read ahead, within the limits
        if actual is None and time.monotonic() > self.deadline:
            raise Problem(TIMEOUT, f"submission exceeded {self.course.limits.submission_timeout_s:g} s in all")
        try:
            if isinstance(actual, WorkerFailed):
                raise actual
            if actual is None:
                actual = self.worker.ask(request, self.course.limits.scenario_timeout_s, watch_sleep=not case.needs_cuda)
        except WorkerFailed as failed:
            raise self._worker_problem(failed) from None
        self._judge(case, expected, actual)

    def _judge(self, case: Case, expected: dict, actual: dict) -> None:
        """Compare one answer of each world; raise the Problem they show, if any.

        An observation that is byte for byte torch's passes unread: most do.
        """
        if not has_observation(expected):
            raise RuntimeError(f"grader bug: torch.nn raised in {case.name}: {expected}")
        if not has_observation(actual):
            raised = actual.get("raised") or {"type": "unknown", "message": ""}
            raise Problem(RAISED, raised=raised, expected=observation(expected))
        if actual["observed"] == expected["observed"]:
            return
        try:
            theirs = observation_of(actual)
        except WorkerFailed as failed:
            raise self._worker_problem(failed) from None
        ours = observation(expected)
        difference = compare(ours, theirs, case.scenario.tolerance)
        if difference:
            raise Problem(MISMATCH, difference=difference, expected=ours, actual=theirs)

    def _search(self, case: Case) -> None:
        """Compare on many specs drawn by Hypothesis; keep the smallest that fails.

        A hang, a crash, a failed import or a stub fails the same way for
        every spec, so the search stops at the first one instead of shrinking.
        A search that passed once is replayed first (see ``_passing_specs``),
        and one that failed there as a search before did is followed first
        (see ``_failing_searches``).
        """
        key = (case.scenario.key, case.name)
        first_failure = None
        if key in _passing_specs:
            first_failure = self._replay(case, _passing_specs[key])
            if first_failure is None:
                return
            # Whatever the replay left running, the search (or the detour
            # below) starts from a fresh worker, so that what the submission
            # is asked next never depends on how far the replay read.
            self.worker.close()
            followed = _failing_searches.get((key, first_failure))
            smallest = followed and self._follow(case, followed)
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
                self._compare(case, case.arguments(spec))
            except Problem as problem:
                problem.spec = spec
                if problem.stops_search():
                    raise _StopSearch(problem) from None
                calls.append((spec, outcome(problem)))
                raise
            calls.append((spec, None))

        try:
            property_holds()
        except _StopSearch as stop:
            raise stop.problem from None
        except Problem:
            if first_failure is not None:
                remember_failing((key, first_failure), calls)
            raise
        _passing_specs[key] = [spec for spec, _ in calls]

    def _replay(self, case: Case, specs: list) -> tuple | None:
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
            with closing(self._outcomes(case, chunk)) as outcomes:
                for index, problem in enumerate(outcomes, start):
                    if problem is not None:
                        return index, outcome(problem)
        return None

    def _follow(self, case: Case, calls: list) -> Problem | None:
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
                self._compare(case, case.arguments(spec))
                found = None
            except Problem as problem:
                problem.spec = spec
                if problem.stops_search():
                    raise
                found = problem
            if outcome(found) != recorded:
                self.worker.close()
                return None
        return found

    def _outcomes(self, case: Case, specs: list) -> Iterator[Problem | None]:
        """Each spec's outcome, in order, asked in one stream: None where it
        passes, the Problem where it fails in a way worth shrinking. Raises
        the failures that stop a search, at their spec. Closing it early ends
        the stream (and with it a worker still running the rest)."""
        requests = [run_request(case, case.arguments(spec)) for spec in specs]
        timeout = self.course.limits.scenario_timeout_s
        self._start_clock()
        try:
            answers = self.worker.stream(requests, timeout, watch_sleep=not case.needs_cuda)
        except WorkerFailed as failed:
            problem = self._worker_problem(failed)
            problem.spec = specs[0]
            raise problem from None
        try:
            expected = self.oracle.observe_many(requests, timeout * 3)
            for spec, wanted in zip(specs, expected):
                try:
                    try:
                        actual = answers.next()
                    except WorkerFailed as failed:
                        raise self._worker_problem(failed) from None
                    self._judge(case, wanted, actual)
                except Problem as problem:
                    problem.spec = spec
                    if problem.stops_search():
                        raise
                    yield problem
                    continue
                yield None
        finally:
            answers.close()

    def _worker_problem(self, failed: WorkerFailed) -> Problem:
        if failed.kind == TIMEOUT and failed is not self.worker.refusal:  # a refusal costs no wait again
            self.timeouts += 1
        if failed.kind == IMPORT:
            error = self.worker.load_error or {}
            where = f" ({file_line(error['file'], error.get('line'))})" if error.get("file") else ""
            self.error = f"your package did not import: {error.get('type')}{where}: {error.get('message', '')}"
            return Problem(IMPORT, "your package did not import", raised=error)
        return Problem(failed.kind, str(failed))

    def failure(self, case: Case, problem: Problem) -> Failure:
        """The failure record: what each world did, where, and what it means.

        A hint is a misconception whose detector found evidence in this very
        failure; a stub (nothing written yet) gets none, and an exception gets
        the explanation its record supports.
        """
        failure = Failure(problem.reason, message=problem.message,
                          smallest_case=None if problem.spec is None else show(problem.spec, 300))
        evidence = None
        if problem.difference is not None:
            found = problem.difference
            failure.where, failure.detail = found.where, found.detail
            failure.torch, failure.yours = show(found.expected), show(found.actual)
            inside = _stub_record(problem.actual)
            if inside:
                failure.explanation = explain_raised(inside, self.graded)
            evidence = Evidence.of(problem.expected, problem.actual, found, None, case.scenario.tolerance)
        elif problem.raised is not None:
            failure.raised = self._with_exercise(problem.raised)
            failure.explanation = explain_raised(problem.raised, self.graded)
            evidence = Evidence.of(problem.expected, None, None, problem.raised)
        if evidence is not None and problem.stub is None:
            failure.misconceptions = [m.as_record() for m in detect(case.scenario.misconceptions, evidence)]
        return failure

    def _with_exercise(self, raised: dict) -> dict:
        """The exception record as the failure shows it: type, message, file, line, exercise."""
        shown = {key: raised[key] for key in ("type", "message", "file", "line") if key in raised}
        if raised.get("file") in self.graded.exercise_of_file:
            shown["exercise"] = self.graded.exercise_of_file[raised["file"]]
        return shown


def run_request(case: Case, arguments: dict) -> dict:
    """The request that runs ``case``'s scenario body with these arguments, in either world."""
    return {"op": "run", "scenario": case.scenario.key, "arguments": arguments}


def files_by_exercise(course: Course) -> dict[str, str]:
    """Each package file's exercise: ``{"walk.py": "03", ...}``."""
    return {name: exercise.id for exercise in course.exercises for name in exercise.files}


_reference_sources: dict[str, dict[str, str]] = {}


def reference_sources(course: Course) -> dict[str, str]:
    """The reference package's files, read once per process."""
    key = str(course.solutions)
    if key not in _reference_sources:
        _reference_sources[key] = {path.name: path.read_text(encoding="utf-8")
                                   for path in sorted(course.solutions.glob("*.py"))}
    return _reference_sources[key]


def _scored(exercise: Exercise, cases: list[Case], tests: list[TestResult], started: float,
            error: str = "") -> ExerciseResult:
    """Weight each counted test by its scenario's points; skipped tests do not count."""
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


def _stub_record(observation, depth: int = 0) -> dict | None:
    """The first exception record in an observation that a stub raised, if any."""
    if depth > 60:
        return None
    if isinstance(observation, dict):
        if RAISED_TAG in observation:
            return observation[RAISED_TAG] if stub_of(observation[RAISED_TAG]) else None
        observation = list(observation.values())
    if isinstance(observation, list):
        for item in observation:
            found = _stub_record(item, depth + 1)
            if found:
                return found
    return None
