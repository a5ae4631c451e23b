"""What grading showed for each labelled bug: the checks it failed and the hints it got, each
with the checks that named it.

Each exercise's grading folder keeps ``measured.yaml`` beside its labelled bugs
(``variants.yaml``, tuned with the detectors, and ``student_bugs.yaml``, written
blind to them). ``modlab build --measure`` grades every bug and writes it; the
project's tests grade every bug again and fail where grading shows something
else, so the file is what grading does today. ``docs/misconceptions.md`` reads
it for each catalog entry's recall (of the bugs labelled with it, how many got
it named) and precision (of the bugs that got it named, how many are labelled
with it), without grading anything.
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from modlab.course import Course
from modlab.instructor.variants import STUDENT_BUGS, VARIANTS, Variant, load_variants, read_yaml, variant_package
from modlab.records import FAILED, ExerciseResult

MEASURED = "measured.yaml"  # in each exercise's grading folder
SETS = (VARIANTS, STUDENT_BUGS)  # the labelled sets, each a file of the grading folder
HEADER = "# Written by `modlab build --measure`: what grading showed for each labelled bug. Do not edit.\n"


@dataclass(frozen=True)
class Shown:
    """What grading one bug showed.

    Attributes:
        failed: the checks it failed, in the exercise's order.
        named: each misconception id its feedback named (sorted) with the
            failed checks that named it, in the exercise's order: which check
            named a hint is what a detector's neighbour is held to.
    """

    failed: tuple[str, ...]
    named: tuple[tuple[str, tuple[str, ...]], ...]

    @classmethod
    def of(cls, result: ExerciseResult) -> Shown:
        failed = [test for test in result.tests if test.outcome == FAILED]
        naming: dict[str, list[str]] = {}
        for test in failed:
            for mid in test.failure.misconception_ids if test.failure else ():
                naming.setdefault(mid, []).append(test.name)
        return cls(tuple(test.name for test in failed),
                   tuple((mid, tuple(naming[mid])) for mid in sorted(naming)))

    @property
    def hinted(self) -> tuple[str, ...]:
        """The misconception ids its feedback named, sorted."""
        return tuple(mid for mid, _ in self.named)

    def checks_naming(self, mid: str) -> tuple[str, ...]:
        """The failed checks whose feedback named ``mid`` (none if it was never named)."""
        return dict(self.named).get(mid, ())

    def as_yaml(self) -> dict:
        """What ``measured.yaml`` keeps: ``{"failed": [check, ...], "hinted": {id: [check, ...]}}``."""
        return {"failed": list(self.failed), "hinted": {mid: list(checks) for mid, checks in self.named}}

    @classmethod
    def from_yaml(cls, kept: dict) -> Shown:
        """The inverse of :meth:`as_yaml`."""
        return cls(tuple(kept["failed"]), tuple((mid, tuple(checks)) for mid, checks in kept["hinted"].items()))


def labelled_bugs(course: Course) -> Iterator[tuple[str, Variant]]:
    """Every labelled bug of the course with the set it belongs to (``VARIANTS`` or ``STUDENT_BUGS``)."""
    for labelled_set in SETS:
        for variant in load_variants(course, labelled_set):
            yield labelled_set, variant


def grade_bug(course: Course, variant: Variant) -> ExerciseResult:
    """Grade one bug in its own exercise, on the reference with the bug's edits applied."""
    from modlab.engine import GradeOptions, grade_exercise

    with tempfile.TemporaryDirectory() as folder:
        package = variant_package(course, variant, Path(folder))
        return grade_exercise(course, course.exercise(variant.exercise), package,
                              GradeOptions(device="cuda" if variant.cuda else "cpu"))


def measure(course: Course, cuda: bool, progress: Callable[[str], None] = lambda name: None) -> list[Path]:
    """Grade every labelled bug and write each exercise's ``measured.yaml``; returns the files written.

    Args:
        course: the course whose bugs are graded.
        cuda: whether CUDA is here; without it a bug only CUDA can reveal keeps
            what an earlier measurement recorded for it.
        progress: called once per bug, after it, with a note (``"03 skips_buffers: 2 failed"``).
    """
    recorded = read_measured(course)
    found: dict[str, dict[str, dict[str, dict]]] = {}
    for labelled_set, variant in labelled_bugs(course):
        key = (variant.exercise, labelled_set, variant.name)
        shown = recorded.get(key) if variant.cuda and not cuda else Shown.of(grade_bug(course, variant))
        progress(f"{variant.exercise} {variant.name}: {len(shown.failed)} failed" if shown else variant.name)
        if shown is not None:
            found.setdefault(variant.exercise, {}).setdefault(labelled_set, {})[variant.name] = shown.as_yaml()
    written = []
    for exercise in course.exercises:
        path = course.grading_folder(exercise) / MEASURED
        if exercise.id in found:
            path.write_text(HEADER + yaml.safe_dump(found[exercise.id], sort_keys=False), encoding="utf-8")
            written.append(path)
    return written


def read_measured(course: Course) -> dict[tuple[str, str, str], Shown]:
    """``{(exercise id, labelled set, bug name): Shown}`` as the ``measured.yaml`` files record it."""
    recorded = {}
    for exercise in course.exercises:
        path = course.grading_folder(exercise) / MEASURED
        sets = read_yaml(path) if path.is_file() else {}
        for labelled_set, bugs in sets.items():
            for name, shown in bugs.items():
                recorded[(exercise.id, labelled_set, name)] = Shown.from_yaml(shown)
    return recorded


@dataclass
class EntryScore:
    """One catalog entry over every measured bug."""

    labelled: int = 0  # bugs labelled with it
    named_where_labelled: int = 0  # of those, how many got it named
    named_elsewhere: int = 0  # bugs that got it named without being labelled with it: wrong hints

    @property
    def recall(self) -> float | None:
        return self.named_where_labelled / self.labelled if self.labelled else None

    @property
    def precision(self) -> float | None:
        named = self.named_where_labelled + self.named_elsewhere
        return self.named_where_labelled / named if named else None


def entry_scores(course: Course) -> dict[str, EntryScore]:
    """Each misconception id's recall and precision over the measured bugs of both sets."""
    recorded = read_measured(course)
    scores: dict[str, EntryScore] = {}
    for labelled_set, variant in labelled_bugs(course):
        shown = recorded.get((variant.exercise, labelled_set, variant.name))
        if shown is None:
            continue
        for mid in variant.misconceptions:
            score = scores.setdefault(mid, EntryScore())
            score.labelled += 1
            score.named_where_labelled += mid in shown.hinted
        for mid in set(shown.hinted) - set(variant.misconceptions):
            scores.setdefault(mid, EntryScore()).named_elsewhere += 1
    return scores
