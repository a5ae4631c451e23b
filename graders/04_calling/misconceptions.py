"""Misconceptions of exercise 04: __call__, hooks, modes and gradients.
Hook scenarios return a ``hook log`` of entries ``"pre <module>"`` and
``"post <module> ..."``; mode scenarios the ``training`` flag of every module
by name; gradient scenarios each parameter's ``.grad`` by name."""
from __future__ import annotations

import re

from modlab.grading.catalog import misconception
from modlab.grading.evidence import TensorView, named, raised

from ..shared.misconceptions import hook_logs, single_value_case
from .views import (ALWAYS_CALLED_LOG, BACKWARD_LOG, FORWARD_HOOKS_SIZE, FORWARD_PRE_HOOKS_SIZE, GRAD_ZEROED,
                    GRADS_AFTER, GRADS_AFTER_ZEROING, GRADS_BEFORE, HISTORY_CUT, HOOK_KWARGS_MARKED, KWARGS_HOOKS_SAW,
                    MESSAGES_NAME_THE_CLASS, PRE_HOOK_KWARGS_MARKED, REQUIRES_GRAD_AFTER, TRAINING_MODES)

REQUIRES_GRAD_CALLED = re.compile(r"root((?:\.\w+)*)\.requires_grad_\(")  # the path of the module called


@misconception("pre-hook-result-not-wrapped", "04", """
    a pre-hook that returns a single value (not a tuple) replaces the input with that one value:
    __call__ wraps it into a one-element tuple before forward(*args), or the tensor itself is unpacked
    into arguments""")
def pre_hook_result_not_wrapped(e):
    """Requires: a pre-hook returning a tuple works as in torch, one returning a single value does not.

    Neighbour: `pre_hooks_results_ignored` (04, student_bugs.yaml) fails `pre_hook_replaces_the_input` too,
    without the tuple case working: it ignores every pre-hook's return value, a tuple's included.
    """
    return single_value_case(e)


@misconception("prepend-ignored", "04", """
    prepend=True puts the new hook first in its table (hooks.move_to_end(id, last=False)): hooks run in
    table order, so it runs before the hooks registered earlier""")
def prepend_ignored(e):
    """Requires: the hooks ran as in torch, but the hooks registered with prepend=True did not run first.

    Neighbour: `call_skips_the_hooks` (04, variants.yaml) fails `hooks_run_in_order_around_forward` too, without
    the hooks running as in torch: __call__ runs forward alone, so no hook runs.
    """
    for t, y in hook_logs(e):
        if t != y and sorted(t) == sorted(y) and any("first" in entry for entry in t):
            first_t = [i for i, entry in enumerate(t) if "first" in entry]
            first_y = [i for i, entry in enumerate(y) if "first" in entry]
            if first_t != first_y:
                return True
    return False


@misconception("handle-remove-keeps-the-hook", "04", """
    handle.remove() deletes the hook from the table it was stored in, under the handle's id, so that it
    never runs again (and removing twice does nothing); leaving the with block removes it too""")
def handle_remove_keeps_the_hook(e):
    """Requires: after a removal, the submission's log still shows a removed hook, or the tables are larger than
    torch's.

    Neighbour: `remove_uses_the_weakref_itself` (04, student_bugs.yaml) fails `handle_remove_unregisters` too,
    without a removed hook that still runs: handle.remove() fails on the weak reference itself instead of the
    table it points to.
    """
    for t, y in hook_logs(e):
        if len(y) > len(t) and set(y) <= set(t) | {entry for entry in y if not entry.startswith("|")}:
            markers_t = [entry for entry in t if entry.startswith("|")]
            if markers_t and markers_t == [entry for entry in y if entry.startswith("|")]:
                return True
    sizes = e.pairs(FORWARD_PRE_HOOKS_SIZE) + e.pairs(FORWARD_HOOKS_SIZE)
    return any(isinstance(t, int) and isinstance(y, int) and y > t for t, y in sizes)


@misconception("missing-forward-message", "04", """
    Module.forward raises NotImplementedError naming the module's class, as torch does:
    Module [NoForward] is missing the required "forward" function""")
