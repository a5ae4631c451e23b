"""Misconceptions: what a difference between torch.nn and a submission means.

Graders attach one of these to a scenario (``hint=hints.PLAIN_LIST``), or a
function of the difference that picks one. :func:`explain` adds the hints that
follow from the failure itself (not implemented yet, a broken earlier
exercise, a missing ``super().__init__()``).
"""
from __future__ import annotations

import re

PLAIN_LIST = (
    "a layer kept in a plain Python list is never registered: parameters(), state_dict() and .to() "
    "only see what went through __setattr__ or add_module"
)
PLAIN_DICT = (
    "layers kept in a plain Python dict are never registered: a ModuleDict must register each value "
    "as a submodule under its key"
)
BARE_TENSOR = (
    "a bare tensor where a Parameter was meant: only Parameter objects are registered in _parameters "
    "and handed to the optimizer"
)
MISSING_SUPER = (
    "missing super().__init__(): the registers _parameters, _buffers and _modules must exist before the "
    "first attribute is assigned"
)
TIED_TWICE = (
    "tied weights counted twice: the walk must remember which tensors (by identity) it already yielded "
    "and skip them when remove_duplicate=True"
)
SHARED_MODULE_TWICE = (
    "a module reachable under two names is one module: named_modules() yields it once (by identity) "
    "unless remove_duplicate=False"
)
FORWARD_DIRECT = (
    "calling forward() directly skips the hooks: a container must call each child as child(x), "
    "which runs __call__ and with it the hooks"
)
LAYER_IN_FORWARD = (
    "a layer built inside forward() is a new layer with new random weights on every call: build layers "
    "in __init__, use them in forward"
)
ORDER = (
    "torch's order is a module's own parameters first, in assignment order, then each child's, depth first"
)
MODULE_NOT_REGISTERED = (
    "a submodule assigned to self must go into _modules: left in __dict__ it is never registered, and "
    "parameters(), state_dict() and .to() never see it"
)
DOTTED_NAMES = (
    "names are joined with a dot, and only between two parts: 'encoder.weight' below the top, 'weight' at "
    "the top (no leading dot), 'model.weight' under prefix='model'"
)
RECURSE_IGNORED = (
    "recurse=False means this module's own members only: the walk must not descend into the children"
)
NONE_SLOT_YIELDED = (
    "an empty slot (register_parameter(name, None), add_module(name, None)) is kept in the register but "
    "never yielded by the walk"
)
HOOK_RETURN_IGNORED = (
    "a hook's return value matters: a forward pre-hook that returns something replaces the input (a single "
    "value is wrapped into a tuple), a forward hook that returns something replaces the output; None keeps them"
)
MODE_NOT_RECURSIVE = (
    "train(mode) and eval() set the flag on the whole tree: the module itself, then train(mode) on each child, "
    "and they return self so that calls chain"
)
ZERO_GRAD_IN_PLACE = (
    "zero_grad(set_to_none=False) keeps each .grad tensor and fills it with zeros in place (cut from any "
    "gradient history first); only the default set_to_none=True replaces it with None"
)
UNREGISTERED_MOVE = (
    ".to() moves only registered tensors: a layer in a plain list stays behind, float32 on the CPU, "
    "and the next forward fails with a dtype or device mismatch"
)

def by_path(**hints_by_key):
    """A hint chosen by where the difference is: ``by_path(modules=..., parameters=...)``
    gives the hint whose key appears in the difference's path, else None."""

    def choose(difference):
        path = difference.path if difference else ""
        for key, hint in hints_by_key.items():
            if f"'{key}'" in path or f".{key}" in path:
                return hint
        return None

    return choose


_NOT_IMPLEMENTED = re.compile(r"exercise (\d\d)")
_REGISTER_NAMES = re.compile(r"_parameters|_buffers|_modules|before Module.__init__")


def explain(scenario, difference, raised: dict | None, exercise_of_file, graded_exercise: str) -> list[str]:
    """The hints for one failure, most specific first.

    Args:
        scenario: the failed :class:`~modlab.grading.scenario.Scenario`.
        difference: the :class:`~modlab.grading.compare.Difference`, if the
            worlds answered differently.
        raised: the submission's exception record, if it raised.
        exercise_of_file: maps a package file ("walk.py") to its exercise id.
        graded_exercise: the exercise being graded.
    """
    hints = []
    stub = False
    if raised:
        origin = exercise_of_file(raised.get("file", ""))
        where = f"{raised['file']}:{raised.get('line', '?')}" if raised.get("file") else ""
        stub = raised["type"] == "NotImplementedError" and bool(_NOT_IMPLEMENTED.match(raised["message"]))
        # A missing register surfaces in exercise 02's __getattr__, but the cause is
        # whoever skipped super().__init__(): blaming exercise 02 would mislead.
        missing_register = raised["type"] == "AttributeError" and bool(_REGISTER_NAMES.search(raised["message"]))
        if origin and origin != graded_exercise and not missing_register:
            hints.append(f"the failure is inside exercise {origin}'s code ({where}): fix exercise {origin} first")
        elif stub:
            function = raised["message"].split(": ", 1)[-1]
            hints.append(f"still the stub: fill in {function} in {raised.get('file', 'your package')}")
        if missing_register:
            hints.append(MISSING_SUPER)
    hint = scenario.hint(difference) if callable(scenario.hint) else scenario.hint
    if hint and not stub:  # a stub teaches nothing about misconceptions yet
        hints.append(hint)
    return hints
