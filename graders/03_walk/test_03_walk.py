"""Exercise 03: the walk. Hand-picked trees pin down names, order and the
de-duplication of tied weights and shared modules; random trees (Hypothesis)
check the same on shapes no one thought of. Trees are built with registration
(02) only: a small Linear-like leaf stands in for nn.Linear (exercise 08).

Observations are keyed by the call that produced them
(``root.named_parameters(prefix='model')``), and a walk is shown as its
``[name, value]`` pairs, compared name by name."""
import torch

from modlab.grading import attempt, scenario

from ..shared.probes import NON_PERSISTENT_NAMES, first_occurrences, named_shapes, named_tensors, named_types
from ..shared.trees import build_tree, leaf_class, lookup, module_trees, tree_code
from .misconceptions import (children_first, children_not_distinct, dotted_names, lookup_kind_unchecked,
                             lookup_raises_key_error, memo_ignored, non_persistent_not_walked, none_slot_yielded,
                             prefix_ignored, recurse_ignored, remove_duplicate_ignored, shared_module_twice, tied_twice,
                             walk_order, walk_yields_copies)
from .views import (ALIASES, BODY_IN_MEMO, IS_REGISTERED_OBJECT, MEMO_FILLED, MEMO_SIZE, NAMED_MODULES, ROOT_IN_MEMO,
                    SAME_MODULE, SAME_OBJECT, batch_norm_like, deduplicated, encoder_decoder, lookups, ripeness_net,
                    shared_layer, three_levels, tied_autoencoder)

# What any walk of names can show.
NAMES = [walk_order, children_first, dotted_names, prefix_ignored, none_slot_yielded]


@scenario(points=3, public=True, misconceptions=NAMES)
def ripeness_net_counts_what_is_registered(nn):
    """RipenessNet: 50 parameters with the extra layer in a plain list, 122 once it is registered"""
    observed = {}
    for label, registered in (("extra layer in a plain list", False), ("extra layer registered", True)):
        model = ripeness_net(nn, registered)
        observed[label] = {"model.named_parameters()": named_shapes(model.named_parameters()),
                           "parameters counted": sum(p.numel() for p in model.parameters())}
    return observed


@scenario(points=2, public=True, misconceptions=NAMES)
def own_members_come_before_children(nn):
    """a module's own parameters and buffers come first, then each child's, in assignment order"""
    root = encoder_decoder(nn)
    return {"root.named_parameters()": named_tensors(root.named_parameters()),
            "root.named_buffers()": named_tensors(root.named_buffers())}


@scenario(points=2, public=True, misconceptions=NAMES)
def nested_names_are_dotted(nn):
    """names join the path with dots: body.block.head.weight, and prefix='model' goes in front"""
    root = three_levels(nn)
    return {"root.named_parameters()": named_shapes(root.named_parameters()),
            "root.named_buffers()": named_shapes(root.named_buffers()),
            NAMED_MODULES: named_types(root.named_modules()),
            "root.named_parameters(prefix='model')": named_shapes(root.named_parameters(prefix="model")),
            "root.named_buffers(prefix='model')": named_shapes(root.named_buffers(prefix="model")),
            "root.named_modules(prefix='model')": named_types(root.named_modules(prefix="model")),
            "root.body.named_parameters(prefix='body')": named_shapes(root.body.named_parameters(prefix="body"))}


@scenario(points=2, public=True, misconceptions=[*NAMES, tied_twice, remove_duplicate_ignored])
def tied_weights_are_yielded_once(nn):
    """a Parameter registered in two modules is yielded once, under its first name"""
    root = tied_autoencoder(nn)
    return {**deduplicated(root, "named_parameters"), "len(list(root.parameters()))": len(list(root.parameters())),
            "parameters counted": sum(p.numel() for p in root.parameters())}
@scenario(points=2, public=True, misconceptions=[*NAMES, shared_module_twice, children_not_distinct])
def shared_modules_are_yielded_once(nn):
    """a module registered under several names is walked once, under its first name"""
    root = shared_layer(nn)
    memo = set()
    list(root.named_modules(memo=memo))
    return {**deduplicated(root, "named_modules"), MEMO_FILLED: len(memo),
            "root.named_children()": named_types(root.named_children()),
            "root.named_parameters()": named_shapes(root.named_parameters()),
            "len(list(root.modules()))": len(list(root.modules())),
            "len(list(root.children()))": len(list(root.children()))}


@scenario(points=2, misconceptions=[*NAMES, remove_duplicate_ignored])
def remove_duplicate_false_yields_every_name(nn):
    """remove_duplicate=False yields a tied or shared member under each of its names"""
    observed = {}
    for label, root in (("tied", tied_autoencoder(nn)), ("shared", shared_layer(nn))):
        parameters = list(root.named_parameters(remove_duplicate=False))
        modules = list(root.named_modules(remove_duplicate=False))
        observed[label] = {
            "root.named_parameters(remove_duplicate=False)": named_shapes(parameters),
            SAME_OBJECT: first_occurrences([p for _, p in parameters]),
            "root.named_modules(remove_duplicate=False)": named_types(modules),
            SAME_MODULE: first_occurrences([m for _, m in modules])}
    return observed


