"""Exercise 04: calling a module, its hooks, and the modes and gradients of
its tree. Hooks write what they see into a ``hook log`` the scenario returns
(``"pre first"``, ``"post second [1]"``); random trees (Hypothesis) check that
train/eval, zero_grad and requires_grad_ reach every module and parameter."""
import torch

from modlab.grading import attempt, scenario

from ..shared.misconceptions import forward_called_directly, hook_return_ignored
from ..shared.probes import BEFORE_REPLACING, HOOK_LOG, HOOK_TABLES, HOOK_TIMES_100, PRE_HOOK_SINGLE, PRE_HOOK_TUPLE
from ..shared.trees import build_tree, leaf_class, module_trees, tree_code
from .misconceptions import (always_call_ignored, backward_hooks_not_attached, exceptions_swallowed,
                             handle_remove_keeps_the_hook, missing_forward_message, mode_not_recursive,
                             pre_hook_result_not_wrapped, prepend_ignored, requires_grad_not_recursive,
                             train_mode_unchecked, train_returns_self, with_kwargs_ignored, zero_grad_keeps_history,
                             zero_grad_misses_parameters, zero_grad_set_to_none_ignored)
from .views import (FORWARD_HOOKS_SIZE, FORWARD_PRE_HOOKS_SIZE, GRAD_ZEROED, GRADS_AFTER, GRADS_AFTER_ZEROING,
                    GRADS_BEFORE, HISTORY_CUT, KWARGS_HOOKS_SAW, MESSAGES_NAME_THE_CLASS, REQUIRES_GRAD_AFTER,
                    TRAINING_MODES, always_called_hooks, backward_hooks_run, doubler, frozen, grads, hook_marks, modes,
                    names_the_module, two_layers, with_grads)

TREES = module_trees()
HOOKS = [forward_called_directly, hook_return_ignored]


@scenario(points=1, public=True)
def call_runs_forward(nn):
    """model(x) returns forward(x), keyword arguments included"""
    m = doubler(nn)
    x = torch.arange(3.0)
    return {"m(x)": m(x), "m(x, offset=1)": m(x, offset=1), "m(x, 5)": m(x, 5), "m.forward(x)": m.forward(x)}


@scenario(points=1, public=True, misconceptions=[missing_forward_message])
def missing_forward_raises(nn):
    """calling a module without forward raises NotImplementedError naming the module's class"""

    class NoForward(nn.Module):
        pass

    called = {"nn.Module()(torch.ones(1))": (attempt(nn.Module(), torch.ones(1)), "Module"),
              "NoForward()()": (attempt(NoForward()), "NoForward"),
              "NoForward().forward(1)": (attempt(NoForward().forward, 1), "NoForward")}
    return {**{call: result for call, (result, _) in called.items()},
            MESSAGES_NAME_THE_CLASS: [names_the_module(result, name) for result, name in called.values()]}

@scenario(points=2, public=True, misconceptions=[*HOOKS, pre_hook_result_not_wrapped])
def pre_hook_replaces_the_input(nn):
    """a forward pre-hook's return value replaces the input; a single value is wrapped into a tuple"""
    m = doubler(nn)
    x = torch.ones(2)
    seen, log = [], []
    m.register_forward_pre_hook(lambda mod, args: log.append("pre m") or seen.append(
        [mod is m, type(args).__name__, len(args)]))
    observed = {BEFORE_REPLACING: attempt(m, x)}
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 10, 3))      # a tuple: all the arguments
    observed[PRE_HOOK_TUPLE] = attempt(m, x)
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)            # a single value
    observed[PRE_HOOK_SINGLE] = attempt(m, x)
    return {HOOK_LOG: log, "what the first pre-hook saw": seen, **observed}


@scenario(points=2, public=True, misconceptions=HOOKS)
def forward_hook_replaces_the_output(nn):
    """a forward hook's return value replaces the output; the next hook sees the replacement"""
    m = doubler(nn)
    x = torch.ones(2)
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append([mod is m, type(args).__name__, args[0] is x, out]))
    kept = m(x)
    m.register_forward_hook(lambda mod, args, out: out * 100)
    m.register_forward_hook(lambda mod, args, out: seen.append(out))
    replaced = m(x)
    return {HOOK_LOG: ["post m"] * len(seen), "what the hooks saw": seen, BEFORE_REPLACING: kept,
            HOOK_TIMES_100: replaced}


