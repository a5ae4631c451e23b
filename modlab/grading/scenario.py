"""The scenario: the unit of grading.

A scenario is a function of ``nn`` (plus optional ``device`` and ``spec``).
The engine runs it once with ``nn = torch.nn`` and once with the graded
package, each in its own process, and compares what the two return::

    @scenario(points=2, public=True, misconceptions=[children_first])
    def own_members_before_children(nn):
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(2, 2)
                self.scale = nn.Parameter(torch.ones(1))
        return {"net.named_parameters()": [name for name, _ in Net().named_parameters()]}

A scenario returns its observation with named fields (a dict), so a
difference reads in the scenario's own terms; ``misconceptions`` lists the
catalog entries (:mod:`modlab.grading.catalog`, imported from the exercise's
``misconceptions.py``) whose detectors are worth trying on its failures.

Grader files are ordinary pytest files, one per exercise
(``graders/10_losses/test_03_walk.py``): the ``modlab.instructor.pytest_plugin``
pytest plugin collects every scenario as a test, and ``modlab grade`` runs the
same scenarios through the same engine without pytest's start-up cost.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .catalog import Misconception
from .compare import Tolerance

DEVICES = ("cpu", "cuda")
GRADER_FILE = re.compile(r"test_(\d\d)_\w+\.py$")

# Every scenario defined so far, by key ("/course/graders/10_losses/test_03_walk.py::own_members").
# Filled as grader modules are imported, in the trusted process and in workers.
REGISTRY: dict[str, "Scenario"] = {}


@dataclass(frozen=True)
class Scenario:
    """One graded behaviour, compared between torch.nn and the submission."""

    exercise: str
    name: str
    file: str
    body: Callable
    points: float = 1.0
    public: bool = False
    misconceptions: tuple[Misconception, ...] = ()
    tolerance: Tolerance | None = None
    devices: tuple[str, ...] = ("cpu",)
    specs: object = None  # a Hypothesis strategy drawing the `spec` argument
    examples: int = 25
    doc: str = ""
    shown: Callable | None = None  # how a failing spec reads in feedback (default: as data)

    @property
    def key(self) -> str:
        """Unique across courses: two courses may both have an exercise 01."""
        return f"{self.file}::{self.name}"

    @property
    def graders(self) -> Path:
        """The graders folder of the scenario's course (``graders/10_losses/test_03_walk.py``'s ``graders/``)."""
        return Path(self.file).parent.parent

    @property
    def misconception_ids(self) -> list[str]:
        return [entry.id for entry in self.misconceptions]

    def cases(self) -> list["Case"]:
        """One case per device this scenario runs on."""
        if self.devices == ("cpu",):
            return [Case(self, "cpu", self.name)]
        return [Case(self, device, f"{self.name}[{device}]") for device in self.devices]


@dataclass(frozen=True)
class Case:
    """A scenario on one device: what a test report lists as one test."""

    scenario: Scenario
    device: str
    name: str

    @property
    def needs_cuda(self) -> bool:
        return self.device == "cuda"

    def arguments(self, spec=None) -> dict:
        """The keyword arguments the body takes, as plain data."""
        args = {}
        if self.scenario.devices != ("cpu",):
            args["device"] = self.device
        if spec is not None:
            args["spec"] = spec
        return args


def scenario(points: float = 1, public: bool = False, misconceptions=(), tolerance: Tolerance | None = None,
             devices: bool = False, specs=None, examples: int = 25, shown: Callable | None = None):
    """Register the decorated function as a graded scenario of its grader file's exercise.

    Args:
        points: the weight of this scenario within its exercise.
        public: released to students as a local check.
        misconceptions: the catalog entries whose detectors may explain a
            failure of this scenario; a hint is shown only when one fires.
        tolerance: compare floating-point tensors with this tolerance
            instead of bit for bit.
        devices: run once per device (``cpu`` and ``cuda``); the body then
            takes a ``device`` argument.
        specs: a Hypothesis strategy; the body takes a ``spec`` argument drawn
            from it, identically in both worlds, derandomized.
        examples: how many specs Hypothesis draws.
        shown: a function of a spec giving what feedback shows of the smallest
            failing one, in the student's terms (the code that builds it); by
            default the spec as data.

    Returns:
        The :class:`Scenario` (grader files keep it as a module attribute).

    Raises:
        ValueError: the grader file is misnamed.
        TypeError: a misconception is named by its id: list the entry itself.
    """
    named = [entry for entry in misconceptions if not isinstance(entry, Misconception)]
    if named:
        raise TypeError(f"misconceptions={named!r}: list the catalog entries themselves, imported from the "
                        "exercise's misconceptions.py, not their ids")

    def register(body: Callable) -> Scenario:
        file = body.__code__.co_filename
        found = GRADER_FILE.search(file)
        if not found:
            raise ValueError(f"{body.__name__}: scenarios live in grader files named test_NN_slug.py")
        made = Scenario(
            exercise=found.group(1),
            name=body.__name__,
            file=file,
            body=body,
            points=float(points),
            public=public,
            misconceptions=tuple(misconceptions),
            tolerance=tolerance,
            devices=DEVICES if devices else ("cpu",),
            specs=specs,
            examples=examples,
            shown=shown,
            doc=(body.__doc__ or "").strip().splitlines()[0] if body.__doc__ else "",
        )
        REGISTRY[made.key] = made
        return made

    return register


def scenarios_of(grader_file: str, public_only: bool = False) -> list[Scenario]:
    """The registered scenarios of one grader file, in definition order."""
    return [s for s in REGISTRY.values() if s.file == grader_file and (s.public or not public_only)]
