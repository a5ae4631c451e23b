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
    """Why one check failed, as data; renderers format it, nothing parses it back.

    Attributes:
        reason: one word (see ``REASONS``).
        message: what happened, for failures that compared nothing
            (``scenario exceeded 10 s``, ``your package did not import``).
        where: the place the observations part, in the check's own names
            (``parameters · 'decoder.weight' · dtype``); empty at the top.
        torch: what torch.nn gave there, shown.
        yours: what the submission gave there, shown.
        detail: what differs when the values alone do not say
            (``missing `decoder.weight```, ``largest gap 0.3``).
        smallest_case: the smallest failing case a random search found, shown.
        raised: the submission's exception: ``type``, ``message``, and where
            known ``file``, ``line`` and the ``exercise`` that file belongs to.
        explanation: what the exception means, when the facts say it (a stub
            still to fill in, a name the reference package does not provide).
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
    explanation: str = ""
    misconceptions: list[dict] = field(default_factory=list)

    @property
    def misconception_ids(self) -> list[str]:
        return [m["id"] for m in self.misconceptions]

    def problem(self) -> str:
        """What went wrong, in one sentence, without hints."""
        if self.reason == MISMATCH:
            where = f" at {self.where}" if self.where else ""
            detail = f" ({self.detail})" if self.detail else ""
            return f"torch.nn gave {self.torch}, your mynn gave {self.yours}{where}{detail}"
        if self.reason == RAISED and self.raised:
            place = f" ({self.raised['file']}:{self.raised.get('line', '?')})" if self.raised.get("file") else ""
            expected = f"torch.nn gave {self.torch}, " if self.torch else ""
            return f"{expected}your mynn raised {self.raised['type']}{place}: {self.raised['message']}"
        if self.raised:  # an import failure: what it raised, where
            place = f" ({self.raised['file']}:{self.raised.get('line', '?')})" if self.raised.get("file") else ""
            return f"{self.message}: {self.raised['type']}{place}: {self.raised['message']}"
        return self.message

    def text(self, lead: str = "") -> str:
        """The whole failure on one line: ``lead: problem. Smallest failing case: ...
        . Hint: ...``, what ``feedback`` holds and one-line outputs show."""
        parts = [f"{lead}: {self.problem()}" if lead else self.problem()]
        if self.smallest_case:
            parts.append(f"Smallest failing case: {self.smallest_case}")
        if self.explanation:
            parts.append(self.explanation)
        if self.misconceptions:
            parts.append("Hint: " + "; ".join(m["text"] for m in self.misconceptions))
        return _one_line(". ".join(parts))


@dataclass
class TestResult:
    """One grader test (a scenario on one device) for one submission."""

    name: str
    outcome: str
    score: float
    max_score: float
    feedback: str = ""  # the rendered text: Failure.text() for failures, the reason for skips
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


def _one_line(text: str, limit: int = 900) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
