"""Delegating to torch.nn instead of building mynn, as the grading side sees it: tamper.

torch.nn is the oracle, so a submission that hands the work to it (subclass
``torch.nn.Module``, return torch's own ``Parameter``, call
``torch.nn.Module.named_parameters`` on its own objects) would match torch
everywhere without building anything. The graded package's world never needs
torch.nn's modules: its scenarios get ``nn = mynn``, and the reference uses
only ``torch.nn.functional`` and ``torch.nn.init``. Three checks:

- tripwires, in the worker, before the submission loads: every method of
  ``torch.nn.Module`` and ``torch.nn.Parameter`` notes that it was called
  (:mod:`.tripwires`);
- once the package has loaded, in the worker: no class of the package is, or
  inherits from, a torch.nn class (:func:`.tripwires.delegating_classes`);
- here, on the grading side, in every observation: no tensor or object of a
  torch.nn type (:func:`torch_nn_types`); and what each finding means for the
  student (:func:`explain`).

They catch delegation written as ordinary Python. Code that sets out to
rewrite the worker itself (its tripwires, its encoder) runs in the same
process and cannot be stopped from inside it; that is what limits, the
sandbox and reviewing flagged submissions are for.
"""
from __future__ import annotations

from modlab.grading.observe import DICT, OBJECT, TENSOR, TUPLE

TORCH_NN = "torch.nn."


def torch_nn_types(observation) -> list[str]:
    """torch.nn types found among an observation's tensors and objects."""
    found: list[str] = []
    _collect(observation, found)
    return found


def _collect(value, found: list[str]) -> None:
    if isinstance(value, list):
        for item in value:
            _collect(item, found)
    elif isinstance(value, dict):
        if TENSOR in value:
            record = value[TENSOR]
            if record["module"].startswith(TORCH_NN):
                found.append(f"{record['module']}.{record['class']}")
        elif OBJECT in value:
            if value[OBJECT].startswith(TORCH_NN):
                found.append(value[OBJECT])
        elif TUPLE in value:
            _collect(value[TUPLE], found)
        elif DICT in value:
            for _, item in value[DICT]:
                _collect(item, found)


def explain(found: list[str], how: str) -> str:
    """Feedback for tamper: what was found, and why it does not count."""
    shown = ", ".join(dict.fromkeys(found[:3]))
    return (f"your package {how} torch.nn ({shown}): delegating to torch.nn, the very thing it is "
            f"compared with, is not building it; this test is scored as tamper")
