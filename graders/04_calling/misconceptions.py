"""Misconceptions of exercise 04: __call__, hooks, modes and gradients.
Hook scenarios return a ``hook log`` of entries ``"pre <module>"`` and
``"post <module> ..."``; mode scenarios the ``training`` flag of every module
by name; gradient scenarios each parameter's ``.grad`` by name."""
from __future__ import annotations

from modlab.grading.catalog import misconception
from modlab.grading.evidence import TensorView, named, raised

from ..shared.misconceptions import hook_logs, single_value_case
from .views import (ALWAYS_CALLED_LOG, BACKWARD_LOG, FORWARD_HOOKS_SIZE, FORWARD_PRE_HOOKS_SIZE, GRAD_ZEROED,
                    GRADS_AFTER, GRADS_AFTER_ZEROING, HISTORY_CUT, KWARGS_HOOKS_SAW, MESSAGES_NAME_THE_CLASS,
                    REQUIRES_GRAD_AFTER, TRAINING_MODES)


@misconception("pre-hook-result-not-wrapped", "04", """
    a pre-hook that returns a single value (not a tuple) replaces the input with that one value:
    __call__ wraps it into a one-element tuple before forward(*args), or the tensor itself is unpacked
    into arguments""")
def pre_hook_result_not_wrapped(e):
    """A pre-hook returning a tuple works as in torch, one returning a single value does not."""
    return single_value_case(e)


@misconception("prepend-ignored", "04", """
    prepend=True puts the new hook first in its table (hooks.move_to_end(id, last=False)): hooks run in
    table order, so it runs before the hooks registered earlier""")
def prepend_ignored(e):
    """The hooks ran as in torch, but the hooks registered with prepend=True did not run first."""
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
    """After a removal, the submission's log still shows a removed hook, or the tables are larger than torch's."""
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
    """forward raised NotImplementedError in both worlds, but the submission's message does not name the class."""
    return any(t is True and y is False for checks_t, checks_y in e.pairs(MESSAGES_NAME_THE_CLASS)
               for t, y in zip(checks_t, checks_y))


@misconception("exceptions-swallowed", "04", """
    an exception raised in a pre-hook, in forward or in a hook must reach the caller unchanged: __call__ does
    not catch it (a try/except that returns None hides the error and hands back nothing)""")
def exceptions_swallowed(e):
    """The hooks ran as in torch, and torch raised from a call where the submission returned without raising."""
    logs = hook_logs(e)
    return bool(logs) and all(t == y for t, y in logs) and any(
        raised(t) and not raised(y) for t, y in e.pairs_where(lambda name, value: name.startswith("m(")))


def _modes(e):
    return [(named(t), named(y)) for t, y in e.pairs_where(lambda name, value: name.startswith(TRAINING_MODES))]


@misconception("mode-not-recursive", "04", """
    train(mode) and eval() set the flag on the whole tree: the module itself, then train(mode) on each
    child, so that BatchNorm and Dropout deep inside a model change behaviour""")
def mode_not_recursive(e):
    """The module's own flag is torch's, a module below it keeps another."""
    for t, y in _modes(e):
        if t != y and t.get("") == y.get("") and set(t) == set(y):
            return True
    return False


@misconception("train-returns-self", "04", """
    train(), eval() and requires_grad_() return the module itself (return self), so that calls chain:
    model = Net().eval()""")
def train_returns_self(e):
    """``x.train() is x`` (or eval) is True in torch and False in the submission."""
    return any(t is True and y is False
               for t, y in e.pairs_where(lambda name, value: (".train(" in name or ".eval(" in name) and " is " in name))


@misconception("train-mode-unchecked", "04", """
    train(mode) accepts only a bool: anything else raises ValueError("training mode is expected to be
    boolean") before a flag changes""")
def train_mode_unchecked(e):
    """train(mode) with a mode that is not a bool raised ValueError in torch, not in the submission."""
    return any(raised(t, "ValueError") and not raised(y, "ValueError")
               for t, y in e.pairs_where(lambda name, value: name.startswith("net.train(")))


def _grads(e):
    return [(named(t), named(y)) for t, y in e.pairs_where(lambda name, value: name.startswith(GRADS_AFTER))]


@misconception("zero-grad-set-to-none-ignored", "04", """
    zero_grad(set_to_none=False) keeps each .grad tensor and fills it with zeros in place; only the
    default set_to_none=True replaces it with None""")
