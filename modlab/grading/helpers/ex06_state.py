"""The small models exercise 06's scenarios save and load (their leaves are defined
here: ``nn.Linear`` is exercise 08), the views of a state dict, and checkpoints with changes."""
from __future__ import annotations

import re

import torch

from modlab.grading.trees import lookup


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
    """A state dict as plain data: its type, its keys and tensors in order and,
    given the model, the keys its non-persistent buffers would have (what is not state)."""
    view = {"type": type(state).__name__, "items": state}
    if model is not None:
        view["non-persistent buffers"] = non_persistent_keys(model, prefix)
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


def registered(model, state):
    """For each key, whether the model's registered tensor is that very object."""
    return {key: lookup(model, key) is value for key, value in state.items()}


def error_text(action, *args, **kwargs):
    """The exception type and its message (``outcome`` keeps only the type)."""
    try:
        return ["no error", action(*args, **kwargs)]
    except Exception as exc:  # the type and the wording are the observation
        return [type(exc).__name__, str(exc)]


def mentioned(raised, keys):
    """Which of ``keys`` an error message names (as a whole dotted name, quoted or not)."""
    text = raised[1] if raised[0] != "no error" else ""
    return [bool(re.search(rf"(?<![\\w.]){re.escape(key)}(?![\\w.])", text)) for key in keys]


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
