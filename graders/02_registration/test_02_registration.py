"""Exercise 02: registration. Scenarios look at the three registers directly
(``_parameters``, ``_buffers``, ``_modules``) and at ``__dict__``, since the
walk comes in 03: ``registers(m)`` shows, by name, what each one holds."""
from hypothesis import strategies as st
import torch

from modlab.grading import attempt, scenario

from ..shared.probes import registers
from .misconceptions import (bad_names_accepted, buffer_left_in_dict, delattr_skips_registers, dir_misses_registers,
                             getattr_misses_a_register, getattr_raises_attribute_error, module_left_in_dict,
                             name_stays_in_old_register, non_persistent_not_recorded, none_slot_dropped,
                             parameter_left_in_dict, replacing_moves_to_the_end, setattr_guard_missing,
                             tensor_onto_parameter_name_accepted, tensor_registered_as_parameter, wrong_kind_accepted)
from .views import (BUFFER_BEFORE_SUPER, DIGIT_NAMES_IN_DIR, HAS_NOTHING_HERE, MODULE_BEFORE_SUPER, NOTHING_HERE,
                    PARAMETER_BEFORE_SUPER, REGISTERS_BEFORE, WITH_SUPER_FIRST, apply, bad_name_calls, deleted,
                    names_in_dir, registered_names)

# Where a value lands, or does not: the misconceptions any assignment can show.
ROUTING = [module_left_in_dict, parameter_left_in_dict, tensor_registered_as_parameter,
           name_stays_in_old_register]


@scenario(points=1, public=True)
def init_creates_empty_registers(nn):
    """Module() starts with empty registers, in training mode"""
    m = nn.Module()
    return {"registers": registers(m), "m.training": m.training}


@scenario(points=3, public=True, misconceptions=ROUTING)
def setattr_routes_each_kind(nn):
    """__setattr__ routes Parameters, Modules and everything else"""
    m = nn.Module()
    m.child = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.scale = torch.ones(1)          # a bare tensor: an ordinary attribute
    m.size = 3
    return {"registers": registers(m), "m.size": m.size}


@scenario(points=2, public=True, misconceptions=[getattr_misses_a_register, getattr_raises_attribute_error])
def getattr_reads_the_registers(nn):
    """attribute access finds parameters, buffers and modules"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.register_buffer("running", torch.zeros(2))
    m.child = nn.Module()
    return {"m.weight is m._parameters['weight']": attempt(lambda: m.weight is m._parameters["weight"]),
            "m.running is m._buffers['running']": attempt(lambda: m.running is m._buffers["running"]),
            "m.child is m._modules['child']": attempt(lambda: m.child is m._modules["child"]),
            NOTHING_HERE: attempt(getattr, m, "nothing_here"),
            HAS_NOTHING_HERE: attempt(hasattr, m, "nothing_here"), "registers": registers(m)}


@scenario(points=1, public=True, misconceptions=[delattr_skips_registers])
def delattr_removes_a_parameter(nn):
    """del removes a parameter from _parameters"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.plain = 1
    return deleted(m, ["weight", "plain"])


@scenario(points=2, misconceptions=[delattr_skips_registers])
def delattr_removes_from_the_register(nn):
    """del removes a name from whichever register holds it"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.register_buffer("cache", torch.zeros(1), persistent=False)
    m.child = nn.Module()
    m.plain = 1
    observed = deleted(m, ["weight", "cache", "child", "plain"])
    return {**observed, "del m.weight again": attempt(delattr, m, "weight")}


@scenario(points=2, public=True, misconceptions=[non_persistent_not_recorded, none_slot_dropped])
def register_buffer_persistence(nn):
    """register_buffer keeps buffers, and remembers the non-persistent ones"""
    m = nn.Module()
    m.register_buffer("mean", torch.zeros(3))
    m.register_buffer("cache", torch.ones(3), persistent=False)
    m.register_buffer("empty", None)
    m.mean = torch.full((3,), 2.0)   # assigning a tensor to a buffer name replaces the buffer
    return {"registers": registers(m), "m.mean": m.mean}


@scenario(points=3, public=True, misconceptions=[setattr_guard_missing])
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

    class WithSuper(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(1))
            self.child = nn.Module()

    return {WITH_SUPER_FIRST: registers(WithSuper()),
            PARAMETER_BEFORE_SUPER: attempt(NoSuperParameter),
            MODULE_BEFORE_SUPER: attempt(NoSuperModule),
            BUFFER_BEFORE_SUPER: attempt(NoSuperBuffer)}


@scenario(points=1, public=True, misconceptions=[tensor_onto_parameter_name_accepted])
def tensor_onto_parameter_name_raises(nn):
    """a plain tensor assigned to a parameter's name raises TypeError"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    before = registers(m)
    return {REGISTERS_BEFORE: before, "m.weight = torch.zeros(2)": attempt(setattr, m, "weight", torch.zeros(2)),
            "registers after": registers(m)}


