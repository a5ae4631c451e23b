"""Grading one exercise of one submission: its worker, its deadline, each case's verdict.

:class:`ExerciseGrading` starts the submission's worker on the graded
package (:func:`package_sources`: grafted into the reference, or whole),
asks both worlds every case, and records each verdict (:mod:`.verdict`,
:mod:`.search` for property checks) with its score (:mod:`.scoring`).
:func:`grade_exercise`, :func:`grade_in_turn` and :func:`grade_submission`
grade whole exercises with it.
"""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Callable, Iterator

from modlab.course import Course, Exercise
from modlab.fingerprint import fingerprint
from modlab.formats.feedback import file_line
from modlab.grading.explain import Graded
from modlab.grading.loader import load_scenarios
from modlab.grading.scenario import Case
from modlab.isolation.process import STOP_TIMEOUT, WorkerFailed, WorkerProcess
from modlab.records import CUDA, FAILED, IMPORT, MISSING, PASSED, SKIPPED, TIMEOUT, ExerciseResult, SubmissionResult, \
    TestResult

from .memory import Memory, process_memory
from .options import GRAFT, GradeOptions
from .oracle import request_key
from .scoring import scored
from .search import search
from .verdict import Problem, failure_record, judge

CUDA_ABSENT = "CUDA not available"
# A submission that hangs would cost every remaining check a full scenario
# timeout: after this many in one exercise, its remaining checks fail at once.
# (One that sleeps is found out sooner: see modlab.isolation.sleep. CUDA cases
# are not watched for sleep, since a worker may wait on its device.)
MAX_TIMEOUTS = 2


def scenario_request(case: Case, arguments: dict) -> dict:
    """The request that runs ``case``'s scenario body with these arguments, in either world."""
    return {"op": "run", "scenario": case.scenario.key, "arguments": arguments}


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


def files_by_exercise(course: Course) -> dict[str, str]:
    """Each package file's exercise: ``{"losses.py": "03", ...}``."""
    return {name: exercise.id for exercise in course.exercises for name in exercise.files}


def grade_submission(course: Course, package_dir: Path, exercises: list[Exercise] | None = None,
                     options: GradeOptions = GradeOptions(), student: str = "",
                     progress: Callable[[ExerciseResult], None] | None = None,
                     memory: Memory | None = None) -> SubmissionResult:
    """Grade the given exercises (default: all) of the package in ``package_dir``.

    Args:
        progress: called with each exercise's result as soon as it is graded.
        memory: what this grading learns and uses (default: the process's).

    Raises:
        Exception: a fault of the grading itself (a grader, the engine), never the submission's.

    Example::

        result = grade_submission(course, Path("solutions/mynn"), student="reference")
    """
    result = SubmissionResult(student=student or Path(package_dir).resolve().parent.name)
    if exercises and not options.exercises:
        options = dataclasses.replace(options, exercises=tuple(exercise.id for exercise in exercises))
    for _, graded in grade_in_turn(course, exercises or course.exercises, lambda exercise: package_dir, options,
                                   memory):
        if isinstance(graded, Exception):
            raise graded
        result.exercises.append(graded)
        if progress:
            progress(graded)
    return result


def grade_exercise(course: Course, exercise: Exercise, package_dir: Path,
                   options: GradeOptions = GradeOptions(), memory: Memory | None = None) -> ExerciseResult:
    """Grade one exercise of one submission; never raises for the submission's faults.

    Returns once its worker, and all the submission's code started, is gone.
    """
    with ExerciseGrading(course, exercise, package_dir, options, memory) as grading:
        return grading.grade()


