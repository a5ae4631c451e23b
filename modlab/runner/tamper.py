"""Delegating to torch.nn instead of building mynn: detected, reported as tamper.

torch.nn is the oracle, so a submission that hands the work to it (subclass
``torch.nn.Module``, return torch's own ``Parameter``, call
``torch.nn.Module.named_parameters`` on its own objects) would match torch
everywhere without building anything. The graded package's world never needs
torch.nn's modules: its scenarios get ``nn = mynn``, and the reference uses
only ``torch.nn.functional`` and ``torch.nn.init``. Three checks:

- tripwires, in the worker, before the submission loads: every method of
  ``torch.nn.Module`` and ``torch.nn.Parameter`` notes that it was called
  (:func:`install_tripwires`, :func:`tripped`);
- once the package has loaded, in the worker: no class of the package is, or
  inherits from, a torch.nn class (:func:`delegating_classes`);
- on the grading side, in every observation: no tensor or object of a
  torch.nn type (:func:`torch_nn_types`).

They catch delegation written as ordinary Python. Code that sets out to
rewrite the worker itself (its tripwires, its encoder) runs in the same
process and cannot be stopped from inside it; that is what limits, the
sandbox and reviewing flagged submissions are for.
"""
from __future__ import annotations

import functools
import inspect

import torch

from modlab.grading.observe import DICT, OBJECT, TENSOR, TUPLE

TORCH_NN = "torch.nn."
MAX_TRIPPED = 5

_tripped: list[str] = []


def _subclasses(cls: type) -> set[type]:
    found = {cls}
    for sub in cls.__subclasses__():
        found |= _subclasses(sub)
    return found


def _wrapped(member, where: str):
    if isinstance(member, staticmethod):
        return staticmethod(_tripwire(member.__func__, where))
    if isinstance(member, classmethod):
        return classmethod(_tripwire(member.__func__, where))
    if inspect.isfunction(member):
        return _tripwire(member, where)
    return None


def _tripwire(function, where: str):
    @functools.wraps(function)
    def noted(*args, **kwargs):
        if where not in _tripped and len(_tripped) < MAX_TRIPPED:
            _tripped.append(where)
        return function(*args, **kwargs)

    return noted


# Made once, where this module is imported (in the zygote, before any fork):
# torch.nn's classes as they are before any submission runs, and the wrappers.
_TORCH_CLASSES = frozenset(_subclasses(torch.nn.Module) | _subclasses(torch.nn.Parameter)
                           | {getattr(torch.nn, "Buffer", torch.nn.Parameter)})
_TRIPWIRES = [(cls, name, wrapped) for cls in (torch.nn.Module, torch.nn.Parameter)
              for name, member in list(vars(cls).items())
              if (wrapped := _wrapped(member, f"torch.nn.{cls.__name__}.{name}")) is not None]


def install_tripwires() -> None:
    """Wrap the methods of torch.nn.Module and Parameter so that calls are noted.

    The wrapped method still runs: the scenario goes on, and the grading side
    fails it as tamper, naming the method.
    """
    for cls, name, wrapped in _TRIPWIRES:
        setattr(cls, name, wrapped)


def tripped() -> list[str]:
    """The torch.nn methods called since the last call, then forgotten."""
    found = list(_tripped)
    _tripped.clear()
    return found


def delegating_classes(modules: list) -> list[str]:
    """Names in the package's modules that are, or inherit from, torch.nn classes."""
    found = []
    for module in modules:
        for name, value in list(vars(module).items()):
            if not isinstance(value, type):
                continue
            where = f"{module.__name__}.{name}"
            if _from_torch_nn(value):
                found.append(f"{where} is {_name(value)}")
            else:
                base = next((b for b in value.__mro__[1:] if _from_torch_nn(b)), None)
                if base is not None:
                    found.append(f"{where} inherits from {_name(base)}")
    return found


def _from_torch_nn(cls: type) -> bool:
    return cls in _TORCH_CLASSES or str(getattr(cls, "__module__", "")).startswith(TORCH_NN)


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# -- on the grading side -----------------------------------------------------------

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
    return (f"your mynn {how} torch.nn ({shown}): delegating to torch.nn, the very thing it is "
            f"compared with, is not building it; this test is scored as tamper")
