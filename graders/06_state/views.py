"""The small models exercise 06's scenarios save and load (their leaves are defined
here: ``nn.Linear`` is exercise 08), the views of a state dict, and checkpoints with changes."""
from __future__ import annotations

from collections import OrderedDict
import re

import torch

from modlab.grading.fields import Field

from ..shared.probes import NON_PERSISTENT_NAMES
from ..shared.trees import lookup

# The fields scenarios observe under and detectors read, each defined once here.
STATE_TYPE = Field("type")
ITEMS = Field("items")
PREFIX = Field("prefix")
ALIASES = Field("aliases")
UNEXPECTED_KEYS = Field("unexpected_keys")
MISSING_KEYS = Field("missing_keys")
TENSOR_CLASS = Field("class")
REQUIRES_GRAD = Field("requires_grad")
SAME_AFTER_LOADING = Field("is the same tensor after loading")
ERROR_NAMES_EACH_KEY = Field("the error names each key")
STATE_DICT_KEYS = Field("model.state_dict() keys")
VERSIONS_SEEN = Field("[prefix, version] each override saw")
KEYS_SEEN = Field("keys each override saw")
STATE_DICT = Field("model.state_dict()")
COUNTER_CALLS = Field("fresh.counter.calls")
LOADED_TENSORS = Field("fresh's tensors after loading")
AFTER_ASSIGN = Field("is the checkpoint's tensor after assign")
COPIED_WITHOUT_ASSIGN = Field("weight after the same load without assign, into a fresh model")
WRONG_SHAPES_RAISES = Field("load_state_dict(strict=False) with wrong shapes raises")
VERSION_1 = Field("a version-1 checkpoint")
NO_METADATA = Field("a checkpoint without _metadata")
WRITTEN_CHECKPOINTS = (VERSION_1, NO_METADATA)  # checkpoints the scenario wrote, not the submission


def scale_class(nn):
    """``y = x * weight + bias``, with a step counter (an int64 buffer) and a
    cache that is not state (a non-persistent buffer)."""

    class Scale(nn.Module):
        def __init__(self, size=3):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(size))
            self.bias = nn.Parameter(torch.randn(size))
            self.register_buffer("steps", torch.zeros((), dtype=torch.long))
            self.register_buffer("cache", torch.zeros(size), persistent=False)

        def forward(self, x):
            return x * self.weight + self.bias

    return Scale


def net_class(nn):
    """Two Scale layers around a Parameter and a buffer of the parent itself."""
    Scale = scale_class(nn)

    class Net(nn.Module):
        def __init__(self, size=3):
            super().__init__()
            self.first = Scale(size)
            self.gain = nn.Parameter(torch.randn(size))
            self.register_buffer("mean", torch.randn(size))
            self.second = Scale(size)

        def forward(self, x):
            return self.second(self.first(x) * self.gain + self.mean)

    return Net


def items(state, model=None, prefix=""):
    """A state dict as plain data: its type, its keys and tensors in order, the prefix
    the model saved it under (where a destination may have held other keys before) and,
    given the model, the keys its non-persistent buffers would have (what is not state)."""
    view = {STATE_TYPE: type(state).__name__, ITEMS: state}
    if prefix:
        view[PREFIX] = prefix
    if model is not None:
        view[NON_PERSISTENT_NAMES] = non_persistent_keys(model, prefix)
    return view


def aliases(module, prefix="", seen=None):
    """The dotted names under which a module or a tensor is registered again
    (after its first name, in state_dict's order), read from the registers."""
    seen = set() if seen is None else seen
    found = []
    for register in (module._parameters, module._buffers):
        for name, tensor in register.items():
            if tensor is not None and id(tensor) in seen:
                found.append(prefix + name)
            elif tensor is not None:
                seen.add(id(tensor))
    for name, child in module._modules.items():
        if child is None:
            continue
        if id(child) in seen:
            found.append(prefix + name)
        seen.add(id(child))
        found += aliases(child, f"{prefix}{name}.", seen)
    return found


def non_persistent_keys(module, prefix=""):
    """The dotted names of every non-persistent buffer, read from the registers."""
    keys = [prefix + name for name in sorted(module._non_persistent_buffers_set)]
    for name, child in module._modules.items():
        if child is not None:
            keys += non_persistent_keys(child, f"{prefix}{name}.")
    return keys


def registered_tensors(module, prefix=""):
    """Every registered tensor by its dotted name, non-persistent buffers too, read from the registers
    (not through the state_dict() being graded): what a load must keep and copy into."""
    found = {prefix + name: tensor for register in (module._parameters, module._buffers)
             for name, tensor in register.items() if tensor is not None}
    for name, child in module._modules.items():
        if child is not None:
            found.update(registered_tensors(child, f"{prefix}{name}."))
    return found


