"""Where a class's submissions lie, and which shard grades which student.

``modlab grade CLASS`` understands two layouts, one folder per student, and
they may be mixed in one class::

    CLASS/ada/mynn/losses.py               the student's whole package
    submitted/ada/10_losses/losses.py        nbgrader: one assignment per exercise,
    submitted/ada/10_losses/mynn/losses.py   its files beside the notebook or in mynn/

:mod:`modlab.folders` finds each exercise's files in a student's folder. A
student who never submitted an exercise still gets a result for it: zero,
saying which file is missing.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from modlab.course import Course
from modlab.folders import exercise_folder, find_package_folder

NBGRADER_SUBMITTED = "submitted"


@dataclass(frozen=True)
class Submission:
    """One student's work: for each exercise, the folder holding its files."""

    student: str
    folders: tuple[tuple[str, str], ...]  # (exercise id, folder), in course order

    def folder(self, exercise_id: str) -> Path:
        return Path(dict(self.folders)[exercise_id])


def is_class_folder(path: Path, course: Course) -> bool:
    """Whether ``path`` holds many submissions rather than one package."""
    return path.is_dir() and find_package_folder(path, course) is None


def find_submissions(folder: Path, course: Course) -> list[Submission]:
    """Every student folder of a class, sorted by student name.

    Raises:
        ValueError: no student folder holds any file of the course.
    """
    students = sorted(d for d in class_root(folder).iterdir() if d.is_dir() and not d.name.startswith("."))
    found = [Submission(d.name, tuple((e.id, str(exercise_folder(d, course, e))) for e in course.exercises))
             for d in students]
    if not any(_holds_files(s, course) for s in found):
        raise ValueError(f"{folder}: no submissions found (expected {folder}/<student>/{course.package}/ "
                         f"or nbgrader's {NBGRADER_SUBMITTED}/<student>/<assignment>/)")
    return found


def class_root(folder: Path) -> Path:
    """The folder whose subfolders are students: ``folder``, or nbgrader's ``folder/submitted``."""
    return folder / NBGRADER_SUBMITTED if (folder / NBGRADER_SUBMITTED).is_dir() else folder


def _holds_files(submission: Submission, course: Course) -> bool:
    return any((submission.folder(e.id) / f).is_file() for e in course.exercises for f in e.files)


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; shards count from 1, as CI matrices do.

    Raises:
        ValueError: not of the form I/N with 1 <= I <= N.
    """
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(count):
        raise ValueError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return int(index), int(count)


def shard_of(student: str, count: int) -> int:
    """The shard (1..count) that grades a student.

    A hash of the name alone, so a student's shard never depends on who else
    is in the class: adding a late submission moves nobody.
    """
    digest = hashlib.sha256(student.encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def in_shard(submissions: list[Submission], index: int, count: int) -> list[Submission]:
    return [s for s in submissions if shard_of(s.student, count) == index]
