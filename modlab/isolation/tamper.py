"""Delegating to the oracle instead of building the package, as the grading side sees it: tamper.

The oracle (``torch.nn`` for a course about modules, ``course.yaml``'s
``oracle:``) is what a submission is compared with, so a submission that
hands the work to it (subclass ``torch.nn.Module``, return torch's own
``Parameter``, call ``torch.nn.Module.named_parameters`` on its own objects)
would match it everywhere without building anything. The graded package's
world never needs the oracle's own classes: its scenarios get the package.
Three checks:

- tripwires, in the worker, before the submission loads: every method of the
  classes the course watches (``torch.nn.Module`` and ``torch.nn.Parameter``)
  notes that it was called (:mod:`.tripwires`);
- once the package has loaded, in the worker: no class of the package is, or
  inherits from, a class of the oracle (:func:`.tripwires.delegating_classes`);
- here, on the grading side, in every observation: no tensor or object of a
  type of the oracle (:func:`oracle_types`); and what each finding means for
  the student (:func:`explain`).

They catch delegation written as ordinary Python. Code that sets out to
rewrite the worker itself (its tripwires, its encoder) runs in the same
process and cannot be stopped from inside it; that is what limits, the
sandbox and reviewing flagged submissions are for.
"""
from __future__ import annotations

from modlab.grading.observe import DICT, OBJECT, TENSOR, TUPLE


def prefix(module: str) -> str:
    """What the module path of everything the oracle ``module`` defines starts with."""
    return module + "."


def oracle_types(observation, module: str) -> list[str]:
    """Types of the oracle ``module`` found among an observation's tensors and objects."""
    found: list[str] = []
    _collect(observation, prefix(module), found)
    return found


def _collect(value, start: str, found: list[str]) -> None:
    if isinstance(value, list):
        for item in value:
            _collect(item, start, found)
    elif isinstance(value, dict):
        if TENSOR in value:
            record = value[TENSOR]
            if record["module"].startswith(start):
                found.append(f"{record['module']}.{record['class']}")
        elif OBJECT in value:
            if value[OBJECT].startswith(start):
                found.append(value[OBJECT])
        elif TUPLE in value:
            _collect(value[TUPLE], start, found)
        elif DICT in value:
            for _, item in value[DICT]:
                _collect(item, start, found)


def explain(found: list[str], how: str, module: str) -> str:
    """Feedback for tamper: what was found, and why it does not count."""
    shown = ", ".join(dict.fromkeys(found[:3]))
    return (f"your package {how} {module} ({shown}): delegating to {module}, the very thing it is "
            f"compared with, is not building it; this test is scored as tamper")