def missing_forward_message(e):
    """Requires: a call without forward raised NotImplementedError in both worlds, and the submission's message
    does not name the module's class where torch's does; or none of those calls raised in the submission,
    forward called directly included (forward returns).

    Neighbour: `call_swallows_exceptions` (04, student_bugs.yaml) fails `missing_forward_raises` too, without an
    unnamed class or a forward that returns: __call__ swallows the NotImplementedError and returns None, while
    forward called directly raises torch's message.
    """
    calls = e.pairs_where(lambda name, value: raised(value, "NotImplementedError"))  # in the order the messages are
    if calls and not any(raised(y) for _, y in calls):
        return True
    return any(t is True and y is False and raised(call_y, "NotImplementedError")
               for checks_t, checks_y in e.pairs(MESSAGES_NAME_THE_CLASS)
               for t, y, (_, call_y) in zip(checks_t, checks_y, calls))


@misconception("exceptions-swallowed", "04", """
    an exception raised in a pre-hook, in forward or in a hook must reach the caller unchanged: __call__ does
    not catch it (a try/except that returns None hides the error and hands back nothing)""")
def exceptions_swallowed(e):
    """Requires: the hooks ran as in torch, and torch raised from a call where the submission returned without
    raising.

    Neighbour: `call_skips_the_hooks` (04, variants.yaml) fails `exceptions_propagate` too, without the hooks
    running as in torch: __call__ runs forward alone, so a raising hook never runs.
    """
    logs = hook_logs(e)
    return bool(logs) and all(t == y for t, y in logs) and any(
        raised(t) and not raised(y) for t, y in e.pairs_where(lambda name, value: name.startswith("m(")))


def _modes(e):
    return [(named(t), named(y)) for t, y in e.pairs_where(lambda name, value: name.startswith(TRAINING_MODES))]


@misconception("mode-not-recursive", "04", """
    train(mode) and eval() set the flag on the whole tree: the module itself, then train(mode) on each
    child, so that BatchNorm and Dropout deep inside a model change behaviour""")
def mode_not_recursive(e):
    """Requires: the module's own flag is torch's, a module below it keeps another.

    Neighbour: `train_returns_none` (04, variants.yaml) fails `train_and_eval_recurse` too, without a module
    below keeping another flag: train() sets every flag as torch does and returns None.
    """
    for t, y in _modes(e):
        if t != y and t.get("") == y.get("") and set(t) == set(y):
            return True
    return False


@misconception("train-returns-self", "04", """
    train(), eval() and requires_grad_() return the module itself (return self), so that calls chain:
    model = Net().eval()""")
def train_returns_self(e):
    """Requires: ``x.train() is x`` (or eval) is True in torch and False in the submission.

    Neighbour: `eval_does_not_recurse` (04, variants.yaml) fails `train_and_eval_recurse` too, without
    ``x.eval() is x`` False: eval() returns the module but leaves its children in training mode.
    """
    return any(t is True and y is False
               for t, y in e.pairs_where(lambda name, value: (".train(" in name or ".eval(" in name) and " is " in name))


@misconception("train-mode-unchecked", "04", """
    train(mode) accepts only a bool: anything else raises ValueError("training mode is expected to be
    boolean") before a flag changes""")
def train_mode_unchecked(e):
    """Requires: train(mode) with a mode that is not a bool raised ValueError in torch, not in the submission.

    Neighbour: `eval_does_not_recurse` (04, variants.yaml) fails `train_validates_mode` too, without a mode that
    is not a bool accepted: every train(mode) raises torch's ValueError, and eval() had left the children in
    training mode.
    """
    return any(raised(t, "ValueError") and not raised(y, "ValueError")
               for t, y in e.pairs_where(lambda name, value: name.startswith("net.train(")))


def _grads(e):
    return [(named(t), named(y)) for t, y in e.pairs_where(lambda name, value: name.startswith(GRADS_AFTER))]


@misconception("zero-grad-set-to-none-ignored", "04", """
    zero_grad(set_to_none=False) keeps each .grad tensor and fills it with zeros in place; only the
    default set_to_none=True replaces it with None""")
def zero_grad_set_to_none_ignored(e):
    """Requires: after zero_grad(set_to_none=False), torch holds a tensor of zeros where the submission holds
    None.

    Neighbour: `zero_grad_own_parameters_only` (04, variants.yaml) fails `zero_grad_resets_every_gradient` too,
    without None where torch holds zeros: it resets only the module's own parameters, the children's gradients
    keep their values.
    """
    for t, y in e.pairs(GRADS_AFTER_ZEROING):
        if any(isinstance(grad, TensorView) and named(y).get(name, "gone") is None for name, grad in named(t).items()):
            return True
    return False


