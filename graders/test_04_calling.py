"""Exercise 04: calling a module, its hooks, and the modes and gradients of
its tree. Hooks record what they see in a log the scenario returns; random
trees (Hypothesis) check that train/eval, zero_grad and requires_grad_ reach
every module and parameter."""
import torch

from modlab.grading import hints, outcome, scenario
from modlab.grading.observe import Raised
from modlab.grading.trees import build_tree, leaf_class, module_trees

TREES = module_trees()


def hooks_hint(difference):
    """Hooks that never ran (the log, first, differs) point to a __call__ that
    skips them; hooks that ran but changed nothing, to ignored return values."""
    if difference is not None and difference.path.startswith("[0]"):
        return hints.FORWARD_DIRECT
    return hints.HOOK_RETURN_IGNORED


def doubler(nn):
    """A module whose forward doubles its input and adds a keyword offset."""

    class Doubler(nn.Module):
        def forward(self, x, offset=0):
            return 2 * x + offset

    return Doubler()


def two_layers(nn, log):
    """A net whose forward calls its two leaves, each with hooks that log."""
    Leaf = leaf_class(nn)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Leaf(2, 3)
            self.second = Leaf(3, 1)

        def forward(self, x):
            return self.second(torch.relu(self.first(x)))

    net = Net()
    for name, module in [("net", net), ("first", net.first), ("second", net.second)]:
        module.register_forward_pre_hook(lambda m, args, name=name: log.append(f"pre {name}"))
        module.register_forward_hook(lambda m, args, out, name=name: log.append(f"post {name} {list(out.shape)}"))
    return net


@scenario(points=1, public=True)
def call_runs_forward(nn):
    """model(x) returns forward(x), keyword arguments included"""
    m = doubler(nn)
    x = torch.arange(3.0)
    return [m(x), m(x, offset=1), m(x, 5), m.forward(x)]


def names_the_module(result, name: str) -> bool:
    """Whether an exception's message names the module class, as torch's does."""
    return isinstance(result, Raised) and f"[{name}]" in result.message


@scenario(points=1, public=True)
def missing_forward_raises(nn):
    """calling a module without forward raises NotImplementedError naming the module's class"""

    class NoForward(nn.Module):
        pass

    called = [outcome(nn.Module(), torch.ones(1)), outcome(NoForward()), outcome(NoForward().forward, 1)]
    return called + [names_the_module(result, name) for result, name in zip(called, ["Module", "NoForward"] * 2)]


@scenario(points=2, public=True, hint=hooks_hint)
def pre_hook_replaces_the_input(nn):
    """a forward pre-hook's return value replaces the input; a single value is wrapped into a tuple"""
    m = doubler(nn)
    x = torch.ones(2)
    seen = []
    m.register_forward_pre_hook(lambda mod, args: seen.append([mod is m, type(args).__name__, len(args)]))
    wrapped = m(x)
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)            # a single value
    single = m(x)
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 10, 3))      # a tuple: all the arguments
    whole = m(x)
    return [len(seen), seen, wrapped, single, whole]


@scenario(points=2, public=True, hint=hooks_hint)
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
    return [len(seen), seen, kept, replaced]


@scenario(points=2, hint=hints.FORWARD_DIRECT)
def hooks_run_in_order_around_forward(nn):
    """pre-hooks run in registration order, then forward, then forward hooks; prepend=True runs first"""
    log = []

    class Logged(nn.Module):
        def forward(self, x):
            log.append("forward")
            return x

    m = Logged()
    for n in (1, 2):
        m.register_forward_pre_hook(lambda mod, args, n=n: log.append(f"pre {n}"))
        m.register_forward_hook(lambda mod, args, out, n=n: log.append(f"post {n}"))
    m.register_forward_pre_hook(lambda mod, args: log.append("pre first"), prepend=True)
    m.register_forward_hook(lambda mod, args, out: log.append("post first"), prepend=True)
    m(torch.ones(1))
    return log


@scenario(points=2, public=True, hint=hints.FORWARD_DIRECT)
def handle_remove_unregisters(nn):
    """handle.remove() unregisters one hook; removing twice is harmless; a handle works in `with`"""
    m = doubler(nn)
    log = []
    pre = m.register_forward_pre_hook(lambda mod, args: log.append("pre"))
    post = m.register_forward_hook(lambda mod, args, out: log.append("post"))
    other = m.register_forward_hook(lambda mod, args, out: log.append("other"))
    m(torch.ones(1))
    pre.remove()
    post.remove()
    post.remove()
    log.append("|")
    m(torch.ones(1))
    with m.register_forward_hook(lambda mod, args, out: log.append("scoped")):
        m(torch.ones(1))
    other.remove()
    m(torch.ones(1))
    return [log, len(m._forward_pre_hooks), len(m._forward_hooks)]


@scenario(points=2, hint=hints.FORWARD_DIRECT)
def hooks_fire_through_nested_modules(nn):
    """hooks on children fire when the parent's forward calls them, in call order"""
    log = []
    net = two_layers(nn, log)
    out = net(torch.ones(4, 2))
    return [log, out]


