"""Grade a whole class, so that every submission ends with a result record.

A batch writes one folder::

    results/
      batch.json          what the batch grades: its students, shard and grading key
      students/ada.json   one record per student, written atomically once graded
      gradebook.csv       one row per student, written from the records

Each record names what it was graded from: the graders, the reference and
the options (``grading_key``), and the student's files (``submission_sha256``).
Running the same batch again skips every student whose record still matches,
so a batch interrupted with Ctrl-C or killed resumes where it stopped, a
corrected submission is graded again, and a changed grader regrades everyone.
A record is never half written, so there is nothing to repair.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from modlab import __version__
from modlab.course import Course, Exercise
from modlab.formats.csv import gradebook_csv
from modlab.formats.jsonfile import write_atomically, write_json
from modlab.grading.loader import grader_file, load_scenarios

from .batch_layout import Submission
from .grade import GradeOptions, grade_exercise, whole_package
from .records import ExerciseResult, SubmissionResult

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
        return {**self.result.to_json(), "grading_key": self.grading_key,
                "submission_sha256": self.submission_sha256, "failure": self.failure}

    @classmethod
    def from_json(cls, data: dict) -> "Record":
        return cls(SubmissionResult.from_json(data), data["grading_key"], data["submission_sha256"],
                   data.get("failure", ""))


class Batch:
    """One class's grading: the exercises, the options, and what they amount to.

    Creating it imports every grader, so processes forked afterwards start
    with torch and the graders already loaded.
    """

    def __init__(self, course: Course, exercises: list[Exercise], options: GradeOptions = GradeOptions()):
        self.course, self.exercises, self.options = course, list(exercises), options
        for exercise in self.exercises:
            load_scenarios(course, exercise, options.public_only)
        self.key = self._grading_key()

    def _grading_key(self) -> str:
        digest = hashlib.sha256(json.dumps({
            "modlab": __version__, "options": asdict(self.options), "limits": asdict(self.course.limits),
            "exercises": [[e.id, e.points, list(e.files)] for e in self.exercises],
        }, sort_keys=True).encode())
        files = [grader_file(self.course, e) for e in self.exercises] + sorted(self.course.solutions.glob("*.py"))
        for path in files:
            digest.update(f"\0{path.name}\0".encode() + path.read_bytes())
        return digest.hexdigest()[:16]

    def warm(self) -> list[str]:
        """Grade the reference once, so that this process and those forked from it
        know torch.nn's answers and replay the specs of every Hypothesis search
        (see ``modlab.runner.grade``) for every submission alike.

        Returns:
            Where the reference does not score full marks: a grader to check.
        """
        doubts = []
        for exercise in self.exercises:
            try:
                graded = grade_exercise(self.course, exercise, self.course.solutions, self.options)
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
            names = set(exercise.files)
            if whole_package(exercise, self.options.mode):
                names |= {path.name for path in folder.glob("*.py")}
            for name in sorted(names):
                digest.update(f"\0{exercise.id}/{name}\0".encode())
                digest.update((folder / name).read_bytes() if (folder / name).is_file() else b"\0missing")
        return digest.hexdigest()

    def grade(self, submission: Submission) -> Record:
        """Grade every exercise; a fault of the grading itself costs only its exercise."""
        result, failures = SubmissionResult(student=submission.student), []
        for exercise in self.exercises:
            try:
                graded = grade_exercise(self.course, exercise, submission.folder(exercise.id), self.options)
            except Exception as error:  # a grader or runner bug: record it, never a silent zero
                failures.append(f"exercise {exercise.id}: {type(error).__name__}: {error}")
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
                              error=f"grading failed ({why}); not the submission's fault, grade it again")


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

    def finished(self, batch: Batch, submission: Submission) -> bool:
        """Whether this student's record is complete and still matches their files and the graders."""
        record = self.load(submission.student)
        return (record is not None and not record.failure and record.grading_key == batch.key
                and record.submission_sha256 == batch.submission_sha256(submission))

    def begin(self, batch: Batch, students: list[str], shard: tuple[int, int]) -> None:
        """Say what this folder grades, and sweep away temporary files a killed run left behind."""
        self.students.mkdir(parents=True, exist_ok=True)
        for leftover in self.students.glob(".*.tmp"):
            leftover.unlink()
        write_json(self.folder / MANIFEST, {
            "course": batch.course.id, "grading_key": batch.key, "exercises": [e.id for e in batch.exercises],
            "shard": list(shard), "students": students,
        })

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


def pending(batch: Batch, store: ResultStore, submissions: list[Submission]) -> list[Submission]:
    """The submissions without a finished, matching record: what is left to grade."""
    return [s for s in submissions if not store.finished(batch, s)]


def merge_results(course: Course, folders: list[Path], out: Path) -> list[Record]:
    """Combine the results folders of the shards of one class into ``out``.

    Raises:
        ValueError: the folders are not the complete set of shards of one
            batch (a shard missing or twice, different graders or options,
            or a student without a record).
    """
    stores = [ResultStore(f) for f in folders]
    manifests = [s.manifest() for s in stores]
    _check_shards(folders, manifests)
    merged = ResultStore(out)
    students = sorted(student for m in manifests for student in m["students"])
    twice = sorted(student for student, times in Counter(students).items() if times > 1)
    if twice:
        raise ValueError(f"{', '.join(twice[:5])} graded in two shards: were the shards cut from different classes?")
    merged.students.mkdir(parents=True, exist_ok=True)
    for store, manifest in zip(stores, manifests):
        for record in store.records(manifest["students"]):
            if record.grading_key != manifest["grading_key"]:
                raise ValueError(f"{store.path(record.student)}: graded with other graders or options "
                                 f"than the rest of its shard; grade that shard again")
            write_atomically(merged.path(record.student), store.path(record.student).read_text(encoding="utf-8"))
    first = manifests[0]
    write_json(merged.folder / MANIFEST, {**first, "shard": [1, 1], "students": students})
    records = merged.records(students)
    merged.write_gradebook(course, records)
    return records


def _check_shards(folders: list[Path], manifests: list[dict]) -> None:
    keys = {m["grading_key"] for m in manifests}
    if len(keys) > 1:
        raise ValueError("the shards were graded with different graders, reference or options; grade them again")
    count = manifests[0]["shard"][1]
    seen: dict[int, Path] = {}
    for folder, manifest in zip(folders, manifests):
        index, of = manifest["shard"]
        if of != count:
            raise ValueError(f"{folder} is shard {index}/{of}, the others are shards of {count}")
        if index in seen:
            raise ValueError(f"{folder} and {seen[index]} are both shard {index}/{count}")
        seen[index] = folder
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise ValueError(f"shard {', '.join(f'{i}/{count}' for i in missing)} missing: merge needs all {count}")
