"""Misconceptions of exercise 02, registration. Most detectors read the
``registers(m)`` views (:mod:`modlab.grading.probes`): by name, what
``_parameters``, ``_buffers``, ``_modules`` and ``__dict__`` hold."""
from __future__ import annotations

import re

from modlab.grading.catalog import misconception
from modlab.grading.evidence import raised

from ..shared.misconceptions import raised_where_torch_returned
from ..shared.probes import ATTRIBUTES, BUFFERS, MODULES, NON_PERSISTENT, PARAMETERS
from .views import BEFORE_SUPER, DIGIT_NAMES_IN_DIR, HAS_NOTHING_HERE, NOTHING_HERE, REGISTERS_BEFORE, WITH_SUPER_FIRST

REGISTER_NAMES = (PARAMETERS, BUFFERS, MODULES)
# torch's message (and the reference's) for a name that is already an attribute of another kind.
ALREADY_EXISTS = re.compile(r"attribute '(?P<name>[^']+)' already exists")


def _registered(view: dict, register: str) -> dict:
    value = view.get(register)
    return value if isinstance(value, dict) else {}


def _moved_to_dict(e, register: str, wanted) -> bool:
    """torch registered a name in ``register`` (its kind passing ``wanted``);
    the submission holds the same kind under that name in ``__dict__`` instead."""
    for t, y in e.dicts_holding(PARAMETERS, ATTRIBUTES):
        for name, kind in _registered(t, register).items():
            if wanted(kind) and name not in _registered(y, register) and y[ATTRIBUTES].get(name) == kind:
                return True
    return False


@misconception("module-left-in-dict", "02", """
    a submodule assigned to self must go into _modules: left in __dict__ it is never registered, and
    parameters(), state_dict() and .to() never see it""")
def module_left_in_dict(e):
    """Requires: torch registered a module in _modules where the submission keeps that module in __dict__.

    Neighbour: `parameter_stored_in_dict` (02, variants.yaml) fails `setattr_routes_each_kind` too, without a module
    kept in __dict__: a Parameter stays in __dict__, while modules register as in torch."""
    return _moved_to_dict(e, MODULES, lambda kind: kind is not None)


@misconception("parameter-left-in-dict", "02", """
    a Parameter assigned to self must be registered in _parameters (through register_parameter): kept in
    __dict__ it is an ordinary attribute that parameters(), state_dict() and the optimizer never see""")
def parameter_left_in_dict(e):
    """Requires: torch registered a Parameter in _parameters where the submission keeps that Parameter in
    __dict__.

    Neighbour: `modules_left_in_dict` (02, variants.yaml) fails `setattr_routes_each_kind` too, without a Parameter in
    __dict__: a Module stays in __dict__, while Parameters register as in torch."""
    return _moved_to_dict(e, PARAMETERS, lambda kind: kind == "Parameter")


@misconception("tensor-registered-as-parameter", "02", """
    only a Parameter is registered: a plain tensor assigned to self is an ordinary attribute (a buffer
    needs register_buffer), so __setattr__ checks isinstance(value, Parameter), not torch.Tensor""")
def tensor_registered_as_parameter(e):
    """Requires: torch keeps a plain Tensor in __dict__ where the submission registered it.

    Neighbour: `modules_left_in_dict` (02, variants.yaml) fails `setattr_routes_each_kind` too, without a plain tensor
    registered: a Module stays in __dict__."""
    for t, y in e.dicts_holding(PARAMETERS, ATTRIBUTES):
        for name, kind in t[ATTRIBUTES].items():
            if kind == "Tensor" and any(name in _registered(y, r) for r in REGISTER_NAMES):
                return True
    return False


@misconception("name-stays-in-old-register", "02", """
    a name holds one thing: assigning a new kind of value to it removes the name from __dict__ and from
    the other registers first, or the old value keeps answering (__getattr__ finds it) and keeps being saved""")
def name_stays_in_old_register(e):
    """Requires: after a step, a name sits in two places (registers or ``__dict__``) in the submission and
    in one in torch, the other place holding another kind than torch's (an old value left behind; a
    new value stored in a second place holds the same kind); or registering it raised "attribute 'name'
    already exists" in the submission alone while the name stays in a place torch moved it out of.

    Neighbour: `modules_left_in_dict` (02, variants.yaml) fails `a_name_moves_between_registers` too, without a name
    left in another place: the module assigned to the name never reaches _modules."""
    refused = _refused_names(e)
    if refused:
        return any(set(_places(y).get(name, ())) - set(_places(t).get(name, ()))
                   for t, y in e.dicts_holding(PARAMETERS, ATTRIBUTES) for name in refused)
    if _any_raised_differs(e):
        return False
    for t, y in e.dicts_holding(PARAMETERS, ATTRIBUTES):
        places_t = _places(t)
        for name, places in _places(y).items():
            if len(places) > 1 and len(places_t.get(name, ())) == 1:
                kind_t = _registered(t, places_t[name][0])[name]
                if any(_registered(y, place)[name] != kind_t for place in places if place != places_t[name][0]):
                    return True
    return False


