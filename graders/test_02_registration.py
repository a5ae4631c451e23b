"""Exercise 02: registration. Scenarios look at the three registers directly
(``_parameters``, ``_buffers``, ``_modules``), since the walk comes in 03."""
import torch
from hypothesis import strategies as st

from modlab.grading import hints, outcome, scenario


def registers(module):
    """The registers as plain data: names in order, and what each holds."""
    def kinds(register):
        return [[name, None if value is None else type(value).__name__] for name, value in register.items()]

    return {
        "parameters": kinds(module._parameters),
        "buffers": kinds(module._buffers),
        "modules": kinds(module._modules),
        "non_persistent": sorted(module._non_persistent_buffers_set),
    }


@scenario(points=1, public=True)
def init_creates_empty_registers(nn):
    """Module() starts with empty registers, in training mode"""
    m = nn.Module()
    return [registers(m), m.training]


ROUTING = hints.by_path(modules=hints.MODULE_NOT_REGISTERED, parameters=hints.BARE_TENSOR,
                        buffers=hints.BARE_TENSOR)


@scenario(points=3, public=True, hint=ROUTING)
def setattr_routes_each_kind(nn):
    """__setattr__ routes Parameters, Modules and everything else"""
    m = nn.Module()
    m.child = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.scale = torch.ones(1)          # a bare tensor: an ordinary attribute
    m.size = 3
    return [registers(m), "scale" in vars(m), "weight" in vars(m), "child" in vars(m), m.size]


@scenario(points=2, public=True)
def getattr_reads_the_registers(nn):
    """attribute access finds parameters, buffers and modules"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.register_buffer("running", torch.zeros(2))
    m.child = nn.Module()
    return [m.weight is m._parameters["weight"], m.running is m._buffers["running"],
            m.child is m._modules["child"], outcome(getattr, m, "nothing_here")]


@scenario(points=2)
def delattr_removes_from_the_register(nn):
    """del removes a name from whichever register holds it"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.register_buffer("cache", torch.zeros(1), persistent=False)
    m.child = nn.Module()
    m.plain = 1
    for name in ("weight", "cache", "child", "plain"):
        delattr(m, name)
    return [registers(m), "plain" in vars(m), outcome(delattr, m, "weight")]


@scenario(points=2, public=True)
def register_buffer_persistence(nn):
    """register_buffer keeps buffers, and remembers the non-persistent ones"""
    m = nn.Module()
    m.register_buffer("mean", torch.zeros(3))
    m.register_buffer("cache", torch.ones(3), persistent=False)
    m.register_buffer("empty", None)
    m.mean = torch.full((3,), 2.0)   # assigning a tensor to a buffer name replaces the buffer
    return [registers(m), m.mean]


@scenario(points=3, public=True, hint=hints.MISSING_SUPER)
def assigning_before_super_init_raises(nn):
    """assigning a Parameter or Module before super().__init__() raises AttributeError"""
    class NoSuperParameter(nn.Module):
        def __init__(self):
            self.weight = nn.Parameter(torch.ones(1))
            super().__init__()

    class NoSuperModule(nn.Module):
        def __init__(self):
            self.child = nn.Module()
            super().__init__()

    class NoSuperBuffer(nn.Module):
        def __init__(self):
            self.register_buffer("mean", torch.zeros(1))

    return [outcome(NoSuperParameter), outcome(NoSuperModule), outcome(NoSuperBuffer)]


