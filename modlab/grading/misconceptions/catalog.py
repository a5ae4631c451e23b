"""The catalog itself: an entry, the decorator that registers one, and detection.

See :mod:`modlab.grading.misconceptions` for what an entry is; the entries
live in one module per exercise beside this one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from modlab.grading.evidence import Evidence


@dataclass(frozen=True)
class Misconception:
    """One catalog entry.

    Attributes:
        id: a short stable name, what records and reports count.
        exercise: the exercise that teaches it.
        text: what the student reads.
        detector: the evidence test; its docstring says what evidence it needs.
        on_raise: tried on every check whose scenario raised in the
            submission's world (the exception is the evidence), not only on
            the scenarios that list it.
    """

    id: str
    exercise: str
    text: str
    detector: Callable[[Evidence], bool]
    on_raise: bool = False

    @property
    def evidence(self) -> str:
        return " ".join((self.detector.__doc__ or "").split())

    def as_record(self) -> dict:
        return {"id": self.id, "text": self.text}


CATALOG: dict[str, Misconception] = {}


def misconception(id: str, exercise: str, text: str, on_raise: bool = False):
    """Register the decorated detector as the catalog entry ``id``.

    Raises:
        ValueError: the id is already taken.
    """

    def register(detector: Callable[[Evidence], bool]) -> Callable[[Evidence], bool]:
        if id in CATALOG:
            raise ValueError(f"misconception {id!r} is defined twice")
        CATALOG[id] = Misconception(id, exercise, " ".join(text.split()), detector, on_raise)
        return detector

    return register


def detect(ids, evidence: Evidence) -> list[Misconception]:
    """The misconceptions among ``ids`` whose detectors find evidence, in
    catalog order; when the scenario raised, the ``on_raise`` entries instead.
    In a history (a list of steps), detectors see the first step that differs.

    A detector that fails on odd evidence counts as not finding it: silence
    is always safer than a wrong hint.
    """
    if evidence.raised is not None:
        wanted = [m for m in CATALOG.values() if m.on_raise]
    else:
        wanted = [m for m in CATALOG.values() if m.id in set(ids)]
        evidence = evidence.first_step()
    return [m for m in wanted if _fires(m, evidence)]


def _fires(entry: Misconception, evidence: Evidence) -> bool:
    try:
        return bool(entry.detector(evidence))
    except Exception:  # a detector meeting evidence it did not expect stays silent
        return False


def unknown(ids) -> list[str]:
    """The ids not in the catalog."""
    return [i for i in ids if i not in CATALOG]
