"""Students' files as copydetect sees them: tokenised code and its fingerprints,
with the starter code taken out.

copydetect tokenises code with Pygments and replaces every variable, function
and class name with one letter (``V``, ``F``, ``O``) and every string with
``S``, dropping whitespace and comments. Its fingerprints are the hashes of
every run of ``K`` characters of that text (copydetect's noise threshold: a
match shorter than that never counts). Renaming variables, reformatting and
adding comments therefore leave the fingerprints as they were.

A fingerprint that also occurs in the starter code (the stubs `modlab release`
hands out, and every code block the lessons show) is dropped: what remains is
the student's *own code*, the only code a copy can be found in.
"""
from __future__ import annotations

import concurrent.futures
import multiprocessing
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from copydetect.defaults import NOISE_THRESHOLD
from copydetect.utils import filter_code, hashed_kgrams

from modlab.batch.layout import Submission
from modlab.course import Course, Exercise
from modlab.instructor.build import stub_sources
from modlab.instructor.notebooks import lesson_path, split_cells

K = NOISE_THRESHOLD  # characters of tokenised code in one fingerprint (copydetect's default, 25)
LANGUAGE = "python"  # named, not guessed from the file name: guessing costs more than lexing
Tokens = tuple[str, np.ndarray]  # copydetect's tokenised text, and its offsets


@dataclass(frozen=True)
class Document:
    """One student's file of one exercise, fingerprinted.

    ``positions`` are the offsets in ``filtered`` of the fingerprints kept
    (those not found in the starter code), ascending; ``hashes`` their
    hashes, and ``distinct`` the same without repeats, sorted: the
    student's own code, as :mod:`~modlab.instructor.similarity.pairs` compares it.
    """

    student: str
    file: str
    text: str
    filtered: str
    offsets: np.ndarray
    positions: np.ndarray
    hashes: np.ndarray
    distinct: np.ndarray

    def as_copydetect(self) -> SimpleNamespace:
        """The attributes copydetect's ``compare_files`` reads from a ``CodeFingerprint``."""
        index: dict[int, list[int]] = {}
        for value, position in zip(self.hashes.tolist(), self.positions.tolist()):
            index.setdefault(value, []).append(position)
        covered = int(np.minimum(np.diff(self.positions), K).sum()) + K if self.positions.size else 0
        return SimpleNamespace(k=K, hashes=set(index), hash_idx=index, filtered_code=self.filtered,
                               token_coverage=covered, offsets=self.offsets)


def read_exercise(submissions: list[Submission], exercise: Exercise) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Every student's files of one exercise, and a line for each that could not be read.

    Returns:
        ``[(student, file, text)]`` in class order, and lines such as
        ``"ada: losses.py missing"`` or ``"bob: losses.py is not UTF-8 text"``.
    """
    found, problems = [], []
    for submission in submissions:
        folder = submission.folder(exercise.id)
        for file in exercise.files:
            text, problem = _read(folder / file)
            if problem:
                problems.append(f"{submission.student}: {file} {problem}")
            else:
                found.append((submission.student, file, text))
    return found, problems


def _read(path: Path) -> tuple[str, str]:
    """``(text, "")``, or ``("", why it could not be read)``."""
    if not path.exists():
        return "", "missing"
    try:
        text = path.read_bytes().decode("utf-8")
        return text.replace("\r\n", "\n").replace("\r", "\n"), ""  # one kind of line end, as the lexer sees it
    except UnicodeDecodeError:
        return "", "is not UTF-8 text"
    except OSError as problem:
        return "", f"unreadable ({problem.strerror or problem})"


def tokenise_all(texts: list[str], jobs: int) -> dict[str, Tokens]:
    """copydetect's tokenised text and offsets of each distinct text, ``jobs`` processes at a time.

    Lexing is most of the cost of a class, so identical files (untouched
    stubs, verbatim copies) are lexed once. Workers return text, not hashes:
    Python's string hash differs from process to process, so every hash is
    computed here.
    """
    distinct = list(dict.fromkeys(texts))
    if jobs <= 1 or len(distinct) < 2 * jobs:
        return {text: tokenise(text) for text in distinct}
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=_fork_if_possible()) as pool:
        return dict(zip(distinct, pool.map(tokenise, distinct, chunksize=max(1, len(distinct) // (8 * jobs)))))


def tokenise(text: str) -> Tokens:
    """copydetect's ``filter_code``: the tokenised text, and its offsets in ``text``."""
    return filter_code(text, "", language=LANGUAGE)


def _fork_if_possible():
    """Forked workers start at once with copydetect imported; elsewhere they are spawned."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def starter_sources(course: Course) -> list[str]:
    """The starter code: every stub, and every fenced ``python`` block of the lessons, each
    alone and all of a lesson's in a row (pasted together, their seams match too)."""
    sources = list(stub_sources(course).values())
    for exercise in course.exercises:
        lesson = lesson_path(course, exercise)
        if lesson.is_file():
            blocks = [code for kind, code in split_cells(lesson.read_text(encoding="utf-8")) if kind == "code"]
            sources += blocks + ["\n".join(blocks)]
    return sources


def starter_fingerprints(course: Course) -> np.ndarray:
    """The hashes of every fingerprint of the starter code (each source on its own), sorted.

    Hashes are valid in this process only (see :func:`tokenise_all`).
    """
    hashes = [np.asarray(hashed_kgrams(tokenise(source)[0], K), dtype=np.int64) for source in starter_sources(course)]
    return np.unique(np.concatenate(hashes)) if hashes else np.array([], dtype=np.int64)


def fingerprint(student: str, file: str, text: str, tokens: Tokens, starter: np.ndarray) -> Document:
    """A student's file with the fingerprints of the starter code removed.

    copydetect's own boilerplate removal (``get_document_fingerprints`` in
    0.5.0) calls ``np.intersect1d(..., assume_unique=True)`` on hashes that
    repeat, which also drops fingerprints of code a file repeats; a lookup in
    the sorted ``starter`` drops exactly the starter code's.

    Example::

        >>> stub = stub_sources(course)["losses.py"]
        >>> fingerprint("kim", "losses.py", stub, tokenise(stub), starter_fingerprints(course)).distinct.size
        0
    """
    filtered, offsets = tokens
    hashes = np.asarray(hashed_kgrams(filtered, K), dtype=np.int64)
    kept = ~_in_sorted(hashes, starter)
    return Document(student, file, text, filtered, offsets, np.flatnonzero(kept), hashes[kept], np.unique(hashes[kept]))


def _in_sorted(values: np.ndarray, sorted_values: np.ndarray) -> np.ndarray:
    """Which ``values`` occur in ``sorted_values`` (sorted, unique): ``np.isin`` without
    sorting the starter code's fingerprints again for every file."""
    if sorted_values.size == 0:
        return np.zeros(values.shape, dtype=bool)
    found = np.searchsorted(sorted_values, values).clip(max=sorted_values.size - 1)
    return sorted_values[found] == values
