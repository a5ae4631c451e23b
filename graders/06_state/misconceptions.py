"""Misconceptions of exercise 06, state_dict and strict loading. Scenarios show
a state dict as ``{"type": ..., "items": {key: tensor}}``, list what is not
state (``non-persistent buffers``) or registered twice (``aliases``), and
whether each registered tensor is still the same object after a load."""
from __future__ import annotations

from modlab.grading.catalog import misconception
from modlab.grading.evidence import TensorView, raised

from ..shared.probes import NON_PERSISTENT_NAMES
from .views import (AFTER_ASSIGN, ALIASES, COPIED_WITHOUT_ASSIGN, COUNTER_CALLS, ERROR_NAMES_EACH_KEY, ITEMS,
                    KEYS_SEEN, LOADED_TENSORS, MISSING_KEYS, PREFIX, REQUIRES_GRAD, SAME_AFTER_LOADING, STATE_DICT,
                    STATE_DICT_KEYS, STATE_TYPE, TENSOR_CLASS, UNEXPECTED_KEYS, VERSIONS_SEEN, WRITTEN_CHECKPOINTS,
                    WRONG_SHAPES_RAISES)


def _states(e):
    """``(torch keys, your keys, torch items, your items)`` of every state dict shown, each holding only
    the keys under the prefix it was saved with, without it (a destination's earlier keys are not the
    module's)."""
    states = []
    for t, y in e.dicts_holding(STATE_TYPE, ITEMS):
        if isinstance(t[ITEMS], dict) and isinstance(y.get(ITEMS), dict):
            prefix = t.get(PREFIX, "")
            t_items, y_items = ({k.removeprefix(prefix): v for k, v in side[ITEMS].items() if k.startswith(prefix)}
                                for side in (t, y))
            states.append((list(t_items), list(y_items), t_items, y_items))
    return states


def _states_agree(e) -> bool:
    """Whether every state dict shown has torch's keys, in torch's order, and torch's values: a load
    that left tensors unloaded (one that did not reach a child) differs here."""
    return all(_same_items(e, t_items, y_items) for _, _, t_items, y_items in _states(e))


def _same_items(e, t_items: dict, y_items: dict) -> bool:
    """Whether two ``{key: tensor}`` views hold the same keys in the same order, with values that agree."""
    return list(t_items) == list(y_items) and all(e.agree(t_items[k], y_items[k]) for k in t_items)


def _left_out(key: str, left_out: set[str]) -> bool:
    """Whether ``key`` names one of the non-persistent buffers listed (by full key, by name, or without
    the prefix the listed keys were saved under)."""
    return key in left_out or key.rsplit(".", 1)[-1] in left_out or any(k.endswith("." + key) for k in left_out)


def _listed(e, field: str) -> list[str]:
    """The names torch lists under ``field``, anywhere in the observation."""
    return [name for t, _ in e.pairs(field) if isinstance(t, list) for name in t]


@misconception("state-order", "06", """
    state_dict() keeps torch's order: a module's own parameters, then its own persistent buffers, then each
    child's state under "child.", depth first, in registration order""")
def state_order(e):
    """Requires: the submission saves torch's keys, no more and no fewer, in another order.

    Neighbour: `non_persistent_buffers_saved` (06, variants.yaml) fails `keys_in_torch_order` too, without torch's keys alone:
    it saves the non-persistent cache as well."""
    return any(want != got and sorted(want) == sorted(got) for want, got, _, _ in _states(e))


@misconception("state-not-recursive", "06", """
    state_dict() saves the whole tree: after the module's own tensors it calls each child's
    state_dict(destination, prefix + name + "."), so every submodule's keys are there, dotted""")
def state_not_recursive(e):
    """Requires: the submission's state lacks exactly torch's keys of submodules (dotted ones, none of
    them a name a module is registered again as), has none torch lacks, is not empty (an empty one saved
    the module's own tensors no more than its children's), and holds no key of a child whose keys it
    lacks (a child that saved its buffers but not its parameters was reached).

    Neighbour: `buffers_before_parameters` (06, variants.yaml) fails `keys_in_torch_order` too, without keys missing: it saves
    every key, buffers before parameters."""
    aliases = _listed(e, ALIASES)
    for want, got, _, _ in _states(e):
        missing = [k for k in want if k not in got]
        reached = {k.split(".")[0] for k in got if "." in k}
        if missing and got and set(got) <= set(want) and all("." in k for k in missing) \
                and not any(k.split(".")[0] in aliases or k in aliases for k in missing) \
                and not any(k.split(".")[0] in reached for k in missing):
            return True
    return False


@misconception("non-persistent-is-state", "06", """
    a buffer registered with persistent=False (and an empty None slot) is not state: state_dict() leaves it
    out, and load_state_dict() calls its key unexpected""")
