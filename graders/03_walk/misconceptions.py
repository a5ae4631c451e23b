"""Misconceptions of exercise 03, the walk. Scenarios key each observation by
the call that made it (``root.named_parameters(prefix='model')``) and show a
walk as its ``[name, value]`` pairs, so detectors compare names: which are
missing or extra, and in what order they come."""
from __future__ import annotations

import re

from modlab.grading.catalog import misconception
from modlab.grading.evidence import named, names, raised

from ..shared.probes import NON_PERSISTENT_NAMES
from .views import ALIASES, IS_REGISTERED_OBJECT, MEMO_FILLED, MEMO_SIZE, NAMED_MODULES, SAME_MODULE, SAME_OBJECT

PREFIX = re.compile(r"prefix='([^']*)'")


def walks(e, *, of: str = "named_", without: str = "remove_duplicate=False"):
    """``(field, torch names, your names, torch pairs, your pairs)`` of each walk field."""
    return [(field, names(t), names(y), t, y) for field, t, y in e.fields()
            if of in field and (not without or without not in field)]


def _gaps(want: list, got: list) -> tuple[list, list]:
    missing = [n for n in want if n not in got]
    extra = [n for n in got if n not in want] + _repeats(got, want)
    return missing, extra


def _repeats(got: list, want: list) -> list:
    return [n for i, n in enumerate(got) if n in got[:i] and got.count(n) > want.count(n)]


def _aliases(e) -> set[str]:
    return {name for t, _ in e.pairs(ALIASES) for name in t}


@misconception("tied-twice", "03", """
    tied weights counted twice: the walk must remember which tensors (by identity) it already yielded and
    skip them when remove_duplicate=True, so a Parameter registered in two modules is trained and counted once""")
def tied_twice(e):
    """Requires: a parameter or buffer walk yields torch's names plus aliases torch yields only with
    remove_duplicate=False, while the modules are walked as torch walks them.

    Neighbour: `named_modules_never_checks_memo` (03, student_bugs.yaml) fails `random_trees_named_parameters`
    too, without the modules walked as torch walks them: named_modules() yields a shared module under each of
    its names.
    """
    modules_right = all(t == y for t, y in e.pairs(NAMED_MODULES))
    for field, want, got, _, _ in walks(e):
        missing, extra = _gaps(want, got)
        if ("named_parameters" in field or "named_buffers" in field) and extra and not missing \
                and set(extra) <= _aliases(e) and modules_right:
            return True
    return False


@misconception("shared-module-twice", "03", """
    a module reachable under two names is one module: named_modules() remembers the modules it yielded
    (the memo set, by identity) and yields each once, under its first name, unless remove_duplicate=False""")
def shared_module_twice(e):
    """Requires: named_modules() yields torch's names plus aliases torch yields only with
    remove_duplicate=False, and a memo handed to named_modules() ends as full as torch's (the walk records each
    module, then never looks).

    Neighbour: `named_modules_fresh_memo_per_call` (03, student_bugs.yaml) fails
    `shared_modules_are_yielded_once` too, without a memo as full as torch's: each recursive call starts a memo
    of its own, so the caller's holds only the root.
    """
    if not any(t == y for t, y in e.pairs(MEMO_FILLED)):
        return False
    for field, want, got, _, _ in walks(e, of="named_modules"):
        missing, extra = _gaps(want, got)
        if extra and not missing and set(extra) <= _aliases(e):
            return True
    return False


@misconception("remove-duplicate-ignored", "03", """
    remove_duplicate=False yields a tied Parameter or a shared module under every name it is registered as:
    the walk must then neither record nor skip what it has seen""")
def remove_duplicate_ignored(e):
    """Requires: a remove_duplicate=False walk yields each object under its first name only, where torch yields
    it under every name (the scenario marks which items are the same object).

    Neighbour: `tied_weights_counted_twice` (03, variants.yaml) fails `tied_weights_are_yielded_once` too,
    without a walk of first names only: it never records what it yielded, so its remove_duplicate=False walk is
    right and its remove_duplicate=True walk yields the tied weight twice.
    """
    for want, got, same in _marked_walks(e):
        first_names = [name for index, name in enumerate(want) if same[index] == index]
        if first_names != want and got == first_names:
            return True
    return False


