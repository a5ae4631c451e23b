"""Exercise 03: the walk. Hand-picked trees pin down names, order and the
de-duplication of tied weights and shared modules; random trees (Hypothesis)
check the same on shapes no one thought of. Trees are built with registration
(02) only: a small Linear-like leaf stands in for nn.Linear (exercise 08)."""
import torch

from modlab.grading import hints, scenario
from modlab.grading.trees import (build_tree, first_occurrences, leaf_class, lookup, module_trees, named_shapes,
                                  named_tensors, named_types)


def _names(fragment) -> list[str]:
    """The names in an observation fragment: a name, or a list of names or of [name, ...] pairs."""
    if isinstance(fragment, str):
        return [fragment]
    if not isinstance(fragment, list):
        return []
    return [item if isinstance(item, str) else item[0] for item in fragment
            if isinstance(item, str) or isinstance(item, list) and item and isinstance(item[0], str)]


def walk_hint(twice=hints.TIED_TWICE, fewer=hints.ORDER, deeper=None, raised=None):
    """A hint chosen from how the submission's names differ from torch's.

    Args:
        twice: the submission yields torch's names and more (something
            reachable twice was yielded twice).
        fewer: it yields only some of torch's names.
        deeper: its extra names lie deeper than torch's (it walked too far).
        raised: the scenario raised in the submission's world.
    """

    def choose(difference):
        if difference is None:
            return raised
        want, got = _names(difference.expected), _names(difference.actual)
        if any(name.startswith(".") or ".." in name or name.endswith(".") for name in got):
            return hints.DOTTED_NAMES
        if len(want) == len(got) == 1 and want[0].replace(".", "") == got[0].replace(".", ""):
            return hints.DOTTED_NAMES
        if _yields_none(difference.actual):
            return hints.NONE_SLOT_YIELDED
        if set(want) < set(got):
            extra_depth = min(name.count(".") for name in set(got) - set(want))
            if deeper and (not want or extra_depth > max(name.count(".") for name in want)):
                return deeper
            return twice
        if set(got) < set(want):
            return fewer
        if want and got:  # as many names, one differs at some place: the order
            return hints.ORDER
        return None

    return choose


def _yields_none(fragment) -> bool:
    """Whether a list of [name, value] pairs holds a None value."""
    return isinstance(fragment, list) and any(isinstance(item, list) and len(item) == 2 and item[1] is None
                                              for item in fragment)


def ripeness_net(nn, extras_registered: bool):
    """The seed's RipenessNet: scale, encoder, decoder, and an extra layer
    that is either kept in a plain list (invisible) or registered."""
    Leaf = leaf_class(nn)

    class RipenessNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = Leaf(4, 8)
            self.decoder = Leaf(8, 1)
            self.scale = nn.Parameter(torch.ones(1))
            if extras_registered:
                self.extras = nn.Module()
                self.extras.add_module("0", Leaf(8, 8))
            else:
                self.extras = [Leaf(8, 8)]  # a plain list: never registered

    return RipenessNet()


@scenario(points=3, public=True, hint=walk_hint(twice=hints.PLAIN_LIST))
def ripeness_net_counts_what_is_registered(nn):
    """RipenessNet: 50 parameters with the extra layer in a plain list, 122 once it is registered"""
    observed = []
    for registered in (False, True):
        model = ripeness_net(nn, registered)
        observed.append([named_shapes(model.named_parameters()), sum(p.numel() for p in model.parameters())])
    return observed