@misconception("zero-grad-keeps-history", "04", """
    a gradient computed with create_graph=True has a history: zero_grad(set_to_none=False) detaches it
    (grad.detach_()) before zeroing in place, or the zeroed gradient still requires grad""")
def zero_grad_keeps_history(e):
    """Requires: the gradient is zeroed in both worlds, and its history is cut in torch's only.

    Neighbour: `zero_grad_always_sets_none` (04, variants.yaml) fails `zero_grad_cuts_the_gradient_history` too,
    without a gradient zeroed in both worlds: it sets the gradient to None.
    """
    zeroed = e.pairs(GRAD_ZEROED)
    return bool(zeroed) and all(t is True and y is True for t, y in zeroed) and any(
        t is True and y is False for t, y in e.pairs(HISTORY_CUT))


@misconception("zero-grad-misses-parameters", "04", """
    zero_grad() resets every parameter of the tree: walk self.parameters() (the whole tree), not only
    this module's own _parameters""")
def zero_grad_misses_parameters(e):
    """Requires: after zero_grad, some parameters' gradients, which had one before (where the check shows
    them), are reset as torch's are and others keep their old value, and no zero_grad of the check resets
    every gradient as torch's does (a parameter that never had a gradient agrees without any reset; one
    zero_grad that reaches every parameter walks the tree).

    Neighbour: `zero_grad_always_sets_none` (04, variants.yaml) fails `zero_grad_resets_every_gradient` too,
    without gradients that keep their old value: every gradient becomes None.
    """
    grads = _grads(e)
    if any(t == y for t, y in grads):
        return False
    before = [named(t) for t, _ in e.pairs(GRADS_BEFORE)]
    had = {name for grads_before in before for name, grad in grads_before.items() if grad is not None}
    for t, y in grads:
        if set(t) != set(y):
            continue
        agree = [name for name in t if _same_grad(t[name], y[name]) and (not before or name in had)]
        if agree and len(agree) < len(t) and any(_nonzero(y[name]) for name in t if name not in agree):
            return True
    return False


def _same_grad(a, b) -> bool:
    if isinstance(a, TensorView) and isinstance(b, TensorView):
        return a.record == b.record
    return a == b


def _nonzero(grad) -> bool:
    return isinstance(grad, TensorView) and any(v != 0 for v in _flat(grad.tolist()))


def _flat(values):
    if isinstance(values, list):
        for item in values:
            yield from _flat(item)
    else:
        yield values


@misconception("requires-grad-not-recursive", "04", """
    requires_grad_(flag) sets requires_grad on every parameter of the tree (self.parameters()), buffers
    untouched, and returns self""")
def requires_grad_not_recursive(e):
    """Requires: after ``root[.path].requires_grad_(...)``, the called module's own parameters have torch's
    flags and some parameters of its submodules do not.

    Neighbour: `requires_grad_ignores_the_flag` (04, student_bugs.yaml) fails
    `requires_grad_freezes_and_unfreezes` too, without the called module's own parameters right:
    requires_grad_() sets every flag to True, whatever it is given.
    """
    for field, t, y in e.fields():
        called = REQUIRES_GRAD_CALLED.search(field) if field.startswith(REQUIRES_GRAD_AFTER) else None
        t, y = named(t), named(y)
        if called and t and set(t) == set(y):
            path = called.group(1)
            own, below = _own_and_below(list(t), path)
            if own and all(t[n] == y[n] for n in own) and any(t[n] != y[n] for n in below):
                return True
    return False


def _own_and_below(names: list[str], path: str) -> tuple[list[str], list[str]]:
    """The names of the module at ``path``'s own parameters, and of those of its submodules (names from the root,
    ``path`` as ``".body"`` or ``""`` for the root)."""
    inside = [n for n in names if ("." + n).startswith(path + ".")]
    depth = path.count(".")
    return [n for n in inside if n.count(".") == depth], [n for n in inside if n.count(".") > depth]


@misconception("with-kwargs-ignored", "04", """
    a hook registered with with_kwargs=True takes the keyword arguments too: a pre-hook is called as
    hook(module, args, kwargs) and returns None or a new (args, kwargs) pair, a forward hook as
    hook(module, args, kwargs, output); __call__ looks the hook's id up in the _with_kwargs table""")