@scenario(points=2, public=True, misconceptions=[*HOOKS, prepend_ignored])
def hooks_run_in_order_around_forward(nn):
    """pre-hooks run in registration order, then forward, then forward hooks; prepend=True runs first"""
    log = []

    class Logged(nn.Module):
        def forward(self, x):
            log.append("forward")
            return x

    m = Logged()
    for n in (1, 2):
        m.register_forward_pre_hook(lambda mod, args, n=n: log.append(f"pre m {n}"))
        m.register_forward_hook(lambda mod, args, out, n=n: log.append(f"post m {n}"))
    m.register_forward_pre_hook(lambda mod, args: log.append("pre m first"), prepend=True)
    m.register_forward_hook(lambda mod, args, out: log.append("post m first"), prepend=True)
    m(torch.ones(1))
    return {HOOK_LOG: log, HOOK_TABLES: [len(m._forward_pre_hooks), len(m._forward_hooks)]}


@scenario(points=2, public=True, misconceptions=[*HOOKS, handle_remove_keeps_the_hook])
def handle_remove_unregisters(nn):
    """handle.remove() unregisters one hook; removing twice is harmless; a handle works in `with`"""
    m = doubler(nn)
    log = []
    pre = m.register_forward_pre_hook(lambda mod, args: log.append("pre m"))
    post = m.register_forward_hook(lambda mod, args, out: log.append("post m"))
    other = m.register_forward_hook(lambda mod, args, out: log.append("post m other"))
    m(torch.ones(1))
    pre.remove()
    post.remove()
    post.remove()
    log.append("| after removing two")
    m(torch.ones(1))
    with m.register_forward_hook(lambda mod, args, out: log.append("post m scoped")):
        m(torch.ones(1))
    log.append("| after the with block")
    other.remove()
    m(torch.ones(1))
    return {HOOK_LOG: log, FORWARD_PRE_HOOKS_SIZE: len(m._forward_pre_hooks),
            FORWARD_HOOKS_SIZE: len(m._forward_hooks)}


@scenario(points=2, misconceptions=HOOKS)
def hooks_fire_through_nested_modules(nn):
    """hooks on children fire when the parent's forward calls them, in call order"""
    log = []
    net = two_layers(nn, log)
    out = net(torch.ones(4, 2))
    return {HOOK_LOG: log, "net(x)": out}


@scenario(points=2, public=True, misconceptions=HOOKS)
def calling_forward_directly_skips_hooks(nn):
    """model.forward(x) runs no hooks, model(x) runs them all"""
    log = []
    net = two_layers(nn, log)
    direct = net.forward(torch.ones(1, 2))
    after_forward = list(log)
    called = net(torch.ones(1, 2))
    return {f"{HOOK_LOG} after net.forward(x)": after_forward, HOOK_LOG: log,
            "net.forward(x) equals net(x)": torch.equal(direct, called)}


@scenario(points=1, public=True, misconceptions=[*HOOKS, exceptions_swallowed])
def exceptions_propagate(nn):
    """an exception raised in a hook or in forward reaches the caller unchanged"""
    m = doubler(nn)
    log = []
    m.register_forward_pre_hook(lambda mod, args: log.append("pre m"))
    failing = m.register_forward_pre_hook(lambda mod, args: {}["missing"])
    first = attempt(m, torch.ones(1))
    failing.remove()
    m.register_forward_hook(lambda mod, args, out: log.append("post m"))  # so the log shows forward hooks run
    m.register_forward_hook(lambda mod, args, out: out.no_such_method())
    return {HOOK_LOG: log, "m(x) with a failing pre-hook": first, "m(x) with a failing hook": attempt(m, torch.ones(1)),
            "m('not a tensor')": attempt(m, "not a tensor")}


MODES = [mode_not_recursive, train_returns_self]