def grade_in_turn(course: Course, exercises: list[Exercise], folder_of: Callable[[Exercise], Path],
                  options: GradeOptions = GradeOptions(),
                  memory: Memory | None = None) -> Iterator[tuple[Exercise, ExerciseResult | Exception]]:
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
            grading = upcoming or ExerciseGrading(course, exercise, folder_of(exercise), options, memory)
            upcoming = None
            if index + 1 < len(exercises):
                following = exercises[index + 1]
                upcoming = ExerciseGrading(course, following, folder_of(following), options, memory)
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

    Use as a context manager, so the worker process always ends; the pytest
    plugin asks it one case at a time::

        with ExerciseGrading(course, exercise, "solutions/mynn") as grading:
            test = grading.check(case)
    """

    def __init__(self, course: Course, exercise: Exercise, package_dir: Path, options: GradeOptions = GradeOptions(),
                 memory: Memory | None = None):
        self.course, self.exercise, self.options = course, exercise, options
        self.memory = memory or process_memory()
        # A student's check needs its own exercise's grader only, and a grading the graders of
        # the exercises it grades: loading them all costs seconds (08's workers import torch._dynamo).
        graders = [str(course.grader_file(exercise))] if options.public_only else course.grader_files(options.exercises)
        key = fingerprint(course, options.key()) if options.oracle_cache else ""
        self.oracle = self.memory.oracle(course, graders, options.oracle_cache, key)
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
        self.graded = Graded(exercise.id, tuple(own), graft, files_by_exercise(course), self.memory.reference(course),
                             str(course.root.resolve()))
        if sources:
            world = {"kind": "package", "package": course.package, "sources": sources, "own": own,
                     "warm_cuda": self._runs_cuda(), "oracle": course.oracle.spec()}
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

    def restart(self) -> None:
        """End the worker: the next request starts a fresh one."""
        self.worker.close()

    def grade(self) -> ExerciseResult:
        """Grade every case of the exercise (as the options select them)."""
        started = time.monotonic()
        cases = [case for s in self._scenarios() for case in s.cases()]
        tests = self.check_all(cases)
        self.oracle.save()
        return scored(self.exercise, cases, tests, started, self.error)

    def check_all(self, cases: list[Case]) -> list[TestResult]:
        """Every case's verdict, in order. The submission's answers to the cases
        without a random search are asked in one stream, beside torch's, so
        that each world runs while the grading side compares."""
        self._read_ahead([case for case in cases if case.scenario.specs is None and not self._skip_reason(case)])
        return [self.check(case) for case in cases]

    def check(self, case: Case) -> TestResult:
        """One case's verdict (its score is set by :func:`~.scoring.scored`)."""
        started = time.monotonic()
        test = TestResult(name=case.name, outcome=PASSED, score=0.0, max_score=0.0, public=case.scenario.public,
                          doc=case.scenario.doc)
        skip = self._skip_reason(case)
        if skip:
            test.outcome, test.note = SKIPPED, skip
            return test
        try:
            self._ready_for(case)
            if case.scenario.specs is None:
                self.compare(case, case.arguments())
            else:
                search(self, case)
        except Problem as problem:
            test.failure = failure_record(case, problem, self.graded)
            test.outcome, test.reason = FAILED, problem.reason
            self._torch_at_the_line(case, problem, test.failure.explanation)
        test.seconds = time.monotonic() - started
        return test

    def _torch_at_the_line(self, case: Case, problem: Problem, facts: dict | None) -> None:
        """Where a check's own code failed on what the package returned, what torch's run
        held at that line: its worker runs the case again and stops there."""
        if not facts or facts.get("kind") != "scenario" or "yours" not in facts or problem.raised is None:
            return  # a hidden check, or nothing the line names was held in the submission's world
        run = scenario_request(case, case.arguments(problem.spec))
        request = {"op": "values_at", "run": run, "file": problem.raised["scenario_file"],
                   "line": problem.raised["scenario_line"]}
        try:
            answer = self.oracle.worker.ask(request, self.course.limits.scenario_timeout_s * 3)
        except WorkerFailed:
            return  # the facts stand without it
        facts["torch"] = answer.get("values", {})

    def _ready_for(self, case: Case) -> None:
        """Raise the problem that fails ``case`` before anything is asked, if any."""
        if self.worker is None:
            raise Problem(MISSING, self.error)
        if self.options.device == "cuda" and case.needs_cuda and not self.oracle.cuda:
            raise Problem(CUDA, f"{CUDA_ABSENT}, but grading asked for --device cuda")
        if self.timeouts >= MAX_TIMEOUTS:
            raise Problem(TIMEOUT, f"not run: the submission already exceeded its time in {self.timeouts} checks "
                                   "of this exercise")

    def _read_ahead(self, cases: list[Case]) -> None:
        """Ask both worlds every case's scenario at once, and keep the submission's answers.

        A failure of the submission's worker ends the reading; the cases after
        it are asked one by one, as :meth:`compare` does for any case not read.
        """
        if self.worker is None or not cases:
            return
        requests = [scenario_request(case, case.arguments()) for case in cases]
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

    def compare(self, case: Case, arguments: dict) -> None:
        """Ask both worlds ``case`` with these arguments; raise the problem their answers show, if any."""
        request = scenario_request(case, arguments)
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
        judge(case, expected, actual)

    def outcomes(self, case: Case, specs: list) -> Iterator[Problem | None]:
        """Each spec's outcome, in order, asked in one stream: None where it
        passes, the Problem where it fails in a way worth shrinking. Raises
        the failures that stop a search, at their spec. Closing it early ends
        the stream (and with it a worker still running the rest)."""
        requests = [scenario_request(case, case.arguments(spec)) for spec in specs]
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
                    judge(case, wanted, actual)
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
