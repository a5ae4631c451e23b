"""Result records: the one shape every output format is written from."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


@dataclass
class TestResult:
    """One grader test (a scenario on one device) for one submission."""

    name: str
    outcome: str
    score: float
    max_score: float
    feedback: str = ""
    public: bool = False
    reason: str = ""  # for failures: mismatch, raised, timeout, crash, import, limit, tamper
    seconds: float = 0.0


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
            tests = [TestResult(**test) for test in item.pop("tests")]
            exercises.append(ExerciseResult(tests=tests, **item))
        return cls(student=data["student"], exercises=exercises)


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
