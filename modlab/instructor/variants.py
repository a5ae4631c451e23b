"""Buggy variants: known mistakes, kept as edits to the reference.

``tests/buggy/NN_slug.yaml`` lists mistakes in exercise NN as edits to one
reference file (see ``tests/buggy/README.md``). Writing them as edits rather
than copies keeps them small and keeps them honest: an edit whose ``old``
text no longer occurs exactly once in the reference fails loudly.
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


def load_variants(folder: Path) -> list[Variant]:
    """Every variant under ``folder``, in file order."""
    variants = []
    for path in sorted(Path(folder).glob("*.yaml")):
        for item in yaml.safe_load(path.read_text(encoding="utf-8")):
            variants.append(Variant(
                exercise=path.stem[:2],
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