def zero_grad_set_to_none_ignored(e):
    """After zero_grad(set_to_none=False), torch holds a tensor of zeros where the submission holds None."""
    for t, y in e.pairs(GRADS_AFTER_ZEROING):
        if any(isinstance(grad, TensorView) and named(y).get(name, "gone") is None for name, grad in named(t).items()):
            return True
    return False


@misconception("zero-grad-keeps-history", "04", """
    a gradient computed with create_graph=True has a history: zero_grad(set_to_none=False) detaches it
    (grad.detach_()) before zeroing in place, or the zeroed gradient still requires grad""")
def zero_grad_keeps_history(e):
    """The gradient is zeroed in both worlds, and its history is cut in torch's only."""
    zeroed = e.pairs(GRAD_ZEROED)
    return bool(zeroed) and all(t is True and y is True for t, y in zeroed) and any(
        t is True and y is False for t, y in e.pairs(HISTORY_CUT))


@misconception("zero-grad-misses-parameters", "04", """
    zero_grad() resets every parameter of the tree: walk self.parameters() (the whole tree), not only
    this module's own _parameters""")
def zero_grad_misses_parameters(e):
    """After zero_grad, some parameters' gradients are reset as torch's are and others keep their old value."""
    for t, y in _grads(e):
        if set(t) != set(y):
            continue
        agree = [name for name in t if _same_grad(t[name], y[name])]
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
    """After requires_grad_, some parameters' flags are torch's and others are not."""
    for t, y in e.pairs_where(lambda name, value: name.startswith(REQUIRES_GRAD_AFTER)):
        t, y = named(t), named(y)
        if set(t) == set(y) and any(t[n] == y[n] for n in t) and any(t[n] != y[n] for n in t):
            return True
    return False


@misconception("with-kwargs-ignored", "04", """
    a hook registered with with_kwargs=True takes the keyword arguments too: a pre-hook is called as
    hook(module, args, kwargs) and returns None or a new (args, kwargs) pair, a forward hook as
    hook(module, args, kwargs, output); __call__ looks the hook's id up in the _with_kwargs table""")
def with_kwargs_ignored(e):
    """A call with kwargs hooks returned in torch and raised TypeError in the submission (the hook was called
    without its kwargs), or the kwargs hooks saw other keyword arguments than torch's."""
    calls = e.pairs_where(lambda name, value: name.startswith("m(x"))
    if any(not raised(t) and raised(y, "TypeError") for t, y in calls):
        return True
    return any(t != y and isinstance(t, list) and isinstance(y, list) and len(t) == len(y)
               for t, y in e.pairs(KWARGS_HOOKS_SAW))


@misconception("always-call-ignored", "04", """
    a forward hook registered with always_call=True runs even when a pre-hook, forward or another hook
    raises: __call__ catches the exception, runs each always-called hook that has not run yet (an error of
    its own is only a warning), then raises the original exception again""")
def always_call_ignored(e):
    """Every call raised (or returned) as in torch, and the submission ran fewer always-called hooks after a
    failure than torch, none that torch did not."""
    calls = e.pairs_where(lambda name, value: name.startswith("m(x"))
    if not calls or any(raised(t) != raised(y) or raised(t) and t.type != y.type for t, y in calls):
        return False
    for t, y in e.pairs(ALWAYS_CALLED_LOG):
        if isinstance(t, list) and isinstance(y, list) and len(y) < len(t) and set(y) <= set(t):
            return True
    return False


@misconception("backward-hooks-not-attached", "04", """
    backward hooks run only if __call__ hands the module's arguments to attach_to_inputs just before forward
    and its output to attach_to_output after the forward hooks (both given, with backward_hook(self) made
    before the pre-hooks): otherwise torch's BackwardHook never sees the gradients""")
def backward_hooks_not_attached(e):
    """The forward hooks ran as in torch, and some backward hook that ran in torch never ran in the submission."""
    for t, y in e.pairs(BACKWARD_LOG):
        if not (isinstance(t, list) and isinstance(y, list)):
            continue
        backward = [entry for entry in t if entry.startswith("backward")]
        forward_t = [entry for entry in t if not entry.startswith("backward")]
        forward_y = [entry for entry in y if not entry.startswith("backward")]
        if backward and forward_t == forward_y and any(entry not in y for entry in backward):
            return True
    return False
