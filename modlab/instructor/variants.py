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

``graders/NN_slug/student_bugs.yaml`` has the same schema plus ``region``:
the function (``Class.method`` or ``function``) whose solution region the
edit changes. Those bugs were written and labelled without looking at the
detectors, so that their precision and recall can be measured honestly
(``load_variants(course, STUDENT_BUGS)``; ``tests/test_student_bugs.py``).
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
    region: str | None = None  # the function whose solution region it edits (student_bugs.yaml)

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
STUDENT_BUGS = "student_bugs.yaml"  # beside it: bugs labelled blind to the detectors
# The labelled bugs and their measured records are read by every test that grades one:
# libyaml's parser reads them many times faster than PyYAML's own, into the same safe data.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path):
    """The data in the YAML file at ``path``, of safe types only (None for an empty file)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)


def load_variants(course: Course, filename: str = VARIANTS) -> list[Variant]:
    """Every labelled variant of the course, exercise by exercise, in file order.

    Args:
        course: the course whose grading folders are read.
        filename: the file read in each exercise's grading folder
            (``VARIANTS`` or ``STUDENT_BUGS``); an exercise without it has none.

    Returns:
        The variants, each with its ``region`` where the file names one.

    Example::

        >>> bugs = load_variants(course, STUDENT_BUGS)
        >>> bugs[0].file, bugs[0].region
        ('losses.py', 'cross_entropy')
    """
    variants = []
    for exercise in course.exercises:
        path = course.grading_folder(exercise) / filename
        for item in read_yaml(path) if path.is_file() else ():
            variants.append(Variant(
                exercise=exercise.id,
                name=item["name"],
                file=item["file"],
                misconceptions=tuple(_as_list(item["misconception"])),
                edits=tuple((edit["old"], edit["new"]) for edit in item["replace"]),
                cuda=bool(item.get("cuda", False)),
                region=item.get("region"),
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