@scenario(points=2, public=True, misconceptions=MODES)
def train_and_eval_recurse(nn):
    """eval() and train() set the flag on every module of the tree and return self"""
    log = []
    net = two_layers(nn, log)
    observed = {f"{TRAINING_MODES} at the start": modes(net), "net.eval() is net": net.eval() is net,
                f"{TRAINING_MODES} after net.eval()": modes(net)}
    net.first.train()
    observed[f"{TRAINING_MODES} after net.first.train()"] = modes(net)
    observed["net.train() is net"] = net.train() is net
    observed[f"{TRAINING_MODES} after net.train()"] = modes(net)
    observed["net.train(False) is net"] = net.train(False) is net
    observed[f"{TRAINING_MODES} after net.train(False)"] = modes(net)
    return observed


@scenario(points=1, public=True, misconceptions=[train_mode_unchecked])
def train_validates_mode(nn):
    """train(mode) rejects a mode that is not a bool with ValueError, changing nothing"""
    log = []
    net = two_layers(nn, log)
    net.eval()
    return {"net.train('yes')": attempt(net.train, "yes"), "net.train(1)": attempt(net.train, 1),
            "net.train(None)": attempt(net.train, None), f"{TRAINING_MODES} after": modes(net)}


@scenario(points=3, specs=TREES, shown=tree_code, examples=30, misconceptions=MODES)
def random_trees_train_and_eval(nn, spec):
    """on random trees, eval() and train() reach every module, shared ones included"""
    root = build_tree(nn, spec)
    observed = {"root.eval() is root": root.eval() is root, f"{TRAINING_MODES} after root.eval()": modes(root)}
    child = next(root.children(), None)
    if child is not None:  # one subtree back to training, the rest stays in eval
        observed["child.train() is child"] = child.train() is child
        observed[f"{TRAINING_MODES} after child.train()"] = modes(root)
    observed["root.train() is root"] = root.train() is root
    observed[f"{TRAINING_MODES} after root.train()"] = modes(root)
    return observed


GRADS = [zero_grad_set_to_none_ignored, zero_grad_keeps_history, zero_grad_misses_parameters]


@scenario(points=2, public=True, misconceptions=GRADS)
def zero_grad_resets_every_gradient(nn):
    """zero_grad() sets every .grad to None; zero_grad(set_to_none=False) fills zeros in place"""
    root = with_grads(nn)
    before = grads(root)
    kept = root.body.weight.grad
    root.zero_grad(set_to_none=False)
    zeroed = {GRADS_AFTER_ZEROING: grads(root),
              "the same .grad tensor, zeroed in place": root.body.weight.grad is kept}
    root.zero_grad()
    return {GRADS_BEFORE: before, **zeroed, f"{GRADS_AFTER} zero_grad()": grads(root),
            "zero_grad() returns": root.zero_grad()}


@scenario(points=1, public=True, misconceptions=GRADS)
def zero_grad_cuts_the_gradient_history(nn):
    """zero_grad(set_to_none=False) on a gradient with a history detaches it first"""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.body = Leaf(2, 1)
    (root.body(torch.ones(1, 2)) ** 2).sum().backward(create_graph=True)
    before = [root.body.weight.grad.grad_fn is not None, root.body.weight.grad.requires_grad]
    root.zero_grad(set_to_none=False)
    grad = root.body.weight.grad
    return {"the grad has a history before": before, GRADS_AFTER_ZEROING: grads(root),
            GRAD_ZEROED: grad is not None and bool((grad == 0).all()),
            HISTORY_CUT: grad is not None and grad.grad_fn is None}


@scenario(points=2, specs=TREES, shown=tree_code, examples=30, misconceptions=GRADS)
def random_trees_zero_grad(nn, spec):
    """on random trees, zero_grad reaches every parameter, tied and shared ones included"""
    root = build_tree(nn, spec)
    for p in root.parameters():
        p.grad = torch.ones_like(p)
    root.zero_grad(set_to_none=False)
    zeroed = grads(root)
    root.zero_grad()
    return {GRADS_AFTER_ZEROING: zeroed, f"{GRADS_AFTER} zero_grad()": grads(root)}


