"""Tripwires on the oracle, in the worker: what the package calls of it, and what it inherits.

Installed before the submission loads (:func:`install_tripwires`): every
method of the classes the course watches (``oracle: watch:`` in
``course.yaml``; ``torch.nn.Module`` and ``torch.nn.Parameter`` by default)
then notes that it was called (:func:`tripped`); once the package has loaded,
no class of it may be, or inherit from, a class of the oracle
(:func:`delegating_classes`). The worker reports both with its answers; the
grading side scores them as tamper (:mod:`.tamper`).

The zygote installs them once, before it forks workers: setting a method of
torch.nn.Module updates the slots of each of its subclasses, which took
about 3 ms of every worker's start (and copied the pages of those classes).
The oracle's worker removes them (:func:`remove_tripwires`): it answers with
the oracle as it is. Runs in the zygote and the workers only: nothing on the
grading side imports it.

An oracle is given as plain data, ``[module, [class, ...]]`` (what
:meth:`modlab.course.Oracle.spec` makes).
"""
from __future__ import annotations

import functools
import importlib
import inspect

from .tamper import prefix

MAX_TRIPPED = 5

_tripped: list[str] = []
_installed: dict[tuple, list] = {}  # the wires of each oracle installed, by (module, watched classes)


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


@functools.lru_cache(maxsize=None)
def _oracle(module: str, watch: tuple[str, ...]) -> tuple[frozenset, list]:
    """The oracle's classes as they are before any submission runs (the watched ones and
    their subclasses), and the wires of the watched ones: made once, where the first
    worker of this oracle is forked from (the zygote), before any fork."""
    found = importlib.import_module(module)
    watched = [getattr(found, name) for name in watch]
    classes = frozenset(sub for cls in watched for sub in _subclasses(cls))
    wires = [(cls, name, member, wrapped) for cls in watched for name, member in list(vars(cls).items())
             if (wrapped := _wrapped(member, f"{module}.{cls.__name__}.{name}")) is not None]
    return classes, wires


def install_tripwires(oracle: list) -> None:
    """Wrap the methods of the oracle's watched classes so that calls are noted (and
    no other oracle's: a zygote may serve two courses), and forget the calls noted so far.

    Where they are installed already (by the zygote) only the forgetting is
    left: what the zygote called, importing a grader, was not the package's
    doing. The wrapped method still runs: the scenario goes on, and the
    grading side fails it as tamper, naming the method.
    """
    module, watch = oracle[0], tuple(oracle[1])
    _, wires = _oracle(module, watch)
    for other in [key for key in _installed if key != (module, watch)]:
        _unwrap(_installed.pop(other))
    for cls, name, _, wrapped in wires:
        if vars(cls).get(name) is not wrapped:
            setattr(cls, name, wrapped)
    _installed[(module, watch)] = wires
    _tripped.clear()


def remove_tripwires() -> None:
    """Put back every method a tripwire wraps: the oracles as they were before."""
    while _installed:
        _unwrap(_installed.popitem()[1])


def _unwrap(wires: list) -> None:
    for cls, name, original, wrapped in wires:
        if vars(cls).get(name) is wrapped:
            setattr(cls, name, original)


def tripped() -> list[str]:
    """The watched methods called since the last call, then forgotten."""
    found = list(_tripped)
    _tripped.clear()
    return found


def delegating_classes(modules: list, oracle: list) -> list[str]:
    """Names in the package's modules that are, or inherit from, classes of the oracle."""
    classes, _ = _oracle(oracle[0], tuple(oracle[1]))
    start = prefix(oracle[0])

    def of_oracle(cls: type) -> bool:
        return cls in classes or str(getattr(cls, "__module__", "")).startswith(start)

    found = []
    for module in modules:
        for name, value in list(vars(module).items()):
            if not isinstance(value, type):
                continue
            where = f"{module.__name__}.{name}"
            if of_oracle(value):
                found.append(f"{where} is {_name(value)}")
            else:
                base = next((b for b in value.__mro__[1:] if of_oracle(b)), None)
                if base is not None:
                    found.append(f"{where} inherits from {_name(base)}")
    return found


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