def _refused_names(e) -> set[str]:
    """The names whose registration raised KeyError "attribute 'name' already exists" in the
    submission, where torch's same step raised nothing."""
    return {found["name"] for t, y in e.pairs_where(lambda name, value: name.startswith("m."))
            if t is None and raised(y, "KeyError") and (found := ALREADY_EXISTS.search(y.message))}


def _any_raised_differs(e) -> bool:
    """Whether an observed call raised in one world and not alike in the other:
    then the registers differ as a consequence, not as evidence of their own."""
    return any(raised(t) != raised(y) or raised(t) and t.type != y.type
               for t, y in e.pairs_where(lambda name, value: raised(value) or name.startswith(("m.", "del m."))))


def _places(view: dict) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for place in (*REGISTER_NAMES, ATTRIBUTES):
        for name in _registered(view, place):
            found.setdefault(name, []).append(place)
    return found


@misconception("replacing-moves-to-the-end", "02", """
    replacing a registered value keeps its place in the register: assign into the existing key
    (register[name] = value); deleting the name first, or popping it, moves it to the end and changes
    the order of parameters() and state_dict()""")
def replacing_moves_to_the_end(e):
    """Requires: a register of the submission holds torch's names in another order.

    Neighbour: `modules_left_in_dict` (02, variants.yaml) fails `replacing_keeps_position` too, without the same names
    in another order: _modules stays empty."""
    for t, y in e.dicts_holding(PARAMETERS, ATTRIBUTES):
        for register in REGISTER_NAMES:
            names_t, names_y = list(_registered(t, register)), list(_registered(y, register))
            if names_t != names_y and sorted(names_t) == sorted(names_y):
                return True
    return False


@misconception("delattr-skips-registers", "02", """
    del self.name must remove name from the register that holds it (a buffer from
    _non_persistent_buffers_set too): registered values are not in __dict__, so object.__delattr__
    alone raises AttributeError for them""")
def delattr_skips_registers(e):
    """Requires: ``del m.name`` worked in torch; in the submission it raised and left the name in a register
    (``_parameters``, ``_buffers``, ``_modules``) torch removed it from, or it worked and left the name in
    ``_non_persistent_buffers_set`` with its buffer gone.

    Neighbour: `delattr_ifs_not_elifs` (02, student_bugs.yaml) fails `delattr_removes_a_parameter` too,
    without a name left registered: it removes the parameter, then also looks in __dict__ and raises
    AttributeError (`if` where `elif` was meant)."""
    deletions = [(name.removeprefix("del m."), t, y)
                 for name, t, y in e.fields() if name.startswith("del m.") and t is None]
    for t, y in e.dicts_holding(PARAMETERS, ATTRIBUTES):
        for name, _, result in deletions:
            if raised(result) and any(name in _registered(y, r) and name not in _registered(t, r)
                                      for r in REGISTER_NAMES):
                return True
            if result is None and name in _marked(y) and name not in _marked(t) + list(_registered(y, BUFFERS)):
                return True
    return False


def _marked(view: dict) -> list[str]:
    """The names in a view's ``_non_persistent_buffers_set`` (none where the set is missing)."""
    value = view.get(NON_PERSISTENT)
    return value if isinstance(value, list) else []


@misconception("non-persistent-not-recorded", "02", """
    register_buffer(name, tensor, persistent=False) adds name to _non_persistent_buffers_set (and
    persistent=True removes it): state_dict() leaves those buffers out""")
def non_persistent_not_recorded(e):
    """Requires: the buffers agree with torch's; the submission's ``_non_persistent_buffers_set`` exists and
    holds other names than torch's.

    Neighbour: `init_forgets_non_persistent_set` (02, student_bugs.yaml) fails `register_buffer_persistence` too,
    without a set that exists: __init__ never creates it, so register_buffer raises AttributeError after storing the
    buffer."""
    return any(t[BUFFERS] == y.get(BUFFERS) and isinstance(y.get(NON_PERSISTENT), list)
               and t[NON_PERSISTENT] != y[NON_PERSISTENT]
               for t, y in e.dicts_holding(BUFFERS, NON_PERSISTENT))


@misconception("none-slot-dropped", "02", """
    None registers an empty slot: register_parameter(name, None), register_buffer(name, None) and
    add_module(name, None) keep name in the register with the value None, so that assigning None later,
    or a Parameter, finds the slot""")
