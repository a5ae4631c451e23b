"""The misconception catalog's machinery: an entry is a claim and the evidence that backs it.

A course writes its entries beside its scenarios, one catalog module per
exercise (``graders/10_losses/misconceptions.py``), and the few that more than
one exercise grades in ``graders/shared/misconceptions.py``::

    @misconception("bare-tensor", "08", "a bare tensor where a Parameter was meant: ...")
    def bare_tensor(e):
        \"\"\"torch registered a Parameter where the submission holds a plain Tensor.\"\"\"
        return any(t == "Parameter" and y == "Tensor" for t, y in kinds(e))

The decorator turns the detector into its :class:`Misconception` entry, which
the exercise's scenarios list by name (``@scenario(misconceptions=[bare_tensor])``):
a hint is shown only when the detector of a listed entry finds evidence in
the failure, so a wrong hint needs a wrong detector, and every detector has a
labelled buggy submission that must fire it and neighbours that must not
(each exercise's ``variants.yaml``). ``docs/misconceptions.md`` is generated from the catalog
and the scenarios that use it.

Runs on the trusted side: detectors read plain data, never the submission's objects.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .evidence import Evidence
from .fields import UndeclaredField


@dataclass(frozen=True)
class Misconception:
    """One catalog entry.

    Attributes:
        id: a short stable name, what records and reports count.
        exercise: the exercise that teaches it.
        text: what the student reads.
        detector: the evidence test; its docstring says what evidence it needs.
        on_raise: tried on every check of its course whose scenario raised in
            the submission's world (the exception is the evidence), not only on
            the scenarios that list it.
        source: the file that defines it, which says whose course it is.
    """

    id: str
    exercise: str
    text: str
    detector: Callable[[Evidence], bool]
    on_raise: bool = False
    source: str = ""

    @property
    def evidence(self) -> str:
        return " ".join((self.detector.__doc__ or "").split())

    def as_record(self) -> dict:
        return {"id": self.id, "text": self.text}

    def fires(self, evidence: Evidence) -> bool:
        """Whether the detector finds its evidence. A detector that fails on odd
        evidence counts as not finding it: silence is always safer than a wrong hint.

        Raises:
            UndeclaredField: the detector reads a field by a plain string: the course's bug, said loudly.
        """
        try:
            return bool(self.detector(evidence))
        except UndeclaredField:
            raise
        except Exception:
            return False


# Every entry this process has loaded, by course (its graders folder) and id: a
# copy of a course (a student kit beside the instructor's folder) is a course of its own.
CATALOGS: dict[Path, dict[str, Misconception]] = {}


def graders_folder(source: str | Path) -> Path:
    """The graders folder a catalog module belongs to (``graders/10_losses/misconceptions.py``'s ``graders/``)."""
    return Path(source).resolve().parent.parent


def misconception(id: str, exercise: str, text: str, on_raise: bool = False):
    """Make the decorated detector the catalog entry ``id`` of its course; the decorated name is then the entry.

    Raises:
        ValueError: another file of the same course already defines an entry ``id``.
    """

    def register(detector: Callable[[Evidence], bool]) -> Misconception:
        source = detector.__code__.co_filename
        catalog = CATALOGS.setdefault(graders_folder(source), {})
        known = catalog.get(id)
        if known is not None and known.source != source:
            raise ValueError(f"misconception {id!r} is defined twice: in {known.source} and {source}")
        catalog[id] = Misconception(id, exercise, " ".join(text.split()), detector, on_raise, source)
        return catalog[id]

    return register


def course_catalog(graders: Path) -> list[Misconception]:
    """The entries a course's graders folder defines, in the order they were loaded."""
    return list(CATALOGS.get(Path(graders).resolve(), {}).values())


def detect(listed: tuple[Misconception, ...], graders: Path, evidence: Evidence) -> list[Misconception]:
    """The misconceptions whose detectors find evidence, in catalog order: among
    ``listed`` (a scenario's), or, when the scenario raised, the ``on_raise``
    entries of the course in ``graders`` instead. In a history (a list of
    steps), detectors see the first step that differs."""
    catalog = course_catalog(graders)
    if evidence.raised is not None:
        wanted = [entry for entry in catalog if entry.on_raise]
    else:
        ids = {entry.id for entry in listed}
        wanted, evidence = [entry for entry in catalog if entry.id in ids], evidence.first_step()
    return [entry for entry in wanted if entry.fires(evidence)]
