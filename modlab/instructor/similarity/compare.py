"""Compare every pair of students of a class, exercise by exercise.

The flow: read each student's files of each exercise (a file that cannot be
read is a line, not a crash), tokenise them with copydetect, drop the
fingerprints of the starter code, find every pair's overlap with one
inverted index per file, choose the threshold, and keep the pairs at or
above it.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from modlab.batch.layout import find_submissions
from modlab.course import Course, Exercise

from .documents import Document, fingerprint, read_exercise, starter_fingerprints, tokenise_all
from .pairs import exercise_overlaps
from .threshold import Threshold, chosen_threshold, given_threshold

# A student is compared only with this many fingerprints of their own code (beyond the
# starter code: about five lines): a stub with a one-line helper filled in is the same
# in everyone's hands.
MIN_OWN_FINGERPRINTS = 100


@dataclass(frozen=True)
class Pair:
    """Two students whose code for one exercise is alike, ``first`` the one more of
    whose own code is found in the other's."""

    first: str
    second: str
    first_in_second: float  # the part of first's own code also found in second's
    second_in_first: float

    @property
    def score(self) -> float:
        return self.first_in_second


@dataclass
class ExerciseSimilarity:
    """One exercise across the class: the flagged pairs and what went into them."""

    exercise: Exercise
    threshold: Threshold
    flagged: list[Pair]
    compared: list[str]  # students with enough code of their own
    little_code: list[str]  # students whose files are (almost) only the starter code
    problems: list[str]  # "ada: losses.py missing"
    median: float | None  # of every compared pair's score
    documents: dict[tuple[str, str], Document] = field(repr=False, default_factory=dict)  # (student, file)


def compare_class(course: Course, folder: Path, exercises: list[Exercise] | None = None,
                  threshold: float | None = None, jobs: int = 1,
                  stages: dict[str, float] | None = None) -> list[ExerciseSimilarity]:
    """Compare every pair of students of the class in ``folder``, for each exercise.

    Args:
        folder: a class folder, as ``modlab grade CLASS`` takes it.
        exercises: the exercises to compare (default: all).
        threshold: flag pairs at or above this score (0..1); by default it is
            chosen from each exercise's pairs (see :mod:`modlab.instructor.similarity.threshold`).
        jobs: processes that tokenise files.
        stages: if given, filled with the seconds each stage took.

    Returns:
        One :class:`ExerciseSimilarity` per exercise, in the order given.

    Raises:
        ValueError: ``folder`` holds no submissions.

    Example::

        >>> [s.flagged for s in compare_class(course, Path("class"), [course.exercise("10")])]
        [[Pair(first='ada', second='dan', first_in_second=1.0, second_in_first=1.0)]]
    """
    stages = {} if stages is None else stages
    with _timed(stages, "read"):
        submissions = find_submissions(folder, course)
        students = [s.student for s in submissions]
        read = [(exercise, *read_exercise(submissions, exercise)) for exercise in exercises or course.exercises]
    with _timed(stages, "tokenise"):
        tokens = tokenise_all([text for _, files, _ in read for _, _, text in files], jobs)
    with _timed(stages, "fingerprint"):
        starter = starter_fingerprints(course)
    results = []
    for exercise, files, problems in read:
        with _timed(stages, "fingerprint"):
            documents = [fingerprint(student, file, text, tokens[text], starter) for student, file, text in files]
        with _timed(stages, "pairs"):
            results.append(_exercise_similarity(exercise, students, documents, problems, threshold))
    return results


def _exercise_similarity(exercise: Exercise, students: list[str], documents: list[Document],
                         problems: list[str], threshold: float | None) -> ExerciseSimilarity:
    overlaps = exercise_overlaps(students, documents)
    share = overlaps.share()
    compared = np.flatnonzero(overlaps.own >= MIN_OWN_FINGERPRINTS)
    written = {d.student for d in documents}
    little = [students[i] for i in np.flatnonzero(overlaps.own < MIN_OWN_FINGERPRINTS) if students[i] in written]
    first, second = np.triu_indices(compared.size, k=1)
    a, b = compared[first], compared[second]
    scores = np.maximum(share[a, b], share[b, a])
    chosen = chosen_threshold(scores) if threshold is None else given_threshold(threshold)
    flagged = [_pair(students, share, i, j) for i, j, score in zip(a, b, scores) if score >= chosen.value]
    flagged.sort(key=lambda p: (-p.score, -p.second_in_first, p.first, p.second))
    return ExerciseSimilarity(
        exercise, chosen, flagged, [students[i] for i in compared], little, problems,
        float(np.median(scores)) if scores.size else None, {(d.student, d.file): d for d in documents})


def _pair(students: list[str], share: np.ndarray, i: int, j: int) -> Pair:
    if share[j, i] > share[i, j]:
        i, j = j, i
    return Pair(students[i], students[j], float(share[i, j]), float(share[j, i]))


@contextmanager
def _timed(stages: dict[str, float], stage: str):
    started = time.perf_counter()
    try:
        yield
    finally:
        stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - started
