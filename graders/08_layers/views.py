"""Views of exercise 08's layers (their registers, state, gradients and printed form),
and the models built from the random layer trees its ``repr`` scenario draws."""
from __future__ import annotations

from collections import OrderedDict

from modlab.grading.fields import Field

from ..shared.probes import ATTRIBUTES, BUFFERS, PARAMETERS, registers

# The fields scenarios observe under and detectors read, each defined once here.
WEIGHT = Field("weight")
BIAS = Field("bias")
LAYER_TENSORS = Field("each layer's parameters and buffers")
NUM_BATCHES_TRACKED = Field("num_batches_tracked")
BN_BUFFERS = Field("buffers")
UNCHANGED_IN_EVAL = Field("buffers unchanged in eval")
PRINTED_LINES = Field("printed lines")
LOAD_STRICT = Field("load_state_dict(strict=True)")
IN_EVAL = Field(" in eval")  # the end of the name of a call made in eval mode (see in_eval())


def in_eval(call: str) -> str:
    """The name under which a scenario observes ``call`` made in eval mode."""
    return f"{call}{IN_EVAL}"


def tensor_registers(module):
    """Each register as {name: {kind, dtype, shape}} (None for an empty slot), and the tensors held in
    __dict__ (torch's layers keep none there)."""
    def entries(register):
        return {name: None if value is None else {"kind": type(value).__name__, "dtype": str(value.dtype),
                                                  "shape": list(value.shape)} for name, value in register.items()}

    return {PARAMETERS: entries(module._parameters), BUFFERS: entries(module._buffers),
            ATTRIBUTES: {name: kind for name, kind in registers(module)[ATTRIBUTES].items() if kind in TENSORS}}


TENSORS = ("Tensor", "Parameter")


def state(bn):
    """A BatchNorm1d's buffers as they are now, by name (None when it keeps no running
    statistics): copies, so that a later step cannot change what this one observed."""
    buffers = {name: getattr(bn, name) for name in ("running_mean", "running_var", NUM_BATCHES_TRACKED)}
    return {name: None if value is None else value.detach().clone() for name, value in buffers.items()}


def grads(**tensors):
    return {f"{name}.grad": t.grad for name, t in tensors.items()}


def printed(module, lines=40):
    """``repr(module)`` as ``lines`` entries, one per printed line (None past
    the last), then the number of lines. A difference then names the first
    line that differs; leading spaces show as ``·``, since one-line feedback
    would squeeze them away."""
    text = repr(module).split("\n")
    rows = ["·" * (len(line) - len(line.lstrip(" "))) + line.lstrip(" ") for line in text[:lines]]
    return {PRINTED_LINES: rows + [None] * (lines - len(rows)), "number of lines": len(text)}


def build(nn, spec):
    """The module a TREES spec describes, built with this world's nn."""
    kind, *args = spec
    if kind == "linear":
        return nn.Linear(args[0], args[1], bias=args[2])
    if kind == "relu":
        return nn.ReLU(inplace=args[0])
    if kind == "batchnorm":
        return nn.BatchNorm1d(args[0], momentum=args[1], affine=args[2])
    if kind == "mse":
        return nn.MSELoss()
    children = [build(nn, child) for child in args[0]]
    if kind == "seq":
        return nn.Sequential(*children)
    if kind == "list":
        return nn.ModuleList(children)
    module = nn.Module()
    for index, child in enumerate(children):
        setattr(module, f"part{index}", child)
    return module


def built_code(spec) -> str:
    """The code that builds a TREES spec, as a student would write it: how a failing tree
    reads in feedback (``shown=built_code``).

    Example::

        built_code(("module", [("linear", 2, 3, True), ("seq", [("relu", False)])]))
        # 'm0 = nn.Module(); m0.part0 = nn.Linear(2, 3, bias=True); m0.part1 = nn.Sequential(nn.ReLU(inplace=False)); root = m0'
    """
    lines: list[str] = []
    lines.append(f"root = {_expression(spec, lines)}")
    return "; ".join(lines)


def _expression(spec, lines: list[str]) -> str:
    kind, *args = spec
    if kind == "linear":
        return f"nn.Linear({args[0]}, {args[1]}, bias={args[2]})"
    if kind == "relu":
        return f"nn.ReLU(inplace={args[0]})"
    if kind == "batchnorm":
        return f"nn.BatchNorm1d({args[0]}, momentum={args[1]}, affine={args[2]})"
    if kind == "mse":
        return "nn.MSELoss()"
    children = [_expression(child, lines) for child in args[0]]
    if kind == "seq":
        return f"nn.Sequential({', '.join(children)})"
    if kind == "list":
        return f"nn.ModuleList([{', '.join(children)}])"
    name = f"m{sum(line.endswith('= nn.Module()') for line in lines)}"
    lines.append(f"{name} = nn.Module()")
    lines.extend(f"{name}.part{index} = {child}" for index, child in enumerate(children))
    return name


def old_batchnorm_checkpoint(bn, version):
    """``bn``'s state dict as a BatchNorm saved before ``num_batches_tracked``
    existed: without that key, its metadata's version ``version`` (no metadata
    at all for None)."""
    saved = bn.state_dict()
    checkpoint = OrderedDict((key, value.clone()) for key, value in saved.items() if key != NUM_BATCHES_TRACKED)
    if version is not None:
        checkpoint._metadata = OrderedDict([("", {"version": version})])
    return checkpoint
