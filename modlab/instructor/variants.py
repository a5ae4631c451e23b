"""Labelled buggy variants: known mistakes, kept as edits to the reference.

Each exercise's ``graders/NN_slug/variants.yaml`` lists mistakes a student
makes in it, each an edit to one reference file, labelled with the
misconceptions it embodies (ids of the exercise's catalog, or none)::

    - name: softmax_instead_of_log_softmax    # a short id
      file: losses.py                         # the exercise file the edit applies to
      misconception: softmax-not-log          # an id, a list of ids, or [] for a bug that embodies none
      replace:                                # each `old` must occur exactly once in the reference
        - old: "log_softmax(input, dim=1)"
          new: "softmax(input, dim=1)"
      cuda: false                             # true: a mistake only CUDA can reveal

Writing them as edits rather than copies keeps them small and keeps them
honest: an edit whose ``old`` text no longer occurs exactly once in the
reference fails loudly. Graded, each must lose points in its exercise and its
feedback name exactly its misconceptions (``tests/test_buggy_variants.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from modlab.course import Course


@dataclass(frozen=True)
class Variant:
    """One mistake in one exercise file."""

    exercise: str
    name: str
    file: str
    misconceptions: tuple[str, ...]  # the catalog ids its feedback must name, and no others
    edits: tuple[tuple[str, str], ...]
    cuda: bool = False

    def apply(self, reference: str) -> str:
        """The reference file's text with each edit applied exactly once.

        Raises:
            ValueError: an edit's ``old`` text does not occur exactly once.
        """
        text = reference
        for old, new in self.edits:
            count = text.count(old)
            if count != 1:
                raise ValueError(f"variant {self.name}: `old` occurs {count} times in {self.file}; update the variant")
            text = text.replace(old, new)
        return text


VARIANTS = "variants.yaml"  # in each exercise's grading folder


def load_variants(course: Course) -> list[Variant]:
    """Every labelled variant of the course, exercise by exercise, in file order."""
    variants = []
    for exercise in course.exercises:
        path = course.grading_folder(exercise) / VARIANTS
        for item in yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else ():
            variants.append(Variant(
                exercise=exercise.id,
                name=item["name"],
                file=item["file"],
                misconceptions=tuple(_as_list(item["misconception"])),
                edits=tuple((edit["old"], edit["new"]) for edit in item["replace"]),
                cuda=bool(item.get("cuda", False)),
            ))
    return variants


def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def variant_package(course: Course, variant: Variant, folder: Path) -> Path:
    """Write the reference package with the variant applied into ``folder/<package>``."""
    reference = (course.solutions / variant.file).read_text(encoding="utf-8")
    return reference_package(course, folder, {variant.file: variant.apply(reference)})


def reference_package(course: Course, folder: Path, replacements: dict[str, str]) -> Path:
    """Write the reference package into ``folder/<package>``, with some files'
    text replaced (``{"losses.py": text}``); returns the package folder."""
    package = Path(folder) / course.package
    package.mkdir(parents=True, exist_ok=True)
    for source in course.solutions.glob("*.py"):
        text = replacements.get(source.name, source.read_text(encoding="utf-8"))
        (package / source.name).write_text(text, encoding="utf-8")
    return package
