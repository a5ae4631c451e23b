"""How much of each student's own code is found in each other student's.

For one exercise this is a matrix: ``share[a, b]`` is the part of student
``a``'s fingerprints (starter code removed) that student ``b``'s file of the
same name holds too; an exercise of several files counts over all of them.
It is MOSS's containment measure; copydetect measures the characters those
fingerprints cover instead, which differs at the edges of each shared run.

copydetect compares one pair of files at a time (about a millisecond each,
180,000 pairs for 200 students and 9 exercises). Here each file has an
inverted index, from every fingerprint two or more students hold to the
students holding it, as a 0/1 matrix: one matrix product counts the
fingerprints every pair shares.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .documents import Document


@dataclass(frozen=True)
class Overlaps:
    """For the students of one exercise (in ``students`` order): ``shared[a, b]``, the
    fingerprints of ``a``'s own code also in ``b``'s, and ``own[a]``, all of ``a``'s."""

    students: list[str]
    shared: np.ndarray
    own: np.ndarray

    def share(self) -> np.ndarray:
        """``share[a, b]``: the part of ``a``'s own code found in ``b``'s (0 where ``a`` has none)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.nan_to_num(self.shared / self.own[:, None])


def exercise_overlaps(students: list[str], documents: list[Document]) -> Overlaps:
    """The overlaps of every pair of students, over every file of the exercise.

    Example::

        >>> overlaps = exercise_overlaps(["ada", "bob"], [ada_walk, bob_walk])
        >>> overlaps.share()      # ada's code is all in bob's; bob wrote more
        array([[0. , 1. ],
               [0.5, 0. ]])
    """
    row = {student: i for i, student in enumerate(students)}
    shared = np.zeros((len(students), len(students)), dtype=np.int64)
    own = np.zeros(len(students), dtype=np.int64)
    for file in dict.fromkeys(d.file for d in documents):
        same_file = [d for d in documents if d.file == file]
        rows = np.array([row[d.student] for d in same_file], dtype=np.intp)
        shared[np.ix_(rows, rows)] += file_overlaps(same_file)
        own[rows] += [d.distinct.size for d in same_file]
    return Overlaps(students, shared, own)


def file_overlaps(documents: list[Document]) -> np.ndarray:
    """``shared[a, b]`` for one file: how many of ``documents[a]``'s fingerprints
    ``documents[b]`` holds too (the diagonal is 0)."""
    holders = _holders(documents)
    shared = np.rint(holders @ holders.T).astype(np.int64)  # exact: counts far below 2**24
    np.fill_diagonal(shared, 0)
    return shared


def _holders(documents: list[Document]) -> np.ndarray:
    """``holders[b, f]``: 1 where document ``b`` holds fingerprint ``f``, over the fingerprints
    held by two documents or more (one only a single document holds can match nothing,
    so the matrix stays small however much code the class wrote)."""
    every = np.concatenate([d.distinct for d in documents]) if documents else np.array([], dtype=np.int64)
    values, counts = np.unique(every, return_counts=True)
    index = values[counts > 1]
    holders = np.zeros((len(documents), index.size), dtype=np.float32)
    for b, document in enumerate(documents):
        column = np.searchsorted(index, document.distinct).clip(max=max(index.size - 1, 0))
        if index.size:
            holders[b, column[index[column] == document.distinct]] = 1
    return holders