@scenario(points=2, public=True, hint=hints.FORWARD_DIRECT)
def calling_forward_directly_skips_hooks(nn):
    """model.forward(x) runs no hooks, model(x) runs them all"""
    log = []
    net = two_layers(nn, log)
    direct = net.forward(torch.ones(1, 2))
    after_forward = list(log)
    called = net(torch.ones(1, 2))
    return [after_forward, log, torch.equal(direct, called)]


@scenario(points=1, hint=hints.FORWARD_DIRECT)
def exceptions_propagate(nn):
    """an exception raised in a hook or in forward reaches the caller unchanged"""
    m = doubler(nn)
    failing = m.register_forward_pre_hook(lambda mod, args: {}["missing"])
    first = outcome(m, torch.ones(1))
    failing.remove()
    m.register_forward_hook(lambda mod, args, out: out.no_such_method())
    return [first, outcome(m, torch.ones(1)), outcome(m, "not a tensor")]


def modes(root):
    """The training flag of every module, by name."""
    return [[name, module.training] for name, module in root.named_modules(remove_duplicate=False)]


@scenario(points=2, public=True, hint=hints.MODE_NOT_RECURSIVE)
def train_and_eval_recurse(nn):
    """eval() and train() set the flag on every module of the tree and return self"""
    log = []
    net = two_layers(nn, log)
    start = modes(net)
    returned = [net.eval() is net, modes(net)]
    net.first.train()
    partly = modes(net)
    returned += [net.train() is net, modes(net), net.train(False) is net, modes(net)]
    return [start, returned, partly]


@scenario(points=1, hint=hints.MODE_NOT_RECURSIVE)
def train_validates_mode(nn):
    """train(mode) rejects a mode that is not a bool with ValueError, changing nothing"""
    log = []
    net = two_layers(nn, log)
    net.eval()
    return [outcome(net.train, "yes"), outcome(net.train, 1), outcome(net.train, None), modes(net)]


@scenario(points=3, specs=TREES, examples=30, hint=hints.MODE_NOT_RECURSIVE)
def random_trees_train_and_eval(nn, spec):
    """on random trees, eval() and train() reach every module, shared ones included"""
    root = build_tree(nn, spec)
    observed = [root.eval() is root, modes(root)]
    child = next(root.children(), None)
    if child is not None:  # one subtree back to training, the rest stays in eval
        observed += [child.train() is child, modes(root)]
    return observed + [root.train() is root, modes(root)]


def with_grads(nn):
    """A leaf with gradients from a backward pass, and one parameter without."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.body = Leaf(2, 2)
    root.unused = nn.Parameter(torch.ones(3))
    root.body(torch.ones(1, 2)).sum().backward()
    return root


def grads(root):
    return [[name, p.grad] for name, p in root.named_parameters()]


@scenario(points=2, public=True, hint=hints.ZERO_GRAD_IN_PLACE)
def zero_grad_resets_every_gradient(nn):
    """zero_grad() sets every .grad to None; zero_grad(set_to_none=False) fills zeros in place"""
    root = with_grads(nn)
    before = grads(root)
    kept = root.body.weight.grad
    root.zero_grad(set_to_none=False)
    zeroed = [grads(root), root.body.weight.grad is kept]
    root.zero_grad()
    return [before, zeroed, grads(root), root.zero_grad()]


@scenario(points=1, hint=hints.ZERO_GRAD_IN_PLACE)
def zero_grad_cuts_the_gradient_history(nn):
    """zero_grad(set_to_none=False) on a gradient with a history detaches it first"""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.body = Leaf(2, 1)
    (root.body(torch.ones(1, 2)) ** 2).sum().backward(create_graph=True)
    before = [root.body.weight.grad.grad_fn is not None, root.body.weight.grad.requires_grad]
    root.zero_grad(set_to_none=False)
    return [before, grads(root), root.body.weight.grad.grad_fn is None]


@scenario(points=2, specs=TREES, examples=30, hint=hints.ZERO_GRAD_IN_PLACE)
def random_trees_zero_grad(nn, spec):
    """on random trees, zero_grad reaches every parameter, tied and shared ones included"""
    root = build_tree(nn, spec)
    for p in root.parameters():
        p.grad = torch.ones_like(p)
    root.zero_grad(set_to_none=False)
    zeroed = grads(root)
    root.zero_grad()
    return [zeroed, grads(root)]


@scenario(points=2, public=True)
def requires_grad_freezes_and_unfreezes(nn):
    """requires_grad_(False) freezes every parameter of the tree, returns self; buffers untouched"""
    root = with_grads(nn)
    root.register_buffer("steps", torch.zeros(1))
    frozen = [root.requires_grad_(False) is root, [[n, p.requires_grad] for n, p in root.named_parameters()]]
    root.body.requires_grad_()
    partly = [[n, p.requires_grad] for n, p in root.named_parameters()]
    return [frozen, partly, root.steps.requires_grad]


@scenario(points=2, specs=TREES, examples=30)
def random_trees_requires_grad(nn, spec):
    """on random trees, requires_grad_ reaches every parameter, tied and shared ones included"""
    root = build_tree(nn, spec)
    observed = [root.requires_grad_(False) is root,
                [[n, p.requires_grad] for n, p in root.named_parameters(remove_duplicate=False)]]
    root.requires_grad_(True)
    return observed + [[[n, p.requires_grad] for n, p in root.named_parameters(remove_duplicate=False)]]