def _marked_walks(e) -> list[tuple[list, list, list]]:
    """``(torch names, your names, torch's same-object marks)`` of each remove_duplicate=False walk observed
    beside the marks of which of its items are the same object (:func:`~graders.shared.probes.first_occurrences`)."""
    found = []
    for same, of_modules in ((SAME_OBJECT, False), (SAME_MODULE, True)):
        for t, y in e.dicts_holding(same):
            found += [(names(t[field]), names(y[field]), t[same]) for field in t if field in y and (
                field == ALIASES or "remove_duplicate=False" in field and ("named_modules" in field) == of_modules)]
    return found


def _module_of(name: str, modules_walk: bool) -> str:
    if modules_walk:
        return name
    return name.rsplit(".", 1)[0] if "." in name else ""


def _strictly_above(a: str, b: str) -> bool:
    return a != b and (a == "" or b.startswith(a + "."))


def _post_order(order: list, modules_walk: bool) -> bool:
    """No name comes before a name of a module strictly below it (descendants first)."""
    paths = [_module_of(n, modules_walk) for n in order]
    return all(not _strictly_above(paths[i], paths[j]) for i in range(len(paths)) for j in range(i + 1, len(paths)))


def _related(a: str, b: str, modules_walk: bool) -> bool:
    ma, mb = _module_of(a, modules_walk), _module_of(b, modules_walk)
    return _strictly_above(ma, mb) or _strictly_above(mb, ma)


def _unrelated_order_kept(want: list, got: list, modules_walk: bool) -> bool:
    """Names in no ancestor relation keep torch's relative order."""
    position = {n: i for i, n in enumerate(got)}
    return all(position[a] < position[b] for i, a in enumerate(want) for b in want[i + 1:]
               if not _related(a, b, modules_walk))


def _reordered(e):
    """``(field, torch names, your names)`` for walks with the same names in another order."""
    return [(field, want, got) for field, want, got, _, _ in walks(e, without="")
            if want != got and sorted(want) == sorted(got) and len(set(got)) == len(got)]


@misconception("children-first", "03", """
    torch's order is a module's own members first, then each child's subtree, depth first:
    named_modules() yields the module itself before recursing into its children""")
def children_first(e):
    """Requires: the same names as torch, reordered so that every module's members come after its descendants'
    (siblings keep torch's order).

    Neighbour: `members_sorted_by_name` (03, variants.yaml) fails `own_members_come_before_children` too,
    without descendants first: it sorts each module's members by name.
    """
    for field, want, got in _reordered(e):
        modules_walk = "named_modules" in field
        if _post_order(got, modules_walk) and _unrelated_order_kept(want, got, modules_walk):
            return True
    return False


@misconception("walk-order", "03", """
    torch's order is registration order: dicts keep insertion order, so walk _parameters, _buffers and
    _modules as they are, own members first, then each child in the order it was assigned; sorting the
    names, or collecting them in a set, reorders them""")
def walk_order(e):
    """Requires: the same names as torch in an order that is not torch's, and not explained by children coming
    first.

    Neighbour: `children_before_own_members` (03, variants.yaml) fails `own_members_come_before_children` too,
    without an order other than descendants first: named_modules() yields each module after its children.
    """
    for field, want, got in _reordered(e):
        modules_walk = "named_modules" in field
        if not (_post_order(got, modules_walk) and _unrelated_order_kept(want, got, modules_walk)):
            return True
    return False


@misconception("dotted-names", "03", """
    names are joined with a dot, and only between two parts: 'encoder.weight' below the top, 'weight' at
    the top (no leading dot), 'model.weight' under prefix='model'""")
def dotted_names(e):
    """Requires: the submission's names are torch's with dots added, dropped or moved.

    Neighbour: `prefix_not_passed_down` (03, variants.yaml) fails `nested_names_are_dotted` too, without dots
    moved: the prefix is missing from the names, dot and all.
    """
    for field, want, got, _, _ in walks(e, without=""):
        if want != got and len(want) == len(got) and [n.replace(".", "") for n in want] == [n.replace(".", "") for n in got]:
            return True
    return False