def none_slot_dropped(e):
    """Requires: torch keeps a name with None in a register; the submission has no such name there, or a
    value under it after refusing the None (it raised where torch returned), and holds every name torch
    registers with a value, in every view of the registers the check shows (a register that stores nothing
    fails those too; an assignment that does nothing keeps the old value without refusing anything).

    Neighbour: `getattr_reads_parameters_only` (02, variants.yaml) fails `none_keeps_a_slot` too, without a
    slot dropped: both slots are registered, but __getattr__ does not find m.head in _modules."""
    refused = raised_where_torch_returned(e)
    views = e.dicts_holding(PARAMETERS, ATTRIBUTES)
    valued = all(name in _registered(y, register) for t, y in views for register in REGISTER_NAMES
                 for name, kind in _registered(t, register).items() if kind is not None)
    for t, y in views:
        if valued and any(kind is None and (name not in _registered(y, register) or refused
                                            and _registered(y, register)[name] is not None)
                          for register in REGISTER_NAMES for name, kind in _registered(t, register).items()):
            return True
    return False


@misconception("setattr-guard-missing", "02", """
    __setattr__ must refuse a Parameter or a Module assigned before Module.__init__() created the
    registers: raise AttributeError("cannot assign parameters before Module.__init__() call"), which tells
    the author of the subclass to call super().__init__() first (register_buffer checks the same)""")
def setattr_guard_missing(e):
    """Requires: torch raised AttributeError for an assignment before super().__init__(); the submission raised
    nothing, or another exception but TypeError (a condition that reads the missing register, `name in
    None`, raises that), though it registers the same assignments made after super().__init__() as torch does.

    Neighbour: `init_forgets_modules_register` (02, student_bugs.yaml) fails `assigning_before_super_init_raises`
    too, without the assignments after super().__init__() registered as in torch: __init__ never creates
    _modules, so a module assigned after super().__init__() raises as well."""
    control = e.pairs(WITH_SUPER_FIRST)
    return bool(control) and all(t == y for t, y in control) and any(
        raised(t, "AttributeError") and not raised(y, "AttributeError", "TypeError")
        for before in BEFORE_SUPER for t, y in e.pairs(before))


@misconception("tensor-onto-parameter-name-accepted", "02", """
    a registered name only takes its own kind: a plain tensor (or a number) assigned to a parameter's
    name raises TypeError "(Parameter or None expected)", to a module's name "(Module or None expected)";
    storing it silently hides the parameter behind a bare attribute""")
def tensor_onto_parameter_name_accepted(e):
    """Requires: torch raised TypeError "... expected)" for an assignment onto a name registered alike in both
    worlds; the submission raised nothing.

    Neighbour: `parameter_stored_in_dict` (02, variants.yaml) fails `tensor_onto_parameter_name_raises` too, without a
    name registered alike: the Parameter stays in __dict__, so _parameters never holds the name."""
    if any(t != y for t, y in e.pairs(REGISTERS_BEFORE)):
        return False
    return any(raised(t, "TypeError") and "expected)" in t.message and not raised(y)
               for t, y in e.pairs_where(lambda name, value: raised(value)))


@misconception("bad-names-accepted", "02", """
    register_parameter, register_buffer and add_module check the name as torch does: KeyError for a
    dotted name, an empty name or one already used by another attribute, TypeError for a name that is not
    a string (dotted names would break the walk's names and state_dict keys)""")
def bad_names_accepted(e):
    """Requires: torch rejected a name (KeyError or TypeError, its message about the name); the submission
    raised nothing; and where torch's message says the name is already an attribute, the submission's
    __dict__ holds it too (a __setattr__ that never kept the attribute leaves nothing to clash with).

    Neighbour: `init_forgets_non_persistent_set` (02, student_bugs.yaml) fails `dotted_names_raise` too,
    without a bad name accepted: it rejects the bad names as torch does, but its registers lack the
    non-persistent set, which __init__ never creates."""
    name_errors = ("contain", "empty string", "already exists", "name should be a string")
    return any(raised(t, "KeyError", "TypeError") and any(m in t.message for m in name_errors)
               and not raised(y) and _clashes_in_yours(e, t.message)
               for t, y in e.pairs_where(lambda name, value: raised(value)))


def _clashes_in_yours(e, message: str) -> bool:
    """Whether the name torch's ``message`` calls already an attribute is in the submission's ``__dict__``
    wherever the registers are shown (True for a message about anything else)."""
    clash = ALREADY_EXISTS.search(message)
    return clash is None or all(clash["name"] in _registered(y, ATTRIBUTES) for _, y in e.dicts_holding(ATTRIBUTES))


@misconception("wrong-kind-accepted", "02", """
    each register checks its value: register_parameter takes a Parameter or None (TypeError) that is a
    leaf (ValueError for a computed tensor), register_buffer a Tensor or None, add_module a Module or None
    (TypeError)""")
