"""The misconception catalog's machinery: an entry is a claim and the evidence that backs it.

A course writes its entries beside its scenarios, one catalog module per
exercise (``graders/10_losses/misconceptions.py``), and the few that more than
one exercise grades in ``graders/shared/misconceptions.py``::

    @misconception("softmax-not-log", "10", "the loss takes the log of the softmax: ...")
    def softmax_not_log(e):
        \"\"\"Requires: the loss is positive in torch and negative in the submission.

        Neighbour: `mean_over_classes` (10, variants.yaml) fails `loss_of_a_batch` too,
        without a negative loss: it divides by the classes, not the batch.\"\"\"
        return any(t.tolist() > 0 > y.tolist() for t, y in e.pairs(BATCH_LOSS))

The decorator turns the detector into its :class:`Misconception` entry, which
the exercise's scenarios list by name (``@scenario(misconceptions=[softmax_not_log])``):
a hint is shown only when the detector of a listed entry finds evidence in
the failure, so a wrong hint needs a wrong detector, and every detector has a
labelled buggy submission that must fire it and neighbours that must not
(each exercise's ``variants.yaml``). The docstring says both: what the
detector requires, and a neighbour, a labelled bug that fails one of the
same checks without that observation (so the observation is what tells the
causes apart). ``docs/misconceptions.md`` is generated from the catalog
and the scenarios that use it.

Runs on the trusted side: detectors read plain data, never the submission's objects.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .evidence import Evidence
from .fields import UndeclaredField


REQUIRES, NEIGHBOUR = "Requires:", "Neighbour:"  # how a detector's docstring opens its two paragraphs
# `bug` (exercise, labelled set) fails `check` too, without <the observation>: <its cause>.
CLAIM = re.compile(r"`(?P<bug>[^`]+)` \((?P<exercise>[^,()]+), (?P<labelled_set>[\w.]+)\) "
                   r"fails `(?P<check>[^`]+)` too, without .+: .+", re.S)


@dataclass(frozen=True)
class Neighbour:
    """A labelled bug that fails one of an entry's checks without the observation the entry requires.

    Attributes:
        bug: the bug's name in its labelled set.
        exercise: the exercise whose labelled set holds it.
        labelled_set: the file that labels it (``variants.yaml``, ``student_bugs.yaml``).
        check: a check it fails where the entry is named for its own bugs.
        text: the whole claim, as the docstring writes it.
    """

    bug: str
    exercise: str
    labelled_set: str
    check: str
    text: str

    @classmethod
    def parse(cls, text: str) -> "Neighbour | None":
        """The claim ``text`` makes, or None where it is not written in the claim's form.

        Example::

            >>> Neighbour.parse("`mean_over_classes` (10, variants.yaml) fails `loss_of_a_batch` too, "
            ...                 "without a negative loss: it divides by the classes.").check
            'loss_of_a_batch'
        """
        found = CLAIM.fullmatch(text)
        return found and cls(found["bug"], found["exercise"], found["labelled_set"], found["check"], text)


def detector_doc(detector: Callable) -> tuple[str, str]:
    """A detector's docstring as its two parts: what it requires, and its neighbour claim.

    Each part is one paragraph, opened by ``Requires:`` and ``Neighbour:``, its
    words joined on one line. A docstring that has no ``Requires:`` paragraph
    is all requirement (a course that does not write neighbours yet).

    Returns:
        ``(requires, neighbour)``, the openers left out; ``""`` for a part not written.
    """
    paragraphs = [" ".join(part.split()) for part in inspect.cleandoc(detector.__doc__ or "").split("\n\n")]
    parts = {opener: p.removeprefix(opener).strip() for p in paragraphs for opener in (REQUIRES, NEIGHBOUR)
             if p.startswith(opener)}
    return parts.get(REQUIRES, " ".join(paragraphs).strip()), parts.get(NEIGHBOUR, "")


@dataclass(frozen=True)
class Misconception:
    """One catalog entry.

    Attributes:
        id: a short stable name, what records and reports count.
        exercise: the exercise that teaches it.
        text: what the student reads.
        detector: the evidence test; its docstring says what it requires and names a neighbour.
        on_raise: tried on every check of its course whose scenario raised in
            the submission's world (the exception is the evidence), not only on
            the scenarios that list it.
        source: the file that defines it, which says whose course it is.
        evidence: the observation the detector requires (its docstring's ``Requires:``).
        neighbour: the docstring's ``Neighbour:`` claim, in words; ``""`` where none is written.
    """

    id: str
    exercise: str
    text: str
    detector: Callable[[Evidence], bool]
    on_raise: bool = False
    source: str = ""
    evidence: str = ""
    neighbour: str = ""

    @property
    def neighbour_claim(self) -> Neighbour | None:
        """The neighbour claim as its parts (None where it is not in the claim's form)."""
        return Neighbour.parse(self.neighbour)

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
        catalog[id] = Misconception(id, exercise, " ".join(text.split()), detector, on_raise, source,
                                    *detector_doc(detector))
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