def registered(model, state):
    """For each key, whether the model's registered tensor is that very object."""
    return {key: lookup(model, key) is value for key, value in state.items()}


def error_text(action, *args, **kwargs):
    """The exception type and its message (``attempt`` keeps only the type)."""
    try:
        return ["no error", action(*args, **kwargs)]
    except Exception as exc:  # the type and the wording are the observation
        return [type(exc).__name__, str(exc)]


def mentioned(raised, keys):
    """Which of ``keys`` an error message names (as a whole dotted name, quoted or not: the period that
    ends a sentence after an unquoted list is not part of its last key)."""
    text = raised[1] if raised[0] != "no error" else ""
    return [bool(re.search(rf"(?<![\w.]){re.escape(key)}(?!\w|\.\w)", text)) for key in keys]


def checkpoint(model, **changes):
    """The model's state dict, cloned, with ``changes`` applied (None deletes a key)."""
    state = {key: value.clone() for key, value in model.state_dict().items()}
    for key, value in changes.items():
        key = key.replace("__", ".")
        if value is None:
            del state[key]
        else:
            state[key] = value
    return state


def metadata(state):
    """A state dict's ``_metadata`` as plain data: ``{prefix: {"version": n}}`` in its order."""
    found = getattr(state, "_metadata", None)
    if found is None:
        return "<no _metadata>"
    return {key: dict(value) if isinstance(value, dict) else repr(value) for key, value in found.items()}


def versioned_tree(nn):
    """A root holding a module of its own class version 3 (with a child), an
    empty slot and a plain module."""

    class Versioned(nn.Module):
        _version = 3

        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(1))

    model = nn.Module()
    model.first = Versioned()
    model.first.inner = nn.Module()
    model.first.inner.register_buffer("mean", torch.zeros(1))
    model.add_module("empty", None)
    model.second = nn.Module()
    return model


def migrating_model(nn):
    """A model whose layers (class version 2) renamed their parameter ``w`` to
    ``weight``, with torch's documented migration: a ``_load_from_state_dict``
    override that renames the old key when the checkpoint's version is older.

    Returns:
        ``(model, seen)``: ``seen`` gets ``[prefix, version, sorted keys]`` for
        each override call, in the order they ran.
    """
    seen = []

    class Renamed(nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.zeros(2))

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                  error_msgs):
            version = local_metadata.get("version")
            seen.append([prefix, version, sorted(state_dict)])
            if (version is None or version < 2) and prefix + "w" in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                          error_msgs)

    model = nn.Module()
    model.body = Renamed()
    model.body.inner = Renamed()
    model.head = Renamed()
    return model, seen


def old_checkpoints():
    """``(label, checkpoint)`` for checkpoints of ``migrating_model`` saved before
    version 2: one whose metadata says version 1 (the head's says 2), one with no
    metadata at all."""
    versioned = OrderedDict([("body.w", torch.ones(2)), ("body.inner.w", torch.full((2,), 2.0)),
                             ("head.weight", torch.full((2,), 3.0))])
    versioned._metadata = OrderedDict([("", {"version": 1}), ("body", {"version": 1}), ("body.inner", {"version": 1}),
                                       ("head", {"version": 2})])
    plain = {"body.w": torch.ones(2), "body.inner.weight": torch.full((2,), 2.0), "head.w": torch.full((2,), 3.0)}
    return [(VERSION_1, versioned), (NO_METADATA, plain)]


def counter_class(nn):
    """A module that saves a plain Python counter as its extra state."""

    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(1))
            self.calls = 0

        def get_extra_state(self):
            return {"calls": self.calls}

        def set_extra_state(self, state):
            self.calls = state["calls"]

    return Counter


def hooked_tree(nn):
    """A model and its child, each with every kind of state-dict hook logging
    what it sees; the model's last load post-hook forgives the key ``extra``."""
    log = []
    model = nn.Module()
    model.child = scale_class(nn)()
    for name, module in (("model", model), ("child", model.child)):
        module.register_state_dict_pre_hook(
            lambda m, prefix, keep_vars, name=name: log.append(f"save pre {name} {prefix!r} {keep_vars}"))
        module.register_state_dict_post_hook(
            lambda m, state, prefix, local, name=name: log.append(f"save post {name} {prefix!r} {sorted(local)}"))
        module.register_load_state_dict_pre_hook(
            lambda m, state, prefix, local, strict, missing, unexpected, errors, name=name:
            log.append(f"load pre {name} {prefix!r} {sorted(state)}"))
        module.register_load_state_dict_post_hook(
            lambda m, keys, name=name: log.append(f"load post {name} {list(keys.missing_keys)} {list(keys.unexpected_keys)}"))
    model.register_load_state_dict_post_hook(lambda m, keys: keys.unexpected_keys.remove("extra"))
    return model, log