@scenario(points=2, public=True, misconceptions=[*NAMES, recurse_ignored])
def recurse_false_stays_at_the_top(nn):
    """recurse=False yields only the module's own parameters and buffers"""
    root = encoder_decoder(nn)
    return {"root.named_parameters(recurse=False)": named_shapes(root.named_parameters(recurse=False)),
            "len(list(root.parameters(recurse=False)))": len(list(root.parameters(recurse=False))),
            "root.named_buffers(prefix='top', recurse=False)": named_shapes(root.named_buffers(prefix="top", recurse=False)),
            "len(list(root.buffers(recurse=False)))": len(list(root.buffers(recurse=False))),
            "root.encoder.named_parameters(prefix='encoder', recurse=False)":
                named_shapes(root.encoder.named_parameters(prefix="encoder", recurse=False))}


@scenario(points=1, public=True, misconceptions=NAMES)
def empty_slots_are_skipped(nn):
    """None slots (a parameter, a buffer, a module) are never yielded"""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.register_parameter("weight", None)
    root.register_buffer("mean", None)
    root.add_module("head", None)
    root.body = Leaf(2, 2, bias=False)
    return {"root.named_parameters()": named_shapes(root.named_parameters()),
            "root.named_buffers()": named_shapes(root.named_buffers()),
            NAMED_MODULES: named_types(root.named_modules()),
            "root.named_children()": named_types(root.named_children()),
            "len(list(root.parameters()))": len(list(root.parameters())),
            "len(list(root.children()))": len(list(root.children()))}


@scenario(points=2, public=True, misconceptions=[*NAMES, walk_yields_copies])
def yields_the_registered_objects(nn):
    """the walk yields the registered Parameters and buffers themselves, not copies"""
    root = three_levels(nn)
    walked = [*root.named_parameters(), *root.named_buffers(), *root.named_modules()]
    return {IS_REGISTERED_OBJECT: [[name, value is lookup(root, name) if name else value is root]
                                         for name, value in walked]}


@scenario(points=1, misconceptions=[*NAMES, children_not_distinct])
def children_are_direct_and_distinct(nn):
    """named_children yields direct children once each, never grandchildren"""
    root = three_levels(nn)
    root.alias = root.body          # the same child twice
    return {"root.named_children()": named_types(root.named_children()),
            "children are root.body": [child is root.body for child in root.children()],
            "root.body.block.head.named_children()": named_types(root.body.block.head.named_children())}


@scenario(points=1, public=True, misconceptions=[*NAMES, memo_ignored])
def named_modules_shares_its_memo(nn):
    """named_modules(memo) skips modules already in memo, with their subtrees, and fills memo"""
    root = three_levels(nn)
    memo = {root.body.block}
    names = named_types(root.named_modules(memo=memo, prefix="net"))
    return {"root.named_modules(memo={root.body.block}, prefix='net')": names, MEMO_SIZE: len(memo),
            ROOT_IN_MEMO: root in memo, BODY_IN_MEMO: root.body in memo}


@scenario(points=2, public=True, misconceptions=[*NAMES, tied_twice, non_persistent_not_walked])
def buffers_walk_like_parameters(nn):
    """named_buffers walks persistent and non-persistent buffers, a shared one once"""
    root = batch_norm_like(nn)
    return {NON_PERSISTENT_NAMES: ["cache"],
            "root.named_buffers()": named_tensors(root.named_buffers()),
            ALIASES: [name for name, _ in root.named_buffers(remove_duplicate=False)],
            "root.named_buffers(remove_duplicate=False)": named_shapes(root.named_buffers(remove_duplicate=False)),
            "buffer dtypes": [b.dtype for b in root.buffers()],
            "root.child.named_buffers(prefix='child')": named_shapes(root.child.named_buffers(prefix="child"))}


TREES = module_trees()


@scenario(points=4, public=True, specs=TREES, shown=tree_code, examples=40, misconceptions=[*NAMES, tied_twice])
def random_trees_named_parameters(nn, spec):
    """on random trees, named_parameters gives torch's names, order and tensors"""
    root = build_tree(nn, spec)
    every = list(root.named_parameters(remove_duplicate=False))
    return {"root.named_parameters()": named_tensors(root.named_parameters()),
            NAMED_MODULES: named_types(root.named_modules()),
            ALIASES: [name for name, _ in every],
            "root.named_parameters(remove_duplicate=False)": named_shapes(every),
            SAME_OBJECT: first_occurrences([p for _, p in every]),
            "each is the registered object": all(p is lookup(root, name) for name, p in every)}


