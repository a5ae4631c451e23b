"""Misconceptions more than one exercise can show, and the helpers detectors share."""
from __future__ import annotations

import re

from modlab.grading.evidence import RaisedView

from .catalog import misconception

REGISTER_TROUBLE = re.compile(r"_parameters|_buffers|_modules|before Module\.__init__\(\)")


def raised(value, *types: str) -> bool:
    """Whether an observed value is an exception (of one of ``types``, if given)."""
    return isinstance(value, RaisedView) and (not types or value.type in types)


def views(e, *keys: str) -> list[tuple[dict, dict]]:
    """The ``(torch, yours)`` pairs of dicts that hold all of ``keys`` (the
    views a probe such as ``registers()`` returns)."""
    return [(t, y) for t, y in e.pairs_where(lambda name, value: isinstance(value, dict) and all(k in value for k in keys))
            if isinstance(y, dict)]


@misconception("missing-super-init", "02", """
    missing super().__init__(): the registers _parameters, _buffers and _modules must exist before the
    first attribute is assigned, so a Module subclass's __init__ calls super().__init__() first""",
               on_raise=True)
def missing_super_init(e):
    """The submission raised AttributeError about a missing register (or "before Module.__init__()")
    while running the __init__ of one of its own Module subclasses."""
    r = e.raised or {}
    own_init = any(function.endswith(".__init__") and not function.endswith("Module.__init__")
                   for _, _, function in r.get("frames", []))
    return r.get("type") == "AttributeError" and bool(REGISTER_TROUBLE.search(r.get("message", ""))) and own_init


@misconception("bare-tensor", "08", """
    a bare tensor where a Parameter was meant: only Parameter objects are registered in _parameters and
    handed to the optimizer, so a layer's weights are nn.Parameter(torch.empty(...)), initialised in place""")
def bare_tensor(e):
    """torch registered a Parameter in _parameters where the submission holds a plain Tensor attribute."""
    for t, y in views(e, "_parameters", "__dict__"):
        registered = t["_parameters"] if isinstance(t["_parameters"], dict) else {}
        for name, kind in registered.items():
            torch_kind = kind.get("kind") if isinstance(kind, dict) else kind
            if torch_kind == "Parameter" and y["__dict__"].get(name) == "Tensor":
                return True
    return False
