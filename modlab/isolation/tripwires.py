"""Tripwires on torch.nn, in the worker: what the package calls of it, and what it inherits.

Installed before the submission loads (:func:`install_tripwires`): every
method of ``torch.nn.Module`` and ``torch.nn.Parameter`` then notes that it
was called (:func:`tripped`); once the package has loaded, no class of it may
be, or inherit from, a torch.nn class (:func:`delegating_classes`). The
worker reports both with its answers; the grading side scores them as tamper
(:mod:`.tamper`).

The zygote installs them once, before it forks workers: setting a method of
torch.nn.Module updates the slots of each of its subclasses, which took
about 3 ms of every worker's start (and copied the pages of those classes).
The oracle's worker removes them (:func:`remove_tripwires`): it answers with
torch.nn as it is. Runs in the zygote and the workers only: nothing on the
grading side imports it.
"""
from __future__ import annotations

import functools
import inspect

import torch

from .tamper import TORCH_NN

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
_TRIPWIRES = [(cls, name, member, wrapped) for cls in (torch.nn.Module, torch.nn.Parameter)
              for name, member in list(vars(cls).items())
              if (wrapped := _wrapped(member, f"torch.nn.{cls.__name__}.{name}")) is not None]


def install_tripwires() -> None:
    """Wrap the methods of torch.nn.Module and Parameter so that calls are noted,
    and forget the calls noted so far.

    Where they are installed already (by the zygote) only the forgetting is
    left: what the zygote called, importing a grader, was not the package's
    doing. The wrapped method still runs: the scenario goes on, and the
    grading side fails it as tamper, naming the method.
    """
    for cls, name, _, wrapped in _TRIPWIRES:
        if vars(cls).get(name) is not wrapped:
            setattr(cls, name, wrapped)
    _tripped.clear()


def remove_tripwires() -> None:
    """Put back the methods the tripwires wrap: torch.nn as it was before."""
    for cls, name, original, wrapped in _TRIPWIRES:
        if vars(cls).get(name) is wrapped:
            setattr(cls, name, original)


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