def encoder_decoder(nn):
    """A root with children assigned before its own parameter and buffer."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.encoder = Leaf(2, 3)
    root.decoder = Leaf(3, 1, bias=False)
    root.scale = nn.Parameter(torch.ones(1))
    root.register_buffer("steps", torch.tensor(0))
    return root


@scenario(points=2, public=True, hint=walk_hint())
def own_members_come_before_children(nn):
    """a module's own parameters and buffers come first, then each child's, in assignment order"""
    root = encoder_decoder(nn)
    return [named_tensors(root.named_parameters()), named_tensors(root.named_buffers())]


def three_levels(nn):
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.w = nn.Parameter(torch.randn(2))
    root.body = nn.Module()
    root.body.block = nn.Module()
    root.body.block.head = Leaf(2, 2)
    root.body.block.register_buffer("mean", torch.zeros(2))
    return root


@scenario(points=2, public=True, hint=walk_hint())
def nested_names_are_dotted(nn):
    """names join the path with dots: body.block.head.weight, and prefix='model' goes in front"""
    root = three_levels(nn)
    return [named_shapes(root.named_parameters()), named_shapes(root.named_buffers()),
            named_types(root.named_modules()), named_shapes(root.named_parameters(prefix="model")),
            named_shapes(root.named_buffers(prefix="model")), named_types(root.named_modules(prefix="model")),
            named_shapes(root.body.named_parameters(prefix="body"))]


def tied_autoencoder(nn):
    """decoder.weight is the encoder's weight, the seeds' weight tying."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.encoder = Leaf(3, 3)
    root.decoder = Leaf(3, 3)
    root.decoder.weight = root.encoder.weight
    return root


@scenario(points=2, public=True, hint=walk_hint())
def tied_weights_are_yielded_once(nn):
    """a Parameter registered in two modules is yielded once, under its first name"""
    root = tied_autoencoder(nn)
    return [named_shapes(root.named_parameters()), len(list(root.parameters())),
            sum(p.numel() for p in root.parameters())]


def shared_layer(nn):
    """One leaf reachable as `first` and `second`, plus a module of its own."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.first = Leaf(2, 2)
    root.middle = nn.Module()
    root.second = root.first
    root.middle.again = root.first
    return root


@scenario(points=2, hint=walk_hint(twice=hints.SHARED_MODULE_TWICE))
def shared_modules_are_yielded_once(nn):
    """a module registered under several names is walked once, under its first name"""
    root = shared_layer(nn)
    return [named_types(root.named_modules()), named_types(root.named_children()),
            named_shapes(root.named_parameters()), len(list(root.modules())), len(list(root.children()))]


@scenario(points=2, hint=walk_hint(fewer=hints.TIED_TWICE))
def remove_duplicate_false_yields_every_name(nn):
    """remove_duplicate=False yields a tied or shared member under each of its names"""
    tied, shared = tied_autoencoder(nn), shared_layer(nn)
    observed = []
    for root in (tied, shared):
        parameters = list(root.named_parameters(remove_duplicate=False))
        modules = list(root.named_modules(remove_duplicate=False))
        observed += [named_shapes(parameters), first_occurrences([p for _, p in parameters]),
                     named_types(modules), first_occurrences([m for _, m in modules])]
    return observed


@scenario(points=2, public=True, hint=walk_hint(deeper=hints.RECURSE_IGNORED))
def recurse_false_stays_at_the_top(nn):
    """recurse=False yields only the module's own parameters and buffers"""
    root = encoder_decoder(nn)
    return [named_shapes(root.named_parameters(recurse=False)), len(list(root.parameters(recurse=False))),
            named_shapes(root.named_buffers(prefix="top", recurse=False)), len(list(root.buffers(recurse=False))),
            named_shapes(root.encoder.named_parameters(prefix="encoder", recurse=False))]


@scenario(points=1, hint=walk_hint(raised=hints.NONE_SLOT_YIELDED))
def empty_slots_are_skipped(nn):
    """None slots (a parameter, a buffer, a module) are never yielded"""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.register_parameter("weight", None)
    root.register_buffer("mean", None)
    root.add_module("head", None)
    root.body = Leaf(2, 2, bias=False)
    return [named_shapes(root.named_parameters()), named_shapes(root.named_buffers()),
            named_types(root.named_modules()), named_types(root.named_children()),
            len(list(root.parameters())), len(list(root.children()))]


