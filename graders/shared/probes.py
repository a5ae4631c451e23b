"""Probes: plain-data views of modules that grader scenarios return as observations.

Every probe reads what a module holds without trusting it to be well formed:
the submission may yield a bare name where torch yields a ``(name, value)``
pair, or keep no ``_buffers`` at all. A probe then records what it found
("not a pair", "missing") instead of raising, so the difference is shown
where it lies and the check's own code never fails on a submission's value.

Views come in two shapes the comparison reads by name: dicts of named fields,
and lists of ``[name, value]`` pairs (what ``named_parameters()`` yields),
which :func:`~modlab.grading.compare.compare` matches name by name.
"""
from __future__ import annotations

NOT_A_PAIR = "<not a (name, value) pair>"
MISSING = "<missing>"
REGISTERS = ("_parameters", "_buffers", "_modules")


def kind(value) -> str | None:
    """What a value is, by its class name (``Parameter``, ``Tensor``, ``Linear``); None for None."""
    return None if value is None else type(value).__name__


def pairs(iterable) -> list[tuple[str, object]]:
    """The ``(name, value)`` pairs a walk yields; an item that is not such a
    pair becomes ``(NOT_A_PAIR, item)``."""
    found = []
    for item in iterable:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            found.append(item)
        else:
            found.append((NOT_A_PAIR, item))
    return found


def named_tensors(walk) -> list:
    """``[[name, tensor], ...]``: names, order, and every tensor's dtype, shape,
    requires_grad and values."""
    return [[name, tensor] for name, tensor in pairs(walk)]


def named_shapes(walk) -> list:
    """``[[name, shape], ...]``: names, order and shapes only (None for a None
    a walk should not have yielded; the class name for what is no tensor)."""
    return [[name, _shape(value)] for name, value in pairs(walk)]


def named_types(walk) -> list:
    """``[[name, class name], ...]`` for named modules or children (None for None)."""
    return [[name, kind(module)] for name, module in pairs(walk)]


def _shape(value):
    if value is None:
        return None
    shape = getattr(value, "shape", None)
    return list(shape) if shape is not None else kind(value)


def first_occurrences(items) -> list[int]:
    """For each item, the index where the same object (by identity) first
    appeared: ``[0, 1, 0]`` says the third item is the first one again."""
    seen: dict[int, int] = {}
    return [seen.setdefault(id(item), index) for index, item in enumerate(items)]


def registers(module) -> dict:
    """A module's registers and public attributes, by name, as they are now.

    ``{"_parameters": {name: kind}, "_buffers": {...}, "_non_persistent_buffers_set":
    [names], "_modules": {...}, "__dict__": {name: kind}}``; ``__dict__`` lists the
    public attributes other than ``training``, a missing register shows as
    ``MISSING``.
    """
    attributes = vars(module)
    view = {register: _kinds(attributes.get(register, MISSING)) for register in ("_parameters", "_buffers")}
    persistent = attributes.get("_non_persistent_buffers_set", MISSING)
    view["_non_persistent_buffers_set"] = sorted(persistent) if isinstance(persistent, (set, frozenset)) else kind(persistent)
    view["_modules"] = _kinds(attributes.get("_modules", MISSING))
    view["__dict__"] = {name: kind(value) for name, value in attributes.items()
                        if not name.startswith("_") and name != "training"}
    return view


def _kinds(register):
    if register is MISSING:
        return MISSING
    if not isinstance(register, dict):
        return kind(register)
    return {name: kind(value) for name, value in register.items()}