def non_persistent_is_state(e):
    """Requires: the submission saves a non-persistent buffer (or an empty slot) torch leaves out, or loads
    its key where torch calls it unexpected.

    Neighbour: `buffers_before_parameters` (06, variants.yaml) fails `non_persistent_and_empty_slots_left_out` too, without a
    key torch leaves out: it saves torch's keys, buffers first."""
    left_out = set(_listed(e, NON_PERSISTENT_NAMES))
    for want, got, _, y_items in _states(e):
        extra = [k for k in got if k not in want]
        if extra and all(_left_out(k, left_out) or y_items[k] is None for k in extra):
            return True
    for t, y in e.pairs(UNEXPECTED_KEYS):
        if isinstance(t, list) and isinstance(y, list) and y and set(y) < set(t) \
                and all(_left_out(k, left_out) for k in set(t) - set(y)):
            return True
    return False


@misconception("state-not-detached", "06", """
    state_dict() values are the tensors detached (tensor.detach()): no grad, same storage, no copy;
    keep_vars=True gives the Parameters themselves""")
def state_not_detached(e):
    """Requires: a saved value is a plain tensor that does not require grad in torch, and a Parameter or a
    tensor requiring grad in the submission.

    Neighbour: `buffers_before_parameters` (06, variants.yaml) fails `values_are_detached_and_share_storage` too, without a
    Parameter among the values: it saves detached tensors, buffers first."""
    for _, _, t_items, y_items in _states(e):
        for key, t in t_items.items():
            y = y_items.get(key)
            if isinstance(t, TensorView) and isinstance(y, TensorView) and t.cls == "Tensor" and not t.requires_grad \
                    and (y.cls == "Parameter" or y.requires_grad):
                return True
    return any(t.get(TENSOR_CLASS) == "Tensor" and y.get(TENSOR_CLASS) == "Parameter" or t.get(REQUIRES_GRAD) is False
               and y.get(REQUIRES_GRAD) is True for t, y in e.dicts_holding(TENSOR_CLASS, REQUIRES_GRAD))


@misconception("shared-module-saved-once", "06", """
    state_dict() walks _modules without skipping repeats: a module registered under two names is saved under
    both names (and a tied Parameter under each of its names), unlike parameters()""")
def shared_module_saved_once(e):
    """Requires: the submission's state lacks exactly the keys under the names a module or tensor is
    registered again as.

    Neighbour: `values_not_detached` (06, variants.yaml) fails `shared_module_saved_under_every_name` too, without a key
    missing: it saves every name, as Parameters."""
    aliases = _listed(e, ALIASES)
    for want, got, _, _ in _states(e):
        missing = [k for k in want if k not in got]
        if aliases and missing and set(got) <= set(want) and all(
                any(k == alias or k.startswith(alias + ".") for alias in aliases) for k in missing):
            return True
    return False


@misconception("state-includes-unregistered", "06", """
    only registered tensors are state: layers kept in a plain list and bare tensor attributes are not in
    _parameters, _buffers or _modules, so state_dict() must not find them (walk the registers, not __dict__)""")
def state_includes_unregistered(e):
    """Requires: the submission saves keys torch does not, none of them non-persistent buffers or empty
    slots.

    Neighbour: `values_not_detached` (06, variants.yaml) fails `unregistered_layers_are_not_state` too, without a key torch
    does not save: it saves torch's keys, as Parameters."""
    left_out = set(_listed(e, NON_PERSISTENT_NAMES))
    for want, got, _, y_items in _states(e):
        extra = [k for k in got if k not in want]
        if extra and set(want) <= set(got) and not any(_left_out(k, left_out) or y_items[k] is None for k in extra):
            return True
    return False


@misconception("load-rebinds", "06", """
    load_state_dict() copies into the existing tensors (param.copy_(value) under torch.no_grad()): assigning
    new tensors or Parameters breaks the optimizer, which still holds the old objects, and gives the model
    the checkpoint's dtype instead of its own""")
def load_rebinds(e):
    """Requires: after loading, a tensor read from the registers is the same object in torch and a new one in
    the submission.

    Neighbour: `values_not_detached` (06, variants.yaml) fails `load_copies_in_place` too, without a new object in the
    registers: it loads in place, and saves Parameters where torch saves detached tensors."""
    for t, y in e.pairs(SAME_AFTER_LOADING):
        if isinstance(t, dict) and isinstance(y, dict) and any(v is True and y.get(k) is False for k, v in t.items()):
            return True
    return False


def _raise_fields(e, needle: str):
    return e.pairs_where(lambda name, value: needle in name)


@misconception("strict-ignored", "06", """
    strict=True (the default) must raise RuntimeError when keys are missing or unexpected, listing every one;
    strict=False returns them as (missing_keys, unexpected_keys) instead""")