@scenario(points=2, hint=walk_hint())
def yields_the_registered_objects(nn):
    """the walk yields the registered Parameters and buffers themselves, not copies"""
    root = three_levels(nn)
    walked = [*root.named_parameters(), *root.named_buffers(), *root.named_modules()]
    return [[name, value is lookup(root, name) if name else value is root] for name, value in walked]


@scenario(points=1)
def children_are_direct_and_distinct(nn):
    """named_children yields direct children once each, never grandchildren"""
    root = three_levels(nn)
    root.alias = root.body          # the same child twice
    return [named_types(root.named_children()), [child is root.body for child in root.children()],
            named_types(root.body.block.head.named_children())]


@scenario(points=1, hint=walk_hint(twice=hints.SHARED_MODULE_TWICE))
def named_modules_shares_its_memo(nn):
    """named_modules(memo) skips modules already in memo, with their subtrees, and fills memo"""
    root = three_levels(nn)
    memo = {root.body.block}
    names = named_types(root.named_modules(memo=memo, prefix="net"))
    return [names, len(memo), root in memo, root.body in memo]


def batch_norm_like(nn):
    """BatchNorm-style buffers: a float running mean, an int64 counter, a
    non-persistent cache, and a buffer tensor registered in two modules."""
    root = nn.Module()
    root.register_buffer("running_mean", torch.randn(3))
    root.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
    root.register_buffer("cache", torch.randn(2), persistent=False)
    root.child = nn.Module()
    root.child.register_buffer("mean", root.running_mean)
    root.child.register_buffer("var", torch.ones(3))
    return root


@scenario(points=2, hint=walk_hint())
def buffers_walk_like_parameters(nn):
    """named_buffers walks persistent and non-persistent buffers, a shared one once"""
    root = batch_norm_like(nn)
    return [named_tensors(root.named_buffers()), named_shapes(root.named_buffers(remove_duplicate=False)),
            [b.dtype for b in root.buffers()], named_shapes(root.child.named_buffers(prefix="child"))]


TREES = module_trees()


@scenario(points=4, public=True, specs=TREES, examples=40, hint=walk_hint())
def random_trees_named_parameters(nn, spec):
    """on random trees, named_parameters gives torch's names, order and tensors"""
    root = build_tree(nn, spec)
    every = list(root.named_parameters(remove_duplicate=False))
    return [named_tensors(root.named_parameters()), named_shapes(every), first_occurrences([p for _, p in every]),
            all(p is lookup(root, name) for name, p in every)]


@scenario(points=3, specs=TREES, examples=40, hint=walk_hint())
def random_trees_named_buffers(nn, spec):
    """on random trees, named_buffers gives torch's names, order and tensors"""
    root = build_tree(nn, spec)
    every = list(root.named_buffers(prefix="net", remove_duplicate=False))
    return [named_tensors(root.named_buffers()), named_shapes(every), first_occurrences([b for _, b in every])]


@scenario(points=3, specs=TREES, examples=40, hint=walk_hint(twice=hints.SHARED_MODULE_TWICE))
def random_trees_named_modules(nn, spec):
    """on random trees, named_modules and named_children give torch's names and order"""
    root = build_tree(nn, spec)
    every = list(root.named_modules(remove_duplicate=False))
    return [named_types(root.named_modules()), named_types(every), first_occurrences([m for _, m in every]),
            named_types(root.named_children()), len(list(root.modules()))]


@scenario(points=2, specs=TREES, examples=30, hint=walk_hint(deeper=hints.RECURSE_IGNORED))
def random_trees_recurse_false(nn, spec):
    """on random trees, recurse=False yields each module's own members only"""
    root = build_tree(nn, spec)
    modules = [("top", root)] + [(name, child) for name, child in root._modules.items() if child is not None]
    return [[named_shapes(module.named_parameters(prefix=name, recurse=False)),
             named_shapes(module.named_buffers(prefix=name, recurse=False))] for name, module in modules]