@misconception("prefix-ignored", "03", """
    prefix is the name of the module the walk starts from: every yielded name starts with it
    (prefix='model' gives 'model.weight', and named_modules yields the module itself as 'model'),
    and the recursive calls pass the child's full dotted name on as their prefix""")
def prefix_ignored(e):
    """Requires: every walk without a prefix yields torch's names, dotted ones among them (names are joined
    right), and a walk with a prefix yields torch's names without that prefix.

    Neighbour: `join_keeps_only_the_name` (03, student_bugs.yaml) fails `nested_names_are_dotted` too, without
    right names in the walks that have no prefix: _join drops the whole path, so every name is a bare attribute
    name.
    """
    plain = [(want, got) for field, want, got, _, _ in walks(e, without="") if not _prefix(field)]
    if not plain or any(want != got for want, got in plain) or not any("." in n for want, _ in plain for n in want):
        return False
    return any(_prefix(field) and want != got and got == [_strip(n, _prefix(field)) for n in want]
               for field, want, got, _, _ in walks(e, without=""))


def _prefix(field: str) -> str:
    """The prefix a walk's field names (``prefix='model'``), or ``""``."""
    found = PREFIX.search(field)
    return found.group(1) if found else ""


def _strip(name: str, prefix: str) -> str:
    return "" if name == prefix else name.removeprefix(prefix + ".")


@misconception("none-slot-yielded", "03", """
    an empty slot (register_parameter(name, None), add_module(name, None)) is kept in the register but never
    yielded by the walk: skip the None values""")
def none_slot_yielded(e):
    """Requires: the submission yields a name with the value None that torch does not yield.

    Neighbour: `children_before_own_members` (03, variants.yaml) fails `empty_slots_are_skipped` too, without a
    None value yielded: it yields torch's names in another order.
    """
    for field, want, got, _, y in walks(e, without=""):
        if any(value is None and name not in want for name, value in named(y).items()):
            return True
    return False


@misconception("recurse-ignored", "03", """
    recurse=False means this module's own members only: the walk must not descend into the children""")
def recurse_ignored(e):
    """Requires: with recurse=False, the submission yields torch's names plus names of members of submodules.

    Neighbour: `prefix_not_passed_down` (03, variants.yaml) fails `recurse_false_stays_at_the_top` too, without
    names from submodules: its recurse=False walk drops the prefix ('running_mean' for 'top.running_mean').
    """
    for field, want, got, _, _ in walks(e, without=""):
        depth = _prefix(field).count(".") + 1 if _prefix(field) else 0
        missing, extra = _gaps(want, got)
        if "recurse=False" in field and extra and not missing and all(n.count(".") > depth for n in extra):
            return True
    return False


@misconception("walk-yields-copies", "03", """
    the walk yields the registered objects themselves: the optimizer updates exactly those tensors, so
    yielding copies (p.clone(), p.detach(), a new Parameter) trains nothing""")
def walk_yields_copies(e):
    """Requires: a value yielded under the same name is the registered object in torch and not in the
    submission.

    Neighbour: `walk_raises` (03, variants.yaml) fails `yields_the_registered_objects` too, without a value that
    is not the registered object: the walk raises AttributeError before yielding anything.
    """
    for view_t, view_y in e.pairs(IS_REGISTERED_OBJECT):
        ours = named(view_y)
        if any(t is True and ours.get(name) is False for name, t in named(view_t).items()):
            return True
    return False


@misconception("children-not-distinct", "03", """
    named_children() yields each direct child once (a child registered under two names only under the
    first), and never a grandchild: it reads _modules of this module only""")
def children_not_distinct(e):
    """Requires: named_children() yields, besides torch's names, names of modules torch does not yield (repeats
    of a child, or deeper modules), none of them an empty (None) slot.

    Neighbour: `shared_module_walked_twice` (03, variants.yaml) fails `shared_modules_are_yielded_once` too,
    without extra children: named_children() is right, named_modules() yields the shared layer under every name.
    """
    for field, want, got, _, y in walks(e, of="named_children"):
        missing, extra = _gaps(want, got)
        if extra and not missing and all(named(y).get(name) is not None for name in extra):
            return True
    return False