def strict_ignored(e):
    """Requires: a strict load with missing or unexpected keys raised RuntimeError in torch and returned in the
    submission the keys it found (a load that finds none looked at no key), though the submission finds the
    same missing and unexpected keys (where the scenario shows them).

    Neighbour: `load_reads_no_key` (06, variants.yaml) fails `keys_without_a_slot_are_unexpected` too, without
    the keys it found returned: it never walks the tree, so its strict load returns ([], [])."""
    if e.differing(MISSING_KEYS) or e.differing(UNEXPECTED_KEYS):
        return False
    return any((t == "RuntimeError" or raised(t, "RuntimeError")) and _returned_keys(y)
               for t, y in _raise_fields(e, "strict=True"))


def _returned_keys(observed) -> bool:
    """Whether a load returned (missing_keys, unexpected_keys) with a key in them."""
    return isinstance(observed, (list, tuple)) and len(observed) == 2 \
        and all(isinstance(keys, list) for keys in observed) and any(observed)


@misconception("first-problem-raises", "06", """
    load_state_dict() looks at every key before raising: collect missing keys, unexpected keys and size
    mismatches, then raise one RuntimeError that lists them all (and copies what fits)""")
def first_problem_raises(e):
    """Requires: every state dict shown has torch's keys in torch's order; the submission raised
    RuntimeError wherever torch did; every error shown that names several keys in torch names exactly one
    in the submission (a load that never reaches a child names
    none of the child's keys, where only children's keys are wrong).

    Neighbour: `own_unexpected_keys_dropped` (06, variants.yaml) fails `strict_reports_missing_and_unexpected` too, without an
    error that names one key alone: its error names every key but the module's own unexpected ones."""
    if not all(want == got for want, got, _, _ in _states(e)) or any(
            t == "RuntimeError" and isinstance(y, str) and y != t for _, t, y in e.fields()):
        return False
    errors = [(t, y) for t, y in e.pairs(ERROR_NAMES_EACH_KEY)
              if isinstance(t, dict) and isinstance(y, dict) and len(t) > 1 and all(t.values())]
    return bool(errors) and all(sum(map(bool, y.values())) == 1 for _, y in errors)


@misconception("size-mismatch-forgiven", "06", """
    a shape mismatch is an error even with strict=False: strict only forgives missing and unexpected keys""")
def size_mismatch_forgiven(e):
    """Requires: a load with wrong shapes raised RuntimeError in torch with strict=False, and returned in
    the submission, which loaded what fits as torch did (a load that reads no key returns too).

    Neighbour: `values_not_detached` (06, variants.yaml) fails `size_mismatch_raises_even_when_not_strict` too, without a load
    that returns: it raises, and saves Parameters where torch saves detached tensors."""
    return _states_agree(e) and any(t == "RuntimeError" and y == "no error" for t, y in e.pairs(WRONG_SHAPES_RAISES))


@misconception("non-strict-keys-wrong", "06", """
    with strict=False, load_state_dict() returns IncompatibleKeys(missing_keys, unexpected_keys): every key
    the model expected and did not find, and every key of the state dict the model has no place for""")
def non_strict_keys_wrong(e):
    """Requires: the returned missing_keys or unexpected_keys differ from torch's and hold only keys torch
    reports (some left out, or in the other list), some of them at least, while every state dict shown has
    torch's keys, order and values (a load that never reached a child leaves its keys out of both lists and its tensors unloaded; a
    strict error that leaves keys out is the error's own fault, when the returned lists are right).

    Neighbour: `load_skips_children` (06, variants.yaml) fails `non_strict_returns_the_keys` too, without torch's values
    loaded: it leaves a child's key out of missing_keys because it never loads the child at all."""
    if not _states_agree(e):
        return False
    left_out = set(_listed(e, NON_PERSISTENT_NAMES))
    reported = set(_listed(e, MISSING_KEYS) + _listed(e, UNEXPECTED_KEYS))
    if not any(y for _, y in e.pairs(MISSING_KEYS) + e.pairs(UNEXPECTED_KEYS)):
        return False  # a load that reports no key at all looked at none
    return any(isinstance(t, list) and isinstance(y, list) and set(y) <= reported
               and not all(_left_out(k, left_out) for k in set(t) ^ set(y))
               for t, y in e.differing(MISSING_KEYS) + e.differing(UNEXPECTED_KEYS))


@misconception("metadata-wrong", "06", """
    state_dict() gives the new OrderedDict a _metadata OrderedDict: under each module's prefix without its
    trailing dot ('' for the root, 'first', 'first.inner') the dict {'version': module._version}, the
    version of that module's own class, recorded before the module saves anything""")