@scenario(points=2, public=True, misconceptions=[requires_grad_not_recursive])
def requires_grad_freezes_and_unfreezes(nn):
    """requires_grad_(False) freezes every parameter of the tree, returns self; buffers untouched"""
    root = with_grads(nn)
    root.register_buffer("steps", torch.zeros(1))
    observed = {"root.requires_grad_(False) is root": root.requires_grad_(False) is root,
                f"{REQUIRES_GRAD_AFTER} root.requires_grad_(False)": frozen(root)}
    root.body.requires_grad_()
    return {**observed, f"{REQUIRES_GRAD_AFTER} root.body.requires_grad_()": frozen(root),
            "root.steps.requires_grad": root.steps.requires_grad}


@scenario(points=2, specs=TREES, shown=tree_code, examples=30, misconceptions=[requires_grad_not_recursive])
def random_trees_requires_grad(nn, spec):
    """on random trees, requires_grad_ reaches every parameter, tied and shared ones included"""
    root = build_tree(nn, spec)
    observed = {"root.requires_grad_(False) is root": root.requires_grad_(False) is root,
                f"{REQUIRES_GRAD_AFTER} root.requires_grad_(False)": frozen(root)}
    root.requires_grad_(True)
    return {**observed, f"{REQUIRES_GRAD_AFTER} root.requires_grad_(True)": frozen(root)}


# Hook options: keyword arguments, always-called hooks, what a handle clears, backward hooks.

@scenario(points=2, public=True, misconceptions=[with_kwargs_ignored])
def kwargs_hooks(nn):
    """with_kwargs=True hooks get the keyword arguments; a pre-hook returns new (args, kwargs) or raises RuntimeError"""
    m = doubler(nn)
    x = torch.ones(2)
    seen = []
    m.register_forward_pre_hook(lambda mod, args, kwargs: seen.append(["pre", len(args), sorted(kwargs)]),
                                with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: seen.append(["post", sorted(kwargs), out]), with_kwargs=True)
    observed = {"m(x, offset=1)": attempt(m, x, offset=1)}
    m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] * 10,), {"offset": 5}), with_kwargs=True)
    observed["m(x) after a pre-hook returning (args, {'offset': 5})"] = attempt(m, x)
    m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["offset"], with_kwargs=True)
    observed["m(x) after a hook returning out + kwargs['offset']"] = attempt(m, x)
    bad = m.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
    observed["m(x) with a pre-hook returning args alone"] = attempt(m, x)
    bad.remove()
    return {KWARGS_HOOKS_SAW: seen, **observed}


@scenario(points=2, public=True, misconceptions=[always_call_ignored])
def always_call_after_failure(nn):
    """always_call=True hooks run even when forward raises, the original exception propagates, their own errors warn"""
    return always_called_hooks(nn)


@scenario(points=1, misconceptions=[with_kwargs_ignored])
def handle_clears_marks(nn):
    """handle.remove() takes the id out of the marking tables too; a hook removing itself mid-call"""
    m = doubler(nn)
    log = []
    kwargs_pre = m.register_forward_pre_hook(lambda mod, args, kwargs: None, with_kwargs=True)
    marked = m.register_forward_hook(lambda mod, args, kwargs, out: None, with_kwargs=True, always_call=True)
    marks = {"in the tables after registering": hook_marks(m, kwargs_pre, marked)}
    kwargs_pre.remove()
    marked.remove()
    marks["in the tables after remove()"] = hook_marks(m, kwargs_pre, marked)
    handles = {}
    handles["once"] = m.register_forward_hook(lambda mod, args, out: log.append("post m once") or handles["once"].remove())
    m.register_forward_hook(lambda mod, args, out: log.append("post m always"))
    m(torch.ones(1))
    m(torch.ones(1))
    return {**marks, HOOK_LOG: log, FORWARD_HOOKS_SIZE: len(m._forward_hooks),
            FORWARD_PRE_HOOKS_SIZE: len(m._forward_pre_hooks)}


@scenario(points=2, public=True, misconceptions=[backward_hooks_not_attached])
def backward_hooks_fire(nn):
    """full backward hooks and pre-hooks run during backward(), in order (prepend first), with torch's gradients"""
    return backward_hooks_run(nn)
