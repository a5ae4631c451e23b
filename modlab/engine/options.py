"""How to grade: the options every consumer passes to the engine."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

GRAFT, WHOLE = "graft", "whole"


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
        oracle_cache: a folder that keeps torch's answers between processes
            (a student's checks), or None (kept by this process only).
        exercises: the ids of every exercise this grading grades; empty: the
            whole course. The workers load these exercises' graders only: a
            grading of one exercise in a course that has them all (an nbgrader
            assignment, ``modlab grade -e``) does not wait for the others'
            imports (08's workers import torch._dynamo: over a second of CPU).
    """

    mode: str = GRAFT
    device: str = "auto"
    public_only: bool = False
    oracle_cache: Path | None = None
    exercises: tuple[str, ...] = ()

    def key(self) -> dict:
        """The options that change a grade, as plain data (where answers are kept does not)."""
        return {"mode": self.mode, "device": self.device, "public_only": self.public_only}
