"""Misconceptions more than one exercise can show, and the helpers detectors share."""
from __future__ import annotations

import re

from modlab.grading.catalog import misconception
from modlab.grading.evidence import raised

from .probes import (ATTRIBUTES, BEFORE_HOOKS, BEFORE_REPLACING, HOOK_LOG, HOOK_TABLES, PARAMETERS, PRE_HOOK_SINGLE,
                     PRE_HOOK_TUPLE, REPLACING_CALLS)

REGISTER_TROUBLE = re.compile(r"_parameters|_buffers|_modules|before Module\.__init__\(\)")


def raised_where_torch_returned(e) -> bool:
    """Whether the submission raised at a place where torch's run returned: a symptom seen after
    that is the exception's, whatever a detector would otherwise blame."""
    return any(raised(y) and not raised(t) for _, t, y in e.fields())


@misconception("missing-super-init", "02", """
    missing super().__init__(): the registers _parameters, _buffers and _modules must exist before the
    first attribute is assigned, so a Module subclass's __init__ calls super().__init__() first""",
               on_raise=True)
def missing_super_init(e):
    """Requires: the submission raised AttributeError about a missing register (or "before Module.__init__()")
    while running the __init__ of one of its own Module subclasses.

    Neighbour: `classifier_one_block_short` (09, student_bugs.yaml) fails `models_are_fixed_functions` too,
    without an AttributeError about a register: it builds one hidden layer too few, so it draws fewer
    random weights than torch's and the random stream afterwards differs."""
    r = e.raised or {}
    own_init = any(function.endswith(".__init__") and not function.endswith("Module.__init__")
                   for _, _, function in r.get("frames", []))
    return r.get("type") == "AttributeError" and bool(REGISTER_TROUBLE.search(r.get("message", ""))) and own_init


@misconception("bare-tensor", "08", """
    a bare tensor where a Parameter was meant: only Parameter objects are registered in _parameters and
    handed to the optimizer, so a layer's weights are nn.Parameter(torch.empty(...)), initialised in place""")
def bare_tensor(e):
    """Requires: torch registered a Parameter in _parameters where the submission holds a plain Tensor
    attribute of that name.

    Neighbour: `linear_weight_shape_transposed` (08, student_bugs.yaml) fails `linear_registers_weight_and_bias` too,
    without a plain Tensor attribute: weight is a registered Parameter of the transposed shape."""
    for t, y in e.dicts_holding(PARAMETERS, ATTRIBUTES):
        registered = t[PARAMETERS] if isinstance(t[PARAMETERS], dict) else {}
        for name, kind in registered.items():
            torch_kind = kind.get("kind") if isinstance(kind, dict) else kind
            if torch_kind == "Parameter" and y[ATTRIBUTES].get(name) == "Tensor":
                return True
    return False


# Hooks, which exercise 04 teaches and the containers of 05 run as well. Hook scenarios return
# a ``hook log`` of entries ``"pre <module>"`` and ``"post <module> ..."``.

HOOK_KINDS = ("pre", "post")


def hook_entries(log) -> list[str]:
    return [entry for entry in log if isinstance(entry, str) and entry.split(" ", 1)[0] in HOOK_KINDS]


def hook_module(entry: str) -> str:
    parts = entry.split(" ")
    return parts[1] if len(parts) > 1 else ""


def hook_logs(e):
    return [(t, y) for t, y in e.pairs_where(lambda name, value: name.startswith(HOOK_LOG)) if isinstance(y, list)]


@misconception("forward-called-directly", "04", """
    calling forward() directly skips the hooks: __call__ runs the forward pre-hooks, then forward, then the
    forward hooks, so code that runs a module (a container, a parent's forward) calls child(x), never
    child.forward(x)""")
def forward_called_directly(e):
    """Requires: a module's hooks all ran in torch and none of them in the submission, which ran no hook
    torch did not and none of any module but the one the scenario called (forward called directly skips
    every child's hooks; a loop that stops early still ran the first child's), that module not among the
    silent ones unless torch ran its pre-hooks and forward hooks and the submission, which registered
    them as torch did (the check shows its hook tables), ran no hook at all (a __call__ that only calls
    forward; hooks that never run or never register are __call__'s or the register's fault), and no
    call raised in the submission where torch's returned or raised another
    exception (a call that raises explains hooks that never ran).

    Neighbour: `pre_hook_never_registered` (04, variants.yaml) fails `hooks_run_in_order_around_forward` too,
    without a silent child or a module that ran no hook at all: register_forward_pre_hook registers nothing,
    so the called module runs its forward hooks but none of its pre-hooks."""
    if any(raised(y) and not raised(t, y.type) for _, t, y in e.fields()):
        return False
    for t, y in hook_logs(e):
        hooks_t, hooks_y = hook_entries(t), hook_entries(y)
        called = {hook_module(hooks_t[-1])} if hooks_t else set()  # the module the scenario called runs last
        ran_y = {hook_module(entry) for entry in hooks_y}
        silent = {hook_module(entry) for entry in hooks_t} - ran_y
        kinds_called = {entry.split(" ", 1)[0] for entry in hooks_t if hook_module(entry) in called}
        registered = bool(e.pairs(HOOK_TABLES)) and all(t == y for t, y in e.pairs(HOOK_TABLES))
        if silent and (not silent & called or kinds_called == set(HOOK_KINDS) and not hooks_y and registered) \
                and set(hooks_y) <= set(hooks_t) and ran_y <= called:
            return True
    return False


@misconception("hook-return-ignored", "04", """
    a hook's return value matters: a forward pre-hook that returns something replaces the input, a forward
    hook that returns something replaces the output (and the next hook sees the replacement); None keeps them""")
def hook_return_ignored(e):
    """Requires: every hook ran as in torch (the hook logs agree), the same call before any hook, or
    before any hook that replaces something (where the scenario makes one), returned what torch's did (a
    __call__ that returns nothing loses every value, replaced or not), and a call made with a replacing
    hook returned something else, not only the call whose pre-hook returns a single value.

    Neighbour: `pre_hook_value_not_wrapped` (04, variants.yaml) fails `pre_hook_replaces_the_input` too,
    without a tuple's replacement lost: only a single value returned by a pre-hook goes unwrapped."""
    logs = hook_logs(e)
    logs_agree = bool(logs) and all(t == y for t, y in logs)
    replaced = [pair for call in REPLACING_CALLS for pair in e.pairs(call)]
    before_agrees = all(e.agree(t, y) for t, y in e.pairs(BEFORE_HOOKS) + e.pairs(BEFORE_REPLACING))
    return logs_agree and before_agrees and any(t != y for t, y in replaced) and not single_value_case(e)


def single_value_case(e) -> bool:
    """Only the single-value pre-hook's call differs (the tuple one agrees)."""
    tuple_case = e.pairs(PRE_HOOK_TUPLE)
    single_case = e.pairs(PRE_HOOK_SINGLE)
    return bool(tuple_case) and all(t == y for t, y in tuple_case) and any(t != y for t, y in single_case)
