"""What exercise 02's scenarios do to a Module's registers and observe of them: deleting
attributes, calling the register methods with bad names, one step of a random assignment sequence."""
from __future__ import annotations

import torch

from modlab.grading import attempt
from modlab.grading.fields import Field

from ..shared.probes import BUFFERS, MODULES, PARAMETERS, registers

# The fields scenarios observe under and detectors read, each defined once here.
WITH_SUPER_FIRST = Field("with super().__init__() first")
PARAMETER_BEFORE_SUPER = Field("a Parameter before super().__init__()")
MODULE_BEFORE_SUPER = Field("a Module before super().__init__()")
BUFFER_BEFORE_SUPER = Field("register_buffer before super().__init__()")
BEFORE_SUPER = (PARAMETER_BEFORE_SUPER, MODULE_BEFORE_SUPER, BUFFER_BEFORE_SUPER)
REGISTERS_BEFORE = Field("registers before")
NOTHING_HERE = Field("m.nothing_here")
HAS_NOTHING_HERE = Field("hasattr(m, 'nothing_here')")
DIGIT_NAMES_IN_DIR = Field("names in dir(layers) starting with a digit")


def deleted(m, names) -> dict:
    """``del m.<name>`` for each name, then what the registers hold."""
    results = {f"del m.{name}": attempt(delattr, m, name) for name in names}
    return {**results, "registers": registers(m)}


def bad_name_calls(nn, names) -> dict:
    """Each register method called with each name; then the registers."""
    m = nn.Module()
    m.plain = 1
    calls = {}
    for method, value in (("register_parameter", nn.Parameter(torch.ones(1))), ("register_buffer", torch.ones(1)),
                          ("add_module", nn.Module())):
        for name in names:
            calls[f"m.{method}({name!r}, ...)"] = attempt(getattr(m, method), name, value)
    return {**calls, "registers": registers(m)}


def apply(nn, m, name, kind) -> tuple[str, object]:
    """Carry out one step; return how it reads and what it returned (or raised)."""
    if kind == "delete":
        return f"del m.{name}", attempt(delattr, m, name)
    if kind == "buffer":
        return f"m.register_buffer({name!r}, torch.zeros(1))", attempt(m.register_buffer, name, torch.zeros(1))
    values = {"parameter": ("Parameter(torch.ones(1))", lambda: nn.Parameter(torch.ones(1))),
              "module": ("Module()", nn.Module), "tensor": ("torch.ones(1)", lambda: torch.ones(1)),
              "number": ("1", lambda: 1), "none": ("None", lambda: None)}
    shown, make = values[kind]
    return f"m.{name} = {shown}", attempt(setattr, m, name, make())


def registered_names(m) -> list[str]:
    """Every name in the module's three registers, sorted (empty slots too)."""
    found = []
    for register in (PARAMETERS, BUFFERS, MODULES):
        held = vars(m).get(register)
        found += list(held) if isinstance(held, dict) else []
    return sorted(found)


def names_in_dir(m) -> list[str]:
    """The names of ``dir(m)`` that the module itself holds (registered or in
    ``__dict__``), in dir's order: the class's own attributes differ between
    torch.nn and mynn, so they are left out."""
    own = {*registered_names(m), *(name for name in vars(m) if not name.startswith("_"))}
    return [name for name in dir(m) if name in own]
