"""The results folder of a class, so that every submission ends with a result record.

A batch writes one folder::

    results/
      batch.json          what the batch grades: its students, shard and grading key
      students/ada.json   one record per student, written atomically once graded
      gradebook.csv       one row per student, written from the records

Each record names what it was graded from: the graders, the reference and
the options (``grading_key``), and the student's files (``submission_sha256``).
Running the same batch again skips every student whose record still matches
(:func:`.grading.pending`), so a batch interrupted with Ctrl-C or killed
resumes where it stopped, a corrected submission is graded again, and a
changed grader regrades everyone. A record is never half written, so there
is nothing to repair.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from modlab.course import Course
from modlab.formats.csv import gradebook_csv
from modlab.formats.jsonfile import result_json, write_atomically, write_json
from modlab.records import SubmissionResult

MANIFEST, STUDENTS, GRADEBOOK = "batch.json", "students", "gradebook.csv"


@dataclass
class Record:
    """A student's result, with what it was graded from.

    ``failure`` says why grading itself failed (a grader or runner fault,
    never the submission's); such a record is graded again on the next run.
    """

    result: SubmissionResult
    grading_key: str
    submission_sha256: str
    failure: str = ""

    @property
    def student(self) -> str:
        return self.result.student

    def to_json(self) -> dict:
        return {**result_json(self.result), "grading_key": self.grading_key,
                "submission_sha256": self.submission_sha256, "failure": self.failure}

    @classmethod
    def from_json(cls, data: dict) -> "Record":
        return cls(SubmissionResult.from_json(data), data["grading_key"], data["submission_sha256"],
                   data.get("failure", ""))


class ResultStore:
    """The results folder of a batch (see the module docstring)."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)
        self.students = self.folder / STUDENTS

    def path(self, student: str) -> Path:
        return self.students / f"{student}.json"

    def load(self, student: str) -> Record | None:
        try:
            return Record.from_json(json.loads(self.path(student).read_text(encoding="utf-8")))
        except FileNotFoundError:
            return None

    def save(self, record: Record) -> None:
        write_json(self.path(record.student), record.to_json())

    def begin(self, manifest: dict) -> None:
        """Say what this folder grades (:meth:`.grading.Batch.manifest`), and sweep away
        temporary files a killed run left behind."""
        self.students.mkdir(parents=True, exist_ok=True)
        for leftover in self.students.glob(".*.tmp"):
            leftover.unlink()
        write_json(self.folder / MANIFEST, manifest)

    def manifest(self) -> dict:
        path = self.folder / MANIFEST
        if not path.is_file():
            raise ValueError(f"{self.folder}: not a results folder of `modlab grade` (no {MANIFEST})")
        return json.loads(path.read_text(encoding="utf-8"))

    def records(self, students: list[str]) -> list[Record]:
        """The records of these students, in the order given; a missing one is an error."""
        found = [self.load(student) for student in students]
        missing = [s for s, r in zip(students, found) if r is None]
        if missing:
            raise ValueError(f"{self.folder}: no record for {len(missing)} students ({', '.join(missing[:5])}); "
                             f"grade them first")
        return found

    def write_gradebook(self, course: Course, records: list[Record]) -> Path:
        path = self.folder / GRADEBOOK
        write_atomically(path, gradebook_csv(course, [r.result for r in records],
                                             {r.student: r.failure for r in records if r.failure}))
        return path