@misconception("memo-ignored", "03", """
    named_modules(memo) shares one set with its recursive calls: a module already in memo is skipped with
    everything below it, and each module yielded is added to it""")
def memo_ignored(e):
    """Requires: a walk given a memo yields, besides torch's names, modules torch skipped as already in it, and
    the memo ends holding fewer modules than torch's (the recursive calls did not share it).

    Neighbour: `named_modules_never_checks_memo` (03, student_bugs.yaml) fails `named_modules_shares_its_memo`
    too, without a memo emptier than torch's: it records every module in the shared memo and never skips one.
    """
    if not any(isinstance(t, int) and isinstance(y, int) and y < t for t, y in e.pairs(MEMO_SIZE)):
        return False
    for field, want, got, _, _ in walks(e, of="memo="):
        missing, extra = _gaps(want, got)
        if extra and not missing:
            return True
    return False


@misconception("non-persistent-not-walked", "03", """
    named_buffers() yields every buffer, persistent or not: persistent=False only keeps a buffer out of
    state_dict(), it is still part of the model that .to() moves""")
def non_persistent_not_walked(e):
    """Requires: named_buffers() lacks exactly the buffers the scenario registered with persistent=False.

    Neighbour: `buffers_walks_parameters` (03, student_bugs.yaml) fails `buffers_walk_like_parameters` too,
    without the non-persistent buffers missing: buffers() walks the parameters instead.
    """
    non_persistent = {name for t, _ in e.pairs(NON_PERSISTENT_NAMES) for name in t}
    for field, want, got, _, _ in walks(e, of="named_buffers"):
        missing, extra = _gaps(want, got)
        if missing and not extra and all(n.rsplit(".", 1)[-1] in non_persistent for n in missing):
            return True
    return False


def _lookups(e):
    """``(torch, yours)`` of each ``root.get_*(path)`` observed."""
    return e.pairs_where(lambda name, value: name.startswith(("root.get_", "root.set_submodule(")))


@misconception("lookup-raises-key-error", "03", """
    get_submodule follows the path one attribute at a time (getattr for each dotted name, checking that
    each is a Module) and raises AttributeError for a name that is missing, as attribute access does; a
    lookup in dict(named_modules()) raises KeyError instead, misses a module shared under a second name
    and walks the whole tree""")
def lookup_raises_key_error(e):
    """Requires: a dotted-path lookup raised AttributeError in torch and KeyError in the submission.

    Neighbour: `get_submodule_returns_any_attribute` (03, variants.yaml) fails `dotted_paths` too, without a
    KeyError: it returns what a path names instead of raising AttributeError.
    """
    return any(raised(t, "AttributeError") and raised(y, "KeyError") for t, y in _lookups(e))


@misconception("lookup-kind-unchecked", "03", """
    a dotted path must end in the kind asked for: get_submodule checks that each step is a Module
    ("`w` is not an nn.Module"), get_parameter that the end is a Parameter, get_buffer that the name is in
    the module's _buffers; anything else raises AttributeError instead of being returned""")
def lookup_kind_unchecked(e):
    """Requires: torch raised AttributeError "... is not ..." for a path ending in the wrong kind; the
    submission returned something, resolved every path torch resolved to torch's object, and put every
    module where torch's went (a lookup that does not descend, or never walks the path at all, fails
    those first).

    Neighbour: `get_submodule_from_named_modules` (03, variants.yaml) fails `dotted_paths` too, without a wrong
    kind returned: it looks the path up in dict(named_modules()), which raises KeyError.
    """
    lookups = _lookups(e)
    placed = not any(t is True and y is False for _, t, y in e.fields())
    return placed and all(t == y for t, y in lookups if not raised(t)) and any(
        raised(t, "AttributeError") and " is not " in t.message and not raised(y) for t, y in lookups)