def metadata_wrong(e):
    """Requires: the state dict has torch's keys, its _metadata does not.

    Neighbour: `children_not_saved` (06, variants.yaml) fails `metadata_versions` too, without torch's keys: it saves no
    child's state, keys or metadata."""
    keys = e.pairs(STATE_DICT_KEYS)
    return bool(keys) and all(t == y for t, y in keys) and any(
        t != y for t, y in e.pairs_where(lambda name, value: name.endswith("._metadata")))


@misconception("local-metadata-not-passed", "06", """
    load_state_dict hands each module's _load_from_state_dict the metadata saved under its own prefix
    (state_dict._metadata.get(prefix[:-1], {}), {} when the checkpoint has none), so that an override can
    migrate a checkpoint saved by an older version of its class""")
def local_metadata_not_passed(e):
    """Requires: loading a checkpoint the scenario wrote (not one the submission saved), the overrides
    were called as in torch, with other versions than its metadata holds.

    Neighbour: `metadata_keyed_with_the_dot` (06, variants.yaml) fails `torch_style_override_migrates` too, without other
    versions from a checkpoint the scenario wrote: it passes those right, and saves its own metadata under 'first.'."""
    for label, t in e.torch.items():
        y = e.yours.get(label) if isinstance(e.yours, dict) else None
        if not (label in WRITTEN_CHECKPOINTS and isinstance(t, dict) and isinstance(y, dict)):
            continue
        seen_t, seen_y = t.get(VERSIONS_SEEN), y.get(VERSIONS_SEEN)
        if isinstance(seen_t, list) and isinstance(seen_y, list) and seen_t != seen_y \
                and [p for p, _ in seen_t] == [p for p, _ in seen_y]:
            return True
    return False


@misconception("child-sees-all-keys", "06", """
    each child loads from only the keys under its own prefix: load_state_dict passes a child
    {k: v for k, v in state_dict.items() if k.startswith(child_prefix)}, so a _load_from_state_dict
    override (and the unexpected-key check) sees only that module's part of the checkpoint""")
def child_sees_all_keys(e):
    """Requires: an override below the root saw more keys than torch's, all of torch's among them.

    Neighbour: `own_unexpected_keys_dropped` (06, variants.yaml) fails `child_sees_own_keys` too, without a child that sees
    more keys: each override sees its own, and the module's own unexpected keys are dropped."""
    for t, y in e.pairs(KEYS_SEEN):
        if isinstance(t, list) and isinstance(y, list) and len(t) == len(y):
            for (prefix_t, keys_t), (prefix_y, keys_y) in zip(t, y):
                if prefix_t == prefix_y and prefix_t and set(keys_t) < set(keys_y):
                    return True
    return False


@misconception("extra-state-ignored", "06", """
    a class that defines get_extra_state() saves its result under prefix + '_extra_state' (after its own
    tensors, before its children's), and load_state_dict() hands that value to set_extra_state(); a class
    that does not define them has no such key""")
def extra_state_ignored(e):
    """Requires: torch's state holds '_extra_state' keys the submission's lacks, or torch restored an extra
    state the submission did not, from the same state, with the same tensors loaded (a load that raised, or
    never reached the child, restored neither).

    Neighbour: `load_skips_children` (06, variants.yaml) fails `extra_state` too, without the same tensors loaded: its
    load never reaches the counter, whose weight stays as it was, like its extra state."""
    for t, y in e.pairs(STATE_DICT):
        if isinstance(t, dict) and isinstance(y, dict):
            missing = set(t) - set(y)
            if missing and all(k.endswith("_extra_state") for k in missing):
                return True
    return any(t != y for t, y in e.pairs(COUNTER_CALLS)) and not any(
        t != y for t, y in e.pairs(STATE_DICT)) and any(
        isinstance(t, dict) and isinstance(y, dict) and _same_items(e, t, y) for t, y in e.pairs(LOADED_TENSORS))


@misconception("assign-copies", "06", """
    load_state_dict(assign=True) puts the checkpoint's own tensors into the model instead of copying into
    the existing ones (a plain tensor becomes a Parameter over the same storage, keeping the old
    Parameter's requires_grad): the way to fill a model built on the meta device""")
def assign_copies(e):
    """Requires: with assign=True, torch holds the checkpoint's tensor where the submission holds another,
    and the same load without assign copied the checkpoint's values as torch's did (a load that writes
    nothing neither copies nor assigns).

    Neighbour: `non_persistent_buffers_saved` (06, variants.yaml) fails `assign_loads` too, without another tensor where torch
    holds the checkpoint's: it saves the non-persistent cache as well."""
    copied = e.pairs(COPIED_WITHOUT_ASSIGN)
    return bool(copied) and all(e.agree(t, y) for t, y in copied) and any(
        isinstance(t, dict) and isinstance(y, dict) and any(v is True and y.get(k) is False for k, v in t.items())
        for t, y in e.pairs(AFTER_ASSIGN))