def with_kwargs_ignored(e):
    """Requires: a call returned in torch and raised TypeError "... positional argument ..." in the submission
    (a hook was called with too few arguments), and the with_kwargs pre-hooks' record differs from torch's (they
    were not handed their kwargs); or the with_kwargs forward hooks ran as often as torch's and recorded other
    keyword arguments (they were handed something else in their place); or a hook registered with
    with_kwargs=True is missing from its with_kwargs table, where torch's holds it.

    Neighbour: `call_forward_hook_reads_pre_hook_marks` (04, student_bugs.yaml) fails `kwargs_hooks` too,
    without a pre-hook record that differs: it looks forward hooks up in the pre-hooks' with_kwargs table, so
    only a forward hook is called without its kwargs (it raises before it records anything).
    """
    if any(t is True and y is False for t, y in e.pairs(PRE_HOOK_KWARGS_MARKED) + e.pairs(HOOK_KWARGS_MARKED)):
        return True
    records = e.pairs(KWARGS_HOOKS_SAW)
    if any(_hook_kwargs(t, "post") != _hook_kwargs(y, "post") and len(_hook_kwargs(t, "post")) == len(
            _hook_kwargs(y, "post")) for t, y in records):
        return True
    calls = e.pairs_where(lambda name, value: name.startswith("m(x"))
    if not any(not raised(t) and raised(y, "TypeError") and "positional argument" in y.message for t, y in calls):
        return False
    return any(_hook_kwargs(t, "pre") != _hook_kwargs(y, "pre") for t, y in records)


def _hook_kwargs(seen, kind: str) -> list:
    """The keyword arguments the with_kwargs hooks of a kind (``"pre"`` or ``"post"``) recorded, one entry a call:
    they write ``["pre", len(args), kwargs names]`` and ``["post", kwargs names, output]``."""
    if not isinstance(seen, list):
        return []
    entries = [entry for entry in seen if isinstance(entry, list) and len(entry) == 3 and entry[0] == kind]
    return [entry[2] if kind == "pre" else entry[1] for entry in entries]


@misconception("always-call-ignored", "04", """
    a forward hook registered with always_call=True runs even when a pre-hook, forward or another hook
    raises: __call__ catches the exception, runs each always-called hook that has not run yet (an error of
    its own is only a warning), then raises the original exception again""")
def always_call_ignored(e):
    """Requires: every call raised (or returned) as in torch, the call that does not fail ran the hooks
    torch's did (forward hooks that never run skip the always-called ones for another reason), and the
    submission ran fewer always-called hooks after a failure than torch, none that torch did not.

    Neighbour: `hook_errors_swallowed` (04, variants.yaml) fails `always_call_after_failure` too, without every
    call raising as torch's: a pre-hook's exception is swallowed, so the call returns.
    """
    calls = e.pairs_where(lambda name, value: name.startswith("m(x"))
    if not calls or any(raised(t) != raised(y) or raised(t) and t.type != y.type for t, y in calls):
        return False
    for t, y in e.pairs(ALWAYS_CALLED_LOG):
        if isinstance(t, list) and isinstance(y, list) and len(y) < len(t) and set(y) <= set(t) \
                and _first_call(t) == _first_call(y):
            return True
    return False


def _first_call(log: list) -> list:
    """The always-called hook log's entries for its first call, up to the "| ..." line of the next."""
    ends = [i for i, entry in enumerate(log) if isinstance(entry, str) and entry.startswith("|")][1:2]
    return log[:ends[0]] if ends else log


@misconception("backward-hooks-not-attached", "04", """
    backward hooks run only if __call__ hands the module's arguments to attach_to_inputs just before forward
    and its output to attach_to_output after the forward hooks (both given, with backward_hook(self) made
    before the pre-hooks): otherwise torch's BackwardHook never sees the gradients""")
def backward_hooks_not_attached(e):
    """Requires: the forward hooks ran as in torch, and some backward hook that ran in torch never ran in the
    submission.

    Neighbour: `call_skips_the_hooks` (04, variants.yaml) fails `backward_hooks_fire` too, without the forward
    hooks running as in torch: __call__ runs forward alone, so no hook runs.
    """
    for t, y in e.pairs(BACKWARD_LOG):
        if not (isinstance(t, list) and isinstance(y, list)):
            continue
        backward = [entry for entry in t if entry.startswith("backward")]
        forward_t = [entry for entry in t if not entry.startswith("backward")]
        forward_y = [entry for entry in y if not entry.startswith("backward")]
        if backward and forward_t == forward_y and any(entry not in y for entry in backward):
            return True
    return False
