"""Result records: the contract between the engine and everything that shows a grade.

The engine (:mod:`modlab.engine`) writes them; every output reads them and
nothing else: the formats (terminal, JSON, JUnit, Gradescope, CSV, Markdown),
nbgrader's feedback, the report, ``modlab status``, the batch's store. The
words below are the one vocabulary of outcomes and reasons every layer uses.
Imports nothing of modlab.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

# What became of one test.
PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"

# Why a test failed, one word each: the submission answered differently
# (mismatch) or raised; its worker hung, crashed, could not import the
# package, reached a limit, was caught tampering or answered nonsense; a file
# the exercise needs is missing; or a CUDA case could not run where CUDA was required.
MISMATCH, RAISED = "mismatch", "raised"
TIMEOUT, CRASH, IMPORT, LIMIT, TAMPER, PROTOCOL = "timeout", "crash", "import", "limit", "tamper", "protocol"
WORKER_REASONS = (TIMEOUT, CRASH, IMPORT, LIMIT, TAMPER, PROTOCOL)
MISSING, CUDA = "missing", "cuda"
REASONS = (MISMATCH, RAISED, *WORKER_REASONS, MISSING, CUDA)
# The reasons that fail every test of an exercise alike, whatever the test checks.
WHOLE_EXERCISE = (MISSING, IMPORT)

# What became of one submission's grading: graded, or failed through a fault
# of the grading itself (a grader, the engine; never the submission's), so
# that it has no score and is graded again.
GRADED, GRADING_FAILED = "graded", "grading failed"


@dataclass
class Failure:
    """Why one check failed, as facts; :mod:`modlab.formats.feedback` puts them
    into words for every output, and nothing parses them back.

    Attributes:
        reason: one word (see ``REASONS``).
        message: what happened, for failures that compared nothing
            (``scenario exceeded 10 s``, ``your package did not import``).
        where: the place the observations part, in the check's own names
            (``parameters · 'decoder.weight' · dtype``); empty at the top.
        torch: what torch gave there, shown.
        yours: what the submission gave there, shown.
        detail: what differs when the values alone do not say
            (``missing `decoder.weight```, ``largest gap 0.3``).
        smallest_case: the smallest failing case a random search found, shown.
        raised: the submission's exception: ``type``, ``message``, and where
            known ``file``, ``line`` and the ``exercise`` that file belongs to.
        explanation: what the exception means, when the facts say it:
            ``{"kind": "stub", "function": ..., ...}`` (see :mod:`modlab.grading.explain`).
        misconceptions: ``{"id": ..., "text": ...}`` for each misconception
            whose detector found evidence in this failure.
    """

    reason: str
    message: str = ""
    where: str = ""
    torch: str | None = None
    yours: str | None = None
    detail: str = ""
    smallest_case: str | None = None
    raised: dict | None = None
    explanation: dict | None = None
    misconceptions: list[dict] = field(default_factory=list)

    @property
    def misconception_ids(self) -> list[str]:
        return [m["id"] for m in self.misconceptions]


@dataclass
class TestResult:
    """One grader test (a scenario on one device) for one submission."""

    name: str
    outcome: str
    score: float
    max_score: float
    note: str = ""  # why a skipped test was skipped
    public: bool = False
    reason: str = ""  # for failures: one of REASONS
    seconds: float = 0.0
    doc: str = ""  # what the check checks (its scenario's docstring line)
    failure: Failure | None = None


@dataclass
class ExerciseResult:
    """All grader tests of one exercise for one submission."""

    id: str
    score: float
    max_score: float
    tests: list[TestResult] = field(default_factory=list)
    error: str = ""  # why nothing could be graded (missing file, import failure), if so
    seconds: float = 0.0

    @property
    def passed(self) -> int:
        return sum(t.outcome == PASSED for t in self.tests)

    @property
    def failed(self) -> int:
        return sum(t.outcome == FAILED for t in self.tests)

    @property
    def skipped(self) -> int:
        return sum(t.outcome == SKIPPED for t in self.tests)


@dataclass
class SubmissionResult:
    """Everything graded for one submission (one student's package)."""

    student: str
    exercises: list[ExerciseResult] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(e.score for e in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(e.max_score for e in self.exercises)

    def to_json(self) -> dict:
        return {
            "student": self.student,
            "score": _round(self.score),
            "max_score": _round(self.max_score),
            "exercises": [_exercise_json(e) for e in self.exercises],
        }

    @classmethod
    def from_json(cls, data: dict) -> "SubmissionResult":
        exercises = []
        for item in data["exercises"]:
            tests = [_test_from_json(test) for test in item.pop("tests")]
            exercises.append(ExerciseResult(tests=tests, **item))
        return cls(student=data["student"], exercises=exercises)


def _test_from_json(data: dict) -> TestResult:
    failure = data.pop("failure", None)
    feedback = data.pop("feedback", "")  # rendered from the facts when written: not read back
    data.setdefault("note", feedback if data.get("outcome") == SKIPPED else "")
    if failure and isinstance(failure.get("explanation"), str):  # a record written before explanations were facts
        failure["explanation"] = {"kind": "note", "text": failure["explanation"]} if failure["explanation"] else None
    return TestResult(failure=Failure(**failure) if failure else None, **data)


def _exercise_json(exercise: ExerciseResult) -> dict:
    data = asdict(exercise)
    data["score"] = _round(exercise.score)
    data["max_score"] = _round(exercise.max_score)
    for test in data["tests"]:
        test["score"] = _round(test["score"])
        test["max_score"] = _round(test["max_score"])
        test["seconds"] = round(test["seconds"], 4)
    data["seconds"] = round(exercise.seconds, 3)
    return data


def _round(value: float) -> float:
    return round(value, 4)
