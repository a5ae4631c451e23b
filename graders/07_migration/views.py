"""The models exercise 07's scenarios move between devices and dtypes, and the views
of every registered tensor (read from the registers, not through the walk) before and after."""
from __future__ import annotations

import torch

from modlab.grading.fields import Field

# The fields scenarios observe under and detectors read, each defined once here.
VALUE = Field("value")
GRAD = Field("grad")
DTYPE = Field("dtype")
DEVICE = Field("device")
SAME_PARAMETER = Field("is the same Parameter object")
CLASSES_SEEN = Field("the classes fn saw, in order")
SEEN = Field("what fn saw, in order")
UNREGISTERED = Field("unregistered:")


def affine_class(nn):
    """A Linear-like leaf (``F.linear``), with an int64 step counter and a bool mask."""

    class Affine(nn.Module):
        def __init__(self, n_in=3, n_out=3):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(n_out, n_in))
            self.bias = nn.Parameter(torch.randn(n_out))
            self.register_buffer("steps", torch.tensor(3))
            self.register_buffer("mask", torch.ones(n_out, dtype=torch.bool))
            self.register_buffer("mean", torch.randn(n_out))

        def forward(self, x):
            return torch.nn.functional.linear(x, self.weight, self.bias)

    return Affine


def net_class(nn):
    """Two Affine layers around a Parameter of the parent itself."""
    Affine = affine_class(nn)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Affine()
            self.gain = nn.Parameter(torch.randn(3))
            self.second = Affine()

        def forward(self, x):
            return self.second(self.first(x) * self.gain)

    return Net


def registered(model):
    """Every registered tensor (parameters, then buffers, module by module) as
    ``[name, tensor]``, read from the registers, not through the walk (repeats kept)."""
    return [[prefix + name, tensor] for prefix, module in _modules(model)
            for register in (module._parameters, module._buffers) for name, tensor in register.items()]


def _modules(model, prefix=""):
    yield prefix, model
    for name, child in model._modules.items():
        if child is not None:
            yield from _modules(child, f"{prefix}{name}.")


def tensors(model):
    """Every registered tensor as it is now: its class, requires_grad, a copy of its
    values (dtype, device) and of its gradient, by name; later moves cannot change it."""
    return [[name, None if t is None else {"class": type(t).__name__, "requires_grad": t.requires_grad,
                                           VALUE: _copy(t), GRAD: _copy(t.grad)}]
            for name, t in registered(model)]


def _copy(tensor):
    return None if tensor is None else tensor.detach().clone()


def parameters(model):
    """The registered Parameters (and None slots), read from the registers."""
    return [p for _, module in _modules(model) for p in module._parameters.values()]


def same_objects(model, before):
    """Whether each registered Parameter is still the object it was in ``before``."""
    return [now is then for now, then in zip(parameters(model), before)]


def dtypes(model):
    """``[name, {dtype, device}]`` of every registered tensor, as it is now."""
    return [[name, None if t is None else {DTYPE: t.dtype, DEVICE: t.device.type}] for name, t in registered(model)]


def trained(model, x):
    """The model after one backward pass, so its parameters have gradients."""
    model(x).pow(2).sum().backward()
    return model
