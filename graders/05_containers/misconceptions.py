"""Misconceptions of exercise 05, containers. Scenarios show a container as
``contents(c)``: ``{"type": class, "registered": [[name, label], ...]}``, where
a leaf's label is its tag, so detectors can tell a name from what it holds."""
from __future__ import annotations

import re

from modlab.grading.catalog import misconception
from modlab.grading.evidence import raised

from ..shared.misconceptions import raised_where_torch_returned
from .views import CONTAINER_TYPE, GET_SLICE, IS_CHILD, LENGTHS, OPERATION, REGISTERED

NEGATIVE_INDEX = re.compile(r"\[-\d+\]")
SEQUENCES = ("Sequential", "ModuleList")
REFUSED = ("is not a Module subclass", "should be of type")  # torch's words refusing a value that is not a module


def _contents(e):
    """``(torch, yours)`` pairs of container views of the same class."""
    return [(t, y) for t, y in e.dicts_holding(CONTAINER_TYPE, REGISTERED)
            if isinstance(t[REGISTERED], list) and y.get(CONTAINER_TYPE) == t[CONTAINER_TYPE]]


def _labels(view) -> list:
    registered = view.get(REGISTERED)
    return [item[1] for item in registered] if isinstance(registered, list) else []


def _names(view) -> list:
    registered = view.get(REGISTERED)
    return [item[0] for item in registered] if isinstance(registered, list) else []


def _emptied(e, types) -> bool:
    """torch registered children in a container of ``types``; the submission's has its register, empty."""
    return any(t[CONTAINER_TYPE] in types and t[REGISTERED] and y.get(REGISTERED) == [] for t, y in _contents(e))


@misconception("container-keeps-a-plain-list", "05", """
    a container's layers count only once registered: Sequential and ModuleList add each child with
    add_module(str(index), module), so that parameters(), state_dict() and .to() see it; layers kept in a
    plain Python list, or never added, stay invisible to all three""")
def container_keeps_a_plain_list(e):
    """Requires: torch's Sequential or ModuleList registered children; the submission's has a _modules
    register, empty, and raised nowhere torch returned.

    Neighbour: `append_skips_add_module` (05, variants.yaml) fails `module_list_from_iterables` too, without an
    empty register: append writes into _modules itself, skipping add_module's checks."""
    if raised_where_torch_returned(e):
        return False  # an insert that raises leaves the register empty for its own reason
    return _emptied(e, SEQUENCES)


@misconception("container-keeps-a-plain-dict", "05", """
    a ModuleDict's layers count only once registered: it adds each value as a submodule under its key
    (add_module(key, module)); layers kept in a plain Python dict, or never added, stay invisible to
    parameters(), state_dict() and .to()""")
def container_keeps_a_plain_dict(e):
    """Requires: torch's ModuleDict registered children; the submission's has a _modules register, empty.

    Neighbour: `container_without_super_init` (05, variants.yaml) fails `module_dict_construction` too, without an empty
    _modules register: there is no register at all, as super().__init__() never ran."""
    return _emptied(e, ("ModuleDict",))


@misconception("container-accepts-non-modules", "05", """
    a container holds modules only: it registers every child with add_module, which raises TypeError for
    anything else (Sequential(a, 3), ModuleList([layer, 3]), append(3), ModuleDict({'x': 3}))""")
def container_accepts_non_modules(e):
    """Requires: a container's register holds a value that is not a module (shown as its class, '<int>'),
    where torch holds modules or refused that value, though the submission registers modules as torch does.

    Neighbour: `module_list_keeps_a_plain_list` (05, variants.yaml) fails `module_list_from_iterables` too, without a
    value that is not a module in a register: the register stays empty."""
    if _emptied(e, (*SEQUENCES, "ModuleDict")):
        return False
    refused = e.pairs_where(lambda name, value: raised(value, "TypeError", "AssertionError")
                            and any(message in value.message for message in REFUSED))
    return any(_holds_a_non_module(y) for _, y in _contents(e) + refused)


def _holds_a_non_module(view) -> bool:
    """Whether a container's view registers a value that is not a module (shown as its class, '<int>')."""
    return isinstance(view, dict) and any(isinstance(label, str) and label.startswith("<") for label in _labels(view))


def _same_children_other_names(t, y) -> bool:
    return _labels(t) == _labels(y) and _names(t) != _names(y)


def _operation(e) -> str:
    ops = [t for t, _ in e.pairs(OPERATION)]
    return ops[0][0] if ops and isinstance(ops[0], (list, tuple)) and ops[0] else ""


@misconception("no-renumbering", "05", """
    after a deletion, Sequential and ModuleList renumber their children '0', '1', ... so names match positions
    again: without the renumbering the next append reuses a name and overwrites a layer""")
def no_renumbering(e):
    """Requires: a container holds torch's children in torch's order under numbers that are not torch's 0,
    1, ... and skip one, where a deleted child was (outside a slice).

    Neighbour: `negative_indices_refused` (05, variants.yaml) fails `module_list_mutation` too, without children under
    other numbers: it refuses a negative index."""
    if _operation(e) == GET_SLICE or any(":" in name for name in e.difference.names if isinstance(name, str)):
        return False
    return any(_same_children_other_names(t, y) and _names(t) == [str(i) for i in range(len(_names(t)))]
               and _gap(_names(y)) for t, y in _contents(e))


def _gap(names) -> bool:
    """Whether numbered names skip a number (where a deleted child's name was), not merely start elsewhere."""
    numbers = sorted(int(name) for name in names if isinstance(name, str) and name.isdigit())
    return len(numbers) == len(names) and bool(numbers) and numbers[-1] - numbers[0] + 1 != len(numbers)


@misconception("slice-names", "05", """
    a slice of a Sequential keeps its children's names (model[1:] holds '1', '2'), while a slice of a
    ModuleList is a new list numbered from '0'; both are new containers of the same class""")
def slice_names(e):
    """Requires: a slice holds torch's children in torch's order under other names.

    Neighbour: `negative_indices_refused` (05, variants.yaml) fails `module_list_indexing_and_slices` too, without a
    slice under other names: it refuses a negative index."""
    in_slice = _operation(e) == GET_SLICE or any(":" in name for name in e.difference.names if isinstance(name, str))
    return in_slice and any(_same_children_other_names(t, y) for t, y in _contents(e))


@misconception("negative-index-unsupported", "05", """
    an index counts from the end when negative, as for a list: model[-1] is the last child; normalise it
    (idx % len(self)) after checking -len <= idx < len, then look up the name at that position""")
def negative_index_unsupported(e):
    """Requires: non-negative indices, some of them looked up, find torch's children, negative ones do not,
    in containers of torch's lengths (one that registered nothing has no child at any index).

    Neighbour: `module_list_keeps_a_plain_list` (05, variants.yaml) fails `module_list_indexing_and_slices` too,
    without non-negative indices that find torch's children: its ModuleList registers nothing."""
    negative = e.pairs_where(lambda name, value: bool(NEGATIVE_INDEX.search(name)) and value is True)
    positive = e.pairs_where(lambda name, value: IS_CHILD in name and not NEGATIVE_INDEX.search(name))
    return bool(negative) and bool(positive) and all(t == y for t, y in positive + e.pairs(LENGTHS)) \
        and any(y is not True for _, y in negative)