@scenario(points=3, specs=TREES, shown=tree_code, examples=40, misconceptions=[*NAMES, tied_twice])
def random_trees_named_buffers(nn, spec):
    """on random trees, named_buffers gives torch's names, order and tensors"""
    root = build_tree(nn, spec)
    every = list(root.named_buffers(prefix="net", remove_duplicate=False))
    return {"root.named_buffers()": named_tensors(root.named_buffers()),
            NAMED_MODULES: named_types(root.named_modules()),
            ALIASES: [name for name, _ in root.named_buffers(remove_duplicate=False)],
            "root.named_buffers(prefix='net', remove_duplicate=False)": named_shapes(every),
            SAME_OBJECT: first_occurrences([b for _, b in every])}


@scenario(points=3, specs=TREES, shown=tree_code, examples=40, misconceptions=[*NAMES, children_not_distinct])
def random_trees_named_modules(nn, spec):
    """on random trees, named_modules and named_children give torch's names and order"""
    root = build_tree(nn, spec)
    every = list(root.named_modules(remove_duplicate=False))
    return {NAMED_MODULES: named_types(root.named_modules()),
            ALIASES: [name for name, _ in every],
            "root.named_modules(remove_duplicate=False)": named_types(every),
            SAME_MODULE: first_occurrences([m for _, m in every]),
            "root.named_children()": named_types(root.named_children()),
            "len(list(root.modules()))": len(list(root.modules()))}


@scenario(points=2, specs=TREES, shown=tree_code, examples=30, misconceptions=[*NAMES, recurse_ignored])
def random_trees_recurse_false(nn, spec):
    """on random trees, recurse=False yields each module's own members only"""
    root = build_tree(nn, spec)
    modules = [("top", root)] + [(name, child) for name, child in root._modules.items() if child is not None]
    return {name: {f"{name}.named_parameters(prefix={name!r}, recurse=False)":
                   named_shapes(module.named_parameters(prefix=name, recurse=False)),
                   f"{name}.named_buffers(prefix={name!r}, recurse=False)":
                   named_shapes(module.named_buffers(prefix=name, recurse=False))} for name, module in modules}


# From a dotted name to the object it names: get_submodule and its siblings.
LOOKUPS = [lookup_raises_key_error, lookup_kind_unchecked]


@scenario(points=2, public=True, misconceptions=LOOKUPS)
def dotted_paths(nn):
    """get_submodule, get_parameter and get_buffer follow a dotted path to the very object, else AttributeError"""
    root = three_levels(nn)
    root.alias = root.body.block                # reachable under a second name
    root.body.plain = 3
    root.body.block.head.register_parameter("empty", None)
    root.scale = torch.ones(1)                  # a bare tensor: neither a parameter nor a buffer
    head = root.body.block.head
    return {**lookups(root, "get_submodule", {"": root, "body.block.head": head, "alias.head": head},
                      ["body.nothing", "nothing.block", "body.plain", "w", "body.block.mean"]),
            **lookups(root, "get_parameter", {"w": root.w, "body.block.head.weight": head.weight,
                                              "alias.head.bias": head.bias},
                      ["body.block.mean", "body.block.head.empty", "scale", "body.nothing.weight", "body.block.gone"]),
            **lookups(root, "get_buffer", {"body.block.mean": root.body.block.mean, "alias.mean": root.body.block.mean},
                      ["w", "scale", "body.block", "nothing.mean"])}


@scenario(points=2, misconceptions=LOOKUPS)
def submodule_assignment(nn):
    """set_submodule replaces or adds a registered submodule at a dotted path; strict, '' and non-modules raise"""
    Leaf = leaf_class(nn)
    root = three_levels(nn)
    root.body.plain = 3
    replacement, added = Leaf(1, 1), Leaf(3, 3)
    observed = {"root.set_submodule('body.block.head', m)": attempt(root.set_submodule, "body.block.head", replacement),
                "root.body.block.head is m": root.body.block.head is replacement,
                "root.set_submodule('body.extra', m)": attempt(root.set_submodule, "body.extra", added),
                "root.body._modules": named_types(root.body._modules.items()),
                "root.set_submodule('body.block.head', m, strict=True)":
                    attempt(root.set_submodule, "body.block.head", Leaf(2, 2), strict=True),
                "root.set_submodule('body.other', m, strict=True)":
                    attempt(root.set_submodule, "body.other", Leaf(2, 2), strict=True),
                "root.set_submodule('', m)": attempt(root.set_submodule, "", Leaf(2, 2)),
                "root.set_submodule('body.x', 3)": attempt(root.set_submodule, "body.x", 3),
                "root.set_submodule('body.plain', m)": attempt(root.set_submodule, "body.plain", Leaf(2, 2)),
                "root.set_submodule('nothing.head', m)": attempt(root.set_submodule, "nothing.head", Leaf(2, 2)),
                "root.set_submodule('top', m)": attempt(root.set_submodule, "top", Leaf(2, 2))}
    return {**observed, "root.named_modules() afterwards": named_types(root.named_modules())}
