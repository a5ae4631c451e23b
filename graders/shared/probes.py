"""Probes: plain-data views of modules that grader scenarios return as observations.

Every probe reads what a module holds without trusting it to be well formed:
the submission may yield a bare name where torch yields a ``(name, value)``
pair, or keep no ``_buffers`` at all. A probe then records what it found
("not a pair", "missing") instead of raising, so the difference is shown
where it lies and the check's own code never fails on a submission's value.

Views come in two shapes the comparison reads by name: dicts of named fields,
and lists of ``[name, value]`` pairs (what ``named_parameters()`` yields),
which :func:`~modlab.grading.compare.compare` matches name by name. The names
of the fields that several exercises' scenarios observe and their detectors
read are defined here, once.
"""
from __future__ import annotations

from modlab.grading.fields import Field

# The fields scenarios of several exercises observe under and detectors read, each defined once here.
# What registers() shows of a module:
PARAMETERS = Field("_parameters")
BUFFERS = Field("_buffers")
MODULES = Field("_modules")
NON_PERSISTENT = Field("_non_persistent_buffers_set")
ATTRIBUTES = Field("__dict__")
# The names of the buffers a scenario registered with persistent=False (what a walk
# yields and a state dict leaves out):
NON_PERSISTENT_NAMES = Field("non-persistent buffers")
# What hooks saw: the log hook scenarios return (its name, or the start of its name), and
# the calls made where a hook returned a replacement for the input or the output:
HOOK_LOG = Field("hook log")
PRE_HOOK_TUPLE = Field("m(x) after a pre-hook returning (args[0] * 10, 3)")
PRE_HOOK_SINGLE = Field("m(x) after a pre-hook returning args[0] + 1")
HOOK_TIMES_100 = Field("m(x) with a hook returning out * 100")
CHILD_HOOK_TIMES_10 = Field("model(x) with model[1]'s hook returning output * 10")
REPLACING_CALLS = (PRE_HOOK_TUPLE, PRE_HOOK_SINGLE, HOOK_TIMES_100, CHILD_HOOK_TIMES_10)
# The same call before any hook was registered: where it already differs, the hooks are not the cause.
BEFORE_HOOKS = Field("model(x) before any hook")
HOOK_TABLES = Field("len(m._forward_pre_hooks), len(m._forward_hooks)")
BEFORE_REPLACING = Field("m(x)")  # 04's call with hooks that replace nothing, before any that do

NOT_A_PAIR = "<not a (name, value) pair>"
MISSING = "<missing>"
REGISTERS = (PARAMETERS, BUFFERS, MODULES)


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
    view = {register: _kinds(attributes.get(register, MISSING)) for register in (PARAMETERS, BUFFERS)}
    persistent = attributes.get(NON_PERSISTENT, MISSING)
    view[NON_PERSISTENT] = sorted(persistent) if isinstance(persistent, (set, frozenset)) else kind(persistent)
    view[MODULES] = _kinds(attributes.get(MODULES, MISSING))
    view[ATTRIBUTES] = {name: kind(value) for name, value in attributes.items()
                        if not name.startswith("_") and name != "training"}
    return view


def _kinds(register):
    if register is MISSING:
        return MISSING
    if not isinstance(register, dict):
        return kind(register)
    return {name: kind(value) for name, value in register.items()}