@scenario(points=2, misconceptions=[tensor_onto_parameter_name_accepted])
def wrong_values_onto_registered_names_raise(nn):
    """a tensor onto a module's name, a number onto a parameter's, raise TypeError"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(2))
    m.child = nn.Module()
    before = registers(m)
    return {REGISTERS_BEFORE: before, "m.child = torch.zeros(2)": attempt(setattr, m, "child", torch.zeros(2)),
            "m.weight = 3": attempt(setattr, m, "weight", 3), "registers after": registers(m)}


@scenario(points=1, public=True, misconceptions=[bad_names_accepted])
def dotted_names_raise(nn):
    """register_parameter / register_buffer / add_module reject a dotted name with KeyError"""
    return bad_name_calls(nn, ["a.b"])


@scenario(points=2, misconceptions=[bad_names_accepted])
def bad_names_raise(nn):
    """register_parameter / register_buffer / add_module reject bad names like torch"""
    return bad_name_calls(nn, ["a.b", "", 3, "plain"])


@scenario(points=1, public=True, misconceptions=[wrong_kind_accepted])
def registering_a_tensor_as_parameter_raises(nn):
    """register_parameter of a plain tensor, or register_buffer of a list, raises TypeError like torch"""
    m = nn.Module()
    leaf = nn.Parameter(torch.ones(2))
    return {"m.register_parameter('w', torch.ones(2))": attempt(m.register_parameter, "w", torch.ones(2)),
            "m.register_parameter('w', leaf * 2)": attempt(m.register_parameter, "w", leaf * 2),
            "m.register_buffer('b', [1, 2])": attempt(m.register_buffer, "b", [1, 2]),
            "registers": registers(m)}


@scenario(points=2, misconceptions=[wrong_kind_accepted, non_persistent_not_recorded])
def wrong_kinds_raise(nn):
    """registering a value of the wrong kind raises TypeError or ValueError like torch"""
    m = nn.Module()
    return {"m.register_buffer('b', [1, 2])": attempt(m.register_buffer, "b", [1, 2]),
            "m.add_module('c', torch.ones(1))": attempt(m.add_module, "c", torch.ones(1)),
            "m.register_buffer('d', torch.ones(1), persistent=False)":
                attempt(m.register_buffer, "d", torch.ones(1), persistent=False),
            "registers": registers(m)}


@scenario(points=2, public=True, misconceptions=[none_slot_dropped])
def none_keeps_a_slot(nn):
    """None registers an empty slot that later assignments keep"""
    m = nn.Module()
    m.add_module("body", nn.Module())  # a slot's neighbour: what a register keeps when given a value
    m.register_parameter("bias", None)
    m.add_module("head", None)
    before = {"registers": registers(m), "m.bias": attempt(getattr, m, "bias"), "m.head": attempt(getattr, m, "head")}
    m.bias = nn.Parameter(torch.zeros(1))
    m.head = nn.Module()
    filled = registers(m)
    m.bias = None
    return {"after registering None": before, "after assigning into the slots": filled,
            "after m.bias = None again": registers(m), "m.bias": attempt(getattr, m, "bias")}


@scenario(points=2, public=True, misconceptions=[*ROUTING, replacing_moves_to_the_end])
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
    return {"registers": registers(m), "m.a": m.a}


@scenario(points=2, public=True, misconceptions=ROUTING)
def a_name_moves_between_registers(nn):
    """assigning a new kind to a name moves it out of its old register"""
    m = nn.Module()
    steps = [("m.thing = 3", lambda: setattr(m, "thing", 3)),
             ("m.thing = Parameter(...)", lambda: setattr(m, "thing", nn.Parameter(torch.ones(1)))),
             ("m.other = Module()", lambda: setattr(m, "other", nn.Module())),
             ("del m.other", lambda: delattr(m, "other")),
             ("m.other = Parameter(...)", lambda: setattr(m, "other", nn.Parameter(torch.ones(1)))),
             ("m.register_buffer('buf', ...)", lambda: m.register_buffer("buf", torch.ones(1))),
             ("m.buf = Parameter(...)", lambda: setattr(m, "buf", nn.Parameter(torch.ones(1))))]
    return [{text: attempt(step), "registers": registers(m)} for text, step in steps]


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


@scenario(points=4, specs=STEPS, examples=60,
          misconceptions=[*ROUTING, replacing_moves_to_the_end, delattr_skips_registers, none_slot_dropped,
                          tensor_onto_parameter_name_accepted])
def random_assignment_sequences(nn, spec):
    """any sequence of assignments leaves the registers as torch leaves them"""
    m = nn.Module()
    history = []
    for name, kind in spec:
        step, result = apply(nn, m, name, kind)
        history.append({step: result, "registers": registers(m)})
    return history


# Buffer, dir() and call_super_init: what torch.nn.Module has grown since.

@scenario(points=2, public=True, misconceptions=[buffer_left_in_dict])
def buffer_assignment_registers(nn):
    """m.x = nn.Buffer(t) registers a buffer with its persistence; a plain tensor replacing a buffer keeps it"""
    m = nn.Module()
    m.plain = 1
    m.weight = nn.Parameter(torch.ones(1))
    steps = [("m.mean = nn.Buffer(torch.zeros(2))", lambda: setattr(m, "mean", nn.Buffer(torch.zeros(2)))),
             ("m.cache = nn.Buffer(torch.ones(2), persistent=False)",
              lambda: setattr(m, "cache", nn.Buffer(torch.ones(2), persistent=False))),
             ("m.cache = torch.full((2,), 3.0)", lambda: setattr(m, "cache", torch.full((2,), 3.0))),
             ("m.mean = nn.Buffer(torch.ones(2), persistent=False)",
              lambda: setattr(m, "mean", nn.Buffer(torch.ones(2), persistent=False))),
             ("m.plain = nn.Buffer(torch.ones(1))", lambda: setattr(m, "plain", nn.Buffer(torch.ones(1)))),
             ("m.weight = nn.Buffer(torch.ones(1))", lambda: setattr(m, "weight", nn.Buffer(torch.ones(1))))]
    return [{text: attempt(step), "registers": registers(m), "m.state_dict() keys": list(m.state_dict())}
            for text, step in steps]


@scenario(points=1, public=True, misconceptions=[dir_misses_registers])
def dir_lists_registered_names(nn):
    """dir(m) lists registered parameters, buffers and submodules, never a name starting with a digit"""
    m = nn.Module()
    m.weight = nn.Parameter(torch.ones(1))
    m.register_buffer("running", torch.zeros(1))
    m.register_parameter("empty", None)
    m.child = nn.Module()
    m.plain = 1
    m.scale = torch.ones(1)
    layers = nn.Module()
    for name in ("0", "1", "head"):
        layers.add_module(name, nn.Module())
    return {"m: the registered names": registered_names(m), "m: dir(m), the names above": names_in_dir(m),
            "layers: the registered names": registered_names(layers),
            "layers: dir(layers), the names above": names_in_dir(layers),
            DIGIT_NAMES_IN_DIR: [name for name in dir(layers) if name[:1].isdigit()]}


@scenario(points=1)
def call_super_init_hands_on_args(nn):
    """call_super_init = True hands Module's arguments to the next class's __init__; else they raise TypeError"""
    class Recorder:
        def __init__(self, *args, **kwargs):
            self.recorded = [list(args), sorted(kwargs.items())]

    class Hands(nn.Module, Recorder):
        call_super_init = True

    class Keeps(nn.Module, Recorder):
        pass

    def made(cls, *args, **kwargs):
        module = cls(*args, **kwargs)
        return {"recorded": getattr(module, "recorded", "<no attribute>"), "registers": registers(module)}

    return {"nn.Module.call_super_init": nn.Module.call_super_init, "Hands(1, 2, k=3)": attempt(made, Hands, 1, 2, k=3),
            "Hands()": attempt(made, Hands), "Keeps()": attempt(made, Keeps), "Keeps(1)": attempt(made, Keeps, 1),
            "Keeps(k=1)": attempt(made, Keeps, k=1), "nn.Module(1)": attempt(nn.Module, 1)}
