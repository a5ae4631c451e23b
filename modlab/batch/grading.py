"""One class's grading: what it grades, with which graders and options, and how.

A :class:`Batch` knows the exercises and options of one class's grading and
what its grades depend on (its key: :func:`modlab.fingerprint.fingerprint`), grades the reference once to warm up,
and grades one submission into its :class:`~.store.Record`. Which
submissions are left to grade is :func:`pending`'s: those without a record
that still matches their files and the graders.
"""
from __future__ import annotations

import hashlib

from modlab.course import Course, Exercise
from modlab.engine import GRAFT, GradeOptions, Memory, grade_exercise, grade_in_turn, process_memory
from modlab.fingerprint import fingerprint
from modlab.grading.loader import load_course_scenarios
from modlab.records import GRADING_FAILED, ExerciseResult, SubmissionResult

from .layout import Submission
from .store import Record, ResultStore


class Batch:
    """One class's grading: the exercises, the options, and what they amount to.

    Creating it imports every grader, and checks the course's catalog against
    them, so processes forked afterwards start with torch and the graders
    already loaded.
    """

    def __init__(self, course: Course, exercises: list[Exercise], options: GradeOptions = GradeOptions(),
                 memory: Memory | None = None):
        self.course, self.exercises, self.options = course, list(exercises), options
        # What its grading learns (default: this process's): forked grading processes start with it.
        self.memory = memory or process_memory()
        load_course_scenarios(course)  # every grader, so the catalog is checked before anyone is graded
        self.key = fingerprint(course, options.key(), self.exercises)  # what its grades depend on

    def manifest(self, students: list[str], shard: tuple[int, int]) -> dict:
        """What a results folder grading these students holds (its ``batch.json``)."""
        return {"course": self.course.id, "grading_key": self.key, "exercises": [e.id for e in self.exercises],
                "shard": list(shard), "students": students}

    def warm(self, exercises: list[Exercise] | None = None) -> list[str]:
        """Grade the reference once, so that this process and those forked from it
        know torch.nn's answers and replay the specs of every Hypothesis search
        (see ``modlab.engine``) for every submission alike.

        Args:
            exercises: those to warm up (default: all the batch grades).

        Returns:
            Where the reference does not score full marks: a grader to check.
        """
        doubts = []
        for exercise in self.exercises if exercises is None else exercises:
            try:
                graded = grade_exercise(self.course, exercise, self.course.solutions, self.options, self.memory)
            except Exception as error:  # every submission's record will say so too
                doubts.append(f"exercise {exercise.id}: {type(error).__name__}: {error}")
                continue
            if graded.score < graded.max_score - 1e-9:
                doubts.append(f"exercise {exercise.id}: the reference scores {graded.score:.2f} of {graded.max_score:g}")
        return doubts

    def submission_sha256(self, submission: Submission) -> str:
        """A digest of every file of the submission that grading reads."""
        digest = hashlib.sha256()
        for exercise in self.exercises:
            folder = submission.folder(exercise.id)
            present = (path.name for path in folder.glob("*.py"))
            for name in self.course.files_read(exercise, present, self.options.mode == GRAFT):
                digest.update(f"\0{exercise.id}/{name}\0".encode())
                digest.update((folder / name).read_bytes() if (folder / name).is_file() else b"\0missing")
        return digest.hexdigest()

    def grade(self, submission: Submission) -> Record:
        """Grade every exercise; a fault of the grading itself costs only its exercise."""
        result, failures = SubmissionResult(student=submission.student), []

        def folder_of(exercise: Exercise):
            return submission.folder(exercise.id)

        for exercise, graded in grade_in_turn(self.course, self.exercises, folder_of, self.options, self.memory):
            if isinstance(graded, Exception):  # a grader or engine bug: record it, never a silent zero
                failures.append(f"exercise {exercise.id}: {type(graded).__name__}: {graded}")
                graded = self._ungraded(exercise, failures[-1])
            result.exercises.append(graded)
        return Record(result, self.key, self.submission_sha256(submission), "; ".join(failures))

    def failed(self, submission: Submission, why: str) -> Record:
        """The record of a submission whose grading process died."""
        result = SubmissionResult(submission.student, [self._ungraded(e, why) for e in self.exercises])
        return Record(result, self.key, self.submission_sha256(submission), why)

    @staticmethod
    def _ungraded(exercise: Exercise, why: str) -> ExerciseResult:
        return ExerciseResult(id=exercise.id, score=0.0, max_score=float(exercise.points),
                              error=f"{GRADING_FAILED} ({why}); not the submission's fault, grade it again")


def pending(batch: Batch, store: ResultStore, submissions: list[Submission]) -> list[Submission]:
    """The submissions without a finished record that still matches their files and the graders."""
    return [s for s in submissions if not _finished(batch, store.load(s.student), s)]


def _finished(batch: Batch, record: Record | None, submission: Submission) -> bool:
    return (record is not None and not record.failure and record.grading_key == batch.key
            and record.submission_sha256 == batch.submission_sha256(submission))