def wrong_kind_accepted(e):
    """Requires: torch rejected a value of the wrong kind (TypeError or ValueError, its message about the
    value); the submission raised nothing.

    Neighbour: `getattr_raises_key_error` (02, variants.yaml) fails `registering_a_tensor_as_parameter_raises` too,
    without a value accepted: the call raises, but KeyError (its __getattr__ raises KeyError, which hasattr lets
    through) where torch raises TypeError."""
    kind_errors = ("or None required)", "is not a Module subclass", "non-leaf")
    return any(raised(t, "TypeError", "ValueError") and any(m in t.message for m in kind_errors)
               and not raised(y) for t, y in e.pairs_where(lambda name, value: raised(value)))


@misconception("getattr-misses-a-register", "02", """
    __getattr__ must look in _parameters, _buffers and _modules: registered values are not in __dict__,
    so Python calls __getattr__ for each of them""")
def getattr_misses_a_register(e):
    """Requires: reading a registered name found it in torch and not in the submission (False, or
    AttributeError), whose registers hold every name torch's do (a value never registered is not
    __getattr__'s to find).

    Neighbour: `setattr_handles_parameters_only` (02, variants.yaml) fails `getattr_reads_the_registers` too,
    without torch's names registered: its __setattr__ drops a module, so m.child is found nowhere."""
    registered = all(set(_registered(t, register)) <= set(_registered(y, register))
                     for t, y in e.dicts_holding(*REGISTER_NAMES) for register in REGISTER_NAMES)
    return registered and any(t is True and (y is False or raised(y, "AttributeError"))
                              for t, y in e.pairs_where(lambda name, value: " is m._" in name))


@misconception("getattr-raises-attribute-error", "02", """
    a name found nowhere must raise AttributeError ("'Module' object has no attribute 'x'"): hasattr(),
    getattr(m, name, default) and copy rely on exactly that exception""", on_raise=True)
def getattr_raises_attribute_error(e):
    """Requires: a missing name raised AttributeError in torch and something else (or nothing) in the
    submission; or the submission's own __getattr__ raised another exception.

    Neighbour: `getattr_misses_buffers` (02, student_bugs.yaml) fails `getattr_reads_the_registers` too,
    without a missing name answered otherwise: m.nothing_here raises AttributeError as in torch, but a
    registered buffer is not found."""
    if e.raised is not None:
        frames = e.raised.get("frames", [])
        return bool(frames) and frames[-1][2].endswith("__getattr__") and e.raised.get("type") != "AttributeError"
    missing = e.pairs(NOTHING_HERE) + e.pairs(HAS_NOTHING_HERE)
    return any(t != y and not raised(y, "AttributeError") for t, y in missing)


@misconception("buffer-left-in-dict", "02", """
    assigning nn.Buffer(t) registers a buffer: __setattr__ checks isinstance(value, Buffer) and calls
    register_buffer(name, value, value.persistent); left in __dict__ it is a bare tensor that state_dict()
    and .to() never see""")
def buffer_left_in_dict(e):
    """Requires: torch registered a buffer in _buffers where the submission keeps that tensor in __dict__.

    Neighbour: `setattr_replaced_buffer_becomes_persistent` (02, student_bugs.yaml) fails
    `buffer_assignment_registers` too, without a buffer in __dict__: the buffer is registered, but a plain
    tensor replacing it makes it persistent."""
    return _moved_to_dict(e, BUFFERS, lambda kind: kind == "Tensor")


@misconception("dir-misses-registers", "02", """
    dir(module) lists what the module holds: registered values live in _parameters, _buffers and _modules,
    not in __dict__, so __dir__ adds their names to the class's and the instance's (leaving out names that
    start with a digit, such as a container's '0')""")
def dir_misses_registers(e):
    """Requires: dir() lacks names torch lists, each of them in the submission's own registers, and lists
    none torch does not; or it lists names starting with a digit, where torch's lists none.

    Neighbour: `modules_left_in_dict` (02, variants.yaml) fails `dir_lists_registered_names` too, without a
    registered name missing from dir(): the module is listed, but from __dict__, as it was never
    registered."""
    yours_registered = {name.split(":")[0]: y for name, _, y in e.fields() if name.endswith(": the registered names")}
    for name, t, y in e.fields():
        if not (name.endswith(", the names above") and isinstance(t, list) and isinstance(y, list)):
            continue
        registered = yours_registered.get(name.split(":")[0])
        missing = set(t) - set(y)
        if isinstance(registered, list) and missing and set(y) <= set(t) and missing <= set(registered):
            return True
    return any(t == [] and isinstance(y, list) and y for t, y in e.pairs(DIGIT_NAMES_IN_DIR))
