"""The modules exercise 04's scenarios call, whose hooks write what they see into a log,
and the views of a tree's modes, gradients and frozen parameters."""
from __future__ import annotations

import warnings

import torch

from modlab.grading.fields import Field
from modlab.grading.observe import Raised, attempt

from ..shared.trees import leaf_class

# The fields scenarios observe under and detectors read, each defined once here.
FORWARD_PRE_HOOKS_SIZE = Field("len(m._forward_pre_hooks)")
FORWARD_HOOKS_SIZE = Field("len(m._forward_hooks)")
MESSAGES_NAME_THE_CLASS = Field("the messages name the class")
GRAD_ZEROED = Field("the grad is zeroed")
HISTORY_CUT = Field("the grad's history is cut")
KWARGS_HOOKS_SAW = Field("what the kwargs hooks saw")
ALWAYS_CALLED_LOG = Field("always-called hook log")
BACKWARD_LOG = Field("backward hook log")
TRAINING_MODES = Field("modes")
GRADS_AFTER = Field("grads after")
GRADS_BEFORE = Field("grads before")
GRADS_AFTER_ZEROING = Field(f"{GRADS_AFTER} zero_grad(set_to_none=False)")
REQUIRES_GRAD_AFTER = Field("requires_grad after")
PRE_HOOK_KWARGS_MARKED = Field("pre-hook id in _forward_pre_hooks_with_kwargs")
HOOK_KWARGS_MARKED = Field("hook id in _forward_hooks_with_kwargs")


def doubler(nn):
    """A module whose forward doubles its input and adds a keyword offset."""

    class Doubler(nn.Module):
        def forward(self, x, offset=0):
            return 2 * x + offset

    return Doubler()


def two_layers(nn, log):
    """A net whose forward calls its two leaves, each with hooks that log."""
    Leaf = leaf_class(nn)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Leaf(2, 3)
            self.second = Leaf(3, 1)

        def forward(self, x):
            return self.second(torch.relu(self.first(x)))

    net = Net()
    for name, module in [("net", net), ("first", net.first), ("second", net.second)]:
        module.register_forward_pre_hook(lambda m, args, name=name: log.append(f"pre {name}"))
        module.register_forward_hook(lambda m, args, out, name=name: log.append(f"post {name} {list(out.shape)}"))
    return net


def names_the_module(result, name: str) -> bool:
    """Whether an exception's message names the module class, as torch's does."""
    return isinstance(result, Raised) and f"[{name}]" in result.message


def modes(root):
    """The training flag of every module, by name."""
    return [[name, module.training] for name, module in root.named_modules(remove_duplicate=False)]


def with_grads(nn):
    """A leaf with gradients from a backward pass, a parameter of the root's own with one too,
    and one parameter without."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.body = Leaf(2, 2)
    root.scale = nn.Parameter(torch.ones(1))
    root.unused = nn.Parameter(torch.ones(3))
    (root.body(torch.ones(1, 2)) * root.scale).sum().backward()
    return root


def grads(root):
    """Each parameter's gradient, by name, read from the registers (not the walk)."""
    found = [[name, p.grad] for name, p in root._parameters.items() if p is not None]
    for child_name, child in root._modules.items():
        if child is not None:
            found += [[f"{child_name}.{name}", grad] for name, grad in grads(child)]
    return found


def frozen(root):
    return [[name, p.requires_grad] for name, p in root.named_parameters(remove_duplicate=False)]


def always_called_hooks(nn):
    """Calls that fail (in forward, in a pre-hook, in a hook) with always-called
    hooks registered: what each raised, the log of the hooks that ran, the warnings."""
    log = []

    class Fails(nn.Module):
        def forward(self, x, fail=False):
            log.append("forward")
            if fail:
                raise ValueError("forward failed")
            return x * 2

    def raising(mod, args, out):
        log.append("always raising")
        raise KeyError("a hook failed")

    m = Fails()
    m.register_forward_hook(lambda mod, args, out: log.append(f"always first {out is None}"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: log.append("plain"))
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append(f"always with kwargs {sorted(kwargs)}"),
                            always_call=True, with_kwargs=True)
    observed = {}
    for label, call in (("m(x)", lambda: m(torch.ones(1))), ("m(x, fail=True)", lambda: m(torch.ones(1), fail=True))):
        log.append(f"| {label}")
        observed[label] = attempt(call)
    failing_pre = m.register_forward_pre_hook(lambda mod, args: {}["missing"])
    log.append("| m(x) with a failing pre-hook")
    observed["m(x) with a failing pre-hook"] = attempt(m, torch.ones(1))
    failing_pre.remove()
    m.register_forward_hook(raising, always_call=True, prepend=True)
    log.append("| m(x, fail=True) with an always-called hook that raises")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        observed["m(x, fail=True) with an always-called hook that raises"] = attempt(m, torch.ones(1), fail=True)
    return {**observed, ALWAYS_CALLED_LOG: log,
            "warned": sorted({warning.category.__name__ for warning in caught})}


def hook_marks(m, pre_handle, post_handle) -> dict:
    """Which marking tables hold each handle's id."""
    return {PRE_HOOK_KWARGS_MARKED: pre_handle.id in m._forward_pre_hooks_with_kwargs,
            HOOK_KWARGS_MARKED: post_handle.id in m._forward_hooks_with_kwargs,
            "hook id in _forward_hooks_always_called": post_handle.id in m._forward_hooks_always_called,
            "hook id in _forward_hooks": post_handle.id in m._forward_hooks}


def backward_hooks_run(nn):
    """A leaf with backward hooks and pre-hooks (one prepended), called and
    backpropagated twice: the order they ran in, the gradient shapes they saw,
    and the input's gradient, zeroed the second time by a pre-hook."""
    Leaf = leaf_class(nn)
    layer = Leaf(3, 2)
    log = []

    def shapes(grads):
        return [None if g is None else list(g.shape) for g in grads]

    layer.register_full_backward_pre_hook(lambda mod, grad_out: log.append(f"backward pre {shapes(grad_out)}"))
    layer.register_full_backward_hook(lambda mod, grad_in, grad_out: log.append(
        f"backward {shapes(grad_in)} {shapes(grad_out)}"))
    layer.register_full_backward_hook(lambda mod, grad_in, grad_out: log.append("backward first"), prepend=True)
    layer.register_forward_hook(lambda mod, args, out: log.append("post layer"))
    observed = {}
    for label in ("first backward", "with a pre-hook returning zeros"):
        if label != "first backward":
            layer.register_full_backward_pre_hook(lambda mod, grad_out: tuple(torch.zeros_like(g) for g in grad_out))
        x = torch.ones(4, 3, requires_grad=True)
        log.append(f"| {label}")
        layer(x).pow(2).sum().backward()
        observed[label] = {"x.grad": x.grad, "layer.weight.grad": layer.weight.grad}
        layer.zero_grad()
    return {BACKWARD_LOG: log, **observed}