@scenario(points=2, hint=hints.BARE_TENSOR)
def tensor_onto_parameter_name_raises(nn):
    """a plain tensor assigned to a parameter's name raises TypeError"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.child = nn.Module()
    return [outcome(setattr, m, "weight", torch.zeros(2)), outcome(setattr, m, "child", torch.zeros(2)),
            registers(m)]


@scenario(points=2)
def bad_names_raise(nn):
    """register_parameter / register_buffer / add_module reject bad names like torch"""
    m = nn.Module()
    m.plain = 1
    p = nn.Parameter(torch.ones(1))
    calls = []
    for register, value in ((m.register_parameter, p), (m.register_buffer, torch.ones(1)), (m.add_module, nn.Module())):
        for name in ("a.b", "", 3, "plain"):
            calls.append(outcome(register, name, value))
    return calls + [registers(m)]


@scenario(points=2)
def wrong_kinds_raise(nn):
    """registering a value of the wrong kind raises TypeError or ValueError like torch"""
    m = nn.Module()
    leaf = nn.Parameter(torch.ones(2))
    return [
        outcome(m.register_parameter, "w", torch.ones(2)),
        outcome(m.register_parameter, "w", leaf * 2),
        outcome(m.register_buffer, "b", [1, 2]),
        outcome(m.add_module, "c", torch.ones(1)),
        registers(m),
    ]


@scenario(points=2, public=True)
def none_keeps_a_slot(nn):
    """None registers an empty slot that later assignments keep"""
    m = nn.Module()
    m.register_parameter("bias", None)
    m.add_module("head", None)
    before = [registers(m), m.bias, m.head]
    m.bias = nn.Parameter(torch.zeros(1))
    m.head = nn.Module()
    m.bias = None
    return [before, registers(m), m.bias]


@scenario(points=2, public=True, hint=ROUTING)
def replacing_keeps_position(nn):
    """replacing a registered value keeps its place in the register"""
    m = nn.Module()
    m.a = nn.Parameter(torch.ones(1))
    m.b = nn.Parameter(torch.ones(1))
    m.c = nn.Parameter(torch.ones(1))
    m.x = nn.Module()
    m.y = nn.Module()
    m.a = nn.Parameter(torch.zeros(1))
    m.x = nn.Module()
    return [registers(m), m.a]


@scenario(points=2)
def a_name_moves_between_registers(nn):
    """assigning a new kind to a name moves it out of its old register"""
    m = nn.Module()
    m.thing = 3
    m.thing = nn.Parameter(torch.ones(1))
    first = [registers(m), "thing" in vars(m)]
    m.other = nn.Module()
    del m.other
    m.other = nn.Parameter(torch.ones(1))
    m.register_buffer("buf", torch.ones(1))
    m.buf = nn.Parameter(torch.ones(1))
    return [first, registers(m)]


@scenario(points=1)
def register_module_is_add_module(nn):
    """register_module is an alias of add_module"""
    m = nn.Module()
    m.register_module("head", nn.Module())
    m.add_module("0", nn.Module())
    return registers(m)


# Random sequences of assignments, applied in both worlds. Hypothesis draws
# them derandomized, so every submission meets the same sequences.
NAMES = st.sampled_from(["a", "b", "c"])
KINDS = st.sampled_from(["parameter", "module", "buffer", "tensor", "number", "none", "delete"])
STEPS = st.lists(st.tuples(NAMES, KINDS), min_size=1, max_size=8)


def apply(nn, m, name, kind):
    if kind == "delete":
        return outcome(delattr, m, name)
    if kind == "buffer":
        return outcome(m.register_buffer, name, torch.zeros(1))
    values = {"parameter": lambda: nn.Parameter(torch.ones(1)), "module": nn.Module,
              "tensor": lambda: torch.ones(1), "number": lambda: 1, "none": lambda: None}
    return outcome(setattr, m, name, values[kind]())


@scenario(points=4, specs=STEPS, examples=60, hint=ROUTING)
def random_assignment_sequences(nn, spec):
    """any sequence of assignments leaves the registers as torch leaves them"""
    m = nn.Module()
    history = []
    for name, kind in spec:
        result = apply(nn, m, name, kind)
        history.append([result if not isinstance(result, (int, type(None))) else None, registers(m),
                        sorted(k for k in ("a", "b", "c") if k in vars(m))])
    return history
