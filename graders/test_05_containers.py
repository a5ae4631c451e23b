"""Exercise 05: containers. Scenarios look at what a container leaves in its
register (``_modules``: names, order, which module is where) and at what its
list and dict operations return, with small tagged leaves defined here
(``nn.Linear`` comes in exercise 08)."""
import functools
import re
from collections import OrderedDict

import torch
from hypothesis import strategies as st

from modlab.grading import hints, outcome, scenario
from modlab.grading.trees import build_tree, first_occurrences, module_trees

# Misconceptions met only in this exercise.
RENUMBERING = (
    "after a deletion, Sequential and ModuleList renumber their children '0', '1', ... so names match "
    "positions again: without the renumbering, the next append reuses a name and overwrites a layer"
)
SLICE_NAMES = (
    "a slice of a Sequential keeps its children's names (model[1:] holds '1', '2'), while a slice of a "
    "ModuleList is a new list numbered from '0'; both are new containers of the same class"
)


@functools.lru_cache(maxsize=None)
def tagged(nn):
    """A small leaf Module class of the world ``nn``: ``Tagged(t)(x) == 2 * x + t``.

    The tag is a plain attribute, so observations can say which leaf sits where.
    """

    class Tagged(nn.Module):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def forward(self, x):
            return 2 * x + self.tag

    return Tagged


def leaves(nn, *tags):
    return [tagged(nn)(tag) for tag in tags]


def label(module):
    """A leaf's tag, or a container's contents; None for an empty slot."""
    if module is None:
        return None
    if hasattr(module, "tag"):
        return module.tag
    return contents(module)


def contents(container):
    """A container as plain data: its class, then ``[name, label]`` per registered child."""
    return [type(container).__name__, [[name, label(child)] for name, child in container._modules.items()]]


def same(items, expected):
    """Which items are (by identity) the expected objects, pairwise."""
    items, expected = list(items), list(expected)
    return [len(items) == len(expected)] + [a is b for a, b in zip(items, expected)]


def dotted_parameters(module, prefix=""):
    """Parameter names read from the registers alone (the walk is exercise 03)."""
    names = [prefix + name for name in module._parameters]
    for name, child in module._modules.items():
        if child is not None:
            names += dotted_parameters(child, f"{prefix}{name}.")
    return names


# Sequential

@scenario(points=2, public=True, hint=hints.PLAIN_LIST)
def sequential_registers_children_in_order(nn):
    """Sequential(a, b, c) registers its children as '0', '1', '2', in order"""
    children = leaves(nn, 10, 11, 12)
    model = nn.Sequential(*children)
    return [contents(model), contents(nn.Sequential()), len(model),
            same(model, children), same(model._modules.values(), children)]


@scenario(points=2, public=True)
def sequential_from_an_ordered_dict(nn):
    """Sequential(OrderedDict(...)) keeps the names; bad children and names raise like torch"""
    a, b = leaves(nn, 1, 2)
    named = nn.Sequential(OrderedDict([("encode", a), ("decode", b)]))
    return [contents(named), named.encode is a, named.decode is b,
            outcome(lambda: contents(nn.Sequential({"encode": a}))),       # only an OrderedDict names children
            outcome(lambda: contents(nn.Sequential(OrderedDict([("a.b", a)])))),
            outcome(lambda: contents(nn.Sequential(a, 3)))]


@scenario(points=2, public=True)
def sequential_indexing(nn):
    """model[i] takes negative indices and raises IndexError / TypeError like a list"""
    children = leaves(nn, 0, 1, 2)
    model = nn.Sequential(*children)
    named = nn.Sequential(OrderedDict([("x", children[0]), ("y", children[1])]))
    return [[model[i] is children[i] for i in range(-3, 3)], named[-1] is children[1], named[0] is children[0],
            [outcome(lambda: label(model[i])) for i in (3, -4, 100)],
            outcome(lambda: label(model["0"])), outcome(lambda: label(model[1.0]))]


@scenario(points=2, hint=SLICE_NAMES)
def sequential_slices_keep_names(nn):
    """a slice of a Sequential is a new Sequential (same class) keeping the children's names"""
    class Stack(nn.Sequential):
        pass

    children = leaves(nn, 0, 1, 2, 3)
    model = nn.Sequential(*children)
    stack = Stack(*children)
    named = nn.Sequential(OrderedDict([("a", children[0]), ("b", children[1]), ("c", children[2])]))
    sliced = model[1:3]
    return [contents(sliced), sliced is model, same(sliced, children[1:3]), contents(model[::-1]),
            contents(model[5:]), contents(model[-2:]), contents(stack[::2]), contents(named[1:]),
            contents(model)]


@scenario(points=3, hint=RENUMBERING)
def sequential_setitem_and_delitem(nn):
    """model[i] = m replaces in place; del model[i] (or a slice) renumbers the rest"""
    model = nn.Sequential(*leaves(nn, 0, 1, 2, 3, 4))
    model[1] = tagged(nn)(11)
    model[-1] = tagged(nn)(14)
    steps = [contents(model)]
    del model[0]
    steps.append(contents(model))
    del model[::2]
    steps.append(contents(model))
    model.append(tagged(nn)(20))
    steps.append(contents(model))
    named = nn.Sequential(OrderedDict([("a", tagged(nn)(0)), ("b", tagged(nn)(1)), ("c", tagged(nn)(2))]))
    named[0] = tagged(nn)(5)
    del named[1]                                     # names give way to positions
    steps.append(contents(named))
    steps += [outcome(model.__setitem__, 0, 3), outcome(model.__setitem__, 9, tagged(nn)(9)),
              outcome(model.__delitem__, -9), contents(model)]
    return steps


@scenario(points=3, hint=RENUMBERING)
def sequential_append_insert_extend_pop(nn):
    """append, insert, extend and pop keep the names numbered and return what torch returns"""
    model = nn.Sequential(*leaves(nn, 0, 1))
    steps = [model.append(tagged(nn)(2)) is model, model.extend(leaves(nn, 3, 4)) is model,
             model.insert(0, tagged(nn)(5)) is model, contents(model)]
    model.insert(-1, tagged(nn)(6))
    model.insert(len(model), tagged(nn)(7))
    steps.append(contents(model))
    popped = model.pop(slice(1, 3))                  # slices are the scenario above's business: not their names
    steps += [label(model.pop(-1)), label(model.pop(0)), type(popped).__name__, [label(m) for m in popped],
              contents(model)]
    steps += [outcome(model.insert, 99, tagged(nn)(8)), outcome(model.insert, -99, tagged(nn)(8)),
              outcome(model.pop, 99), outcome(model.append, "relu"), outcome(lambda: model.extend(5)),
              contents(model)]
    return steps


@scenario(points=2)
def sequential_plus(nn):
    """a + b is a new Sequential sharing both's children; a += b extends a; anything else raises ValueError"""
    class Stack(nn.Sequential):
        pass

    first, second = leaves(nn, 0, 1), leaves(nn, 2, 3)
    a, b = Stack(*first), nn.Sequential(*second)
    total = a + b
    before = a
    a += b
    return [contents(total), total is a, same(total, first + second), a is before, contents(a),
            contents(b), outcome(lambda: contents(b + nn.ModuleList(first))),
            outcome(lambda: contents(b + first)), outcome(b.__iadd__, first), contents(b)]


@scenario(points=3, public=True, hint=hints.FORWARD_DIRECT)
def sequential_forward_chains_children(nn):
    """calling a Sequential feeds the input through each child in order"""
    x = torch.arange(3.0)
    Tagged = tagged(nn)
    model = nn.Sequential(Tagged(1), nn.Sequential(Tagged(2), Tagged(3)), Tagged(4))
    named = nn.Sequential(OrderedDict([("first", Tagged(-1)), ("second", Tagged(5))]))
    empty = nn.Sequential()
    return [model(x), named(x), empty(x) is x, model[1:](x)]


@scenario(points=3, public=True, hint=hints.FORWARD_DIRECT)
def sequential_calls_children_so_hooks_run(nn):
    """Sequential calls child(x), so the children's hooks run (and can change the output)"""
    calls = []
    Tagged = tagged(nn)
    model = nn.Sequential(Tagged(1), Tagged(2), nn.Sequential(Tagged(3)))
    for name, child in model._modules.items():
        child.register_forward_pre_hook(lambda module, args, name=name: calls.append(f"pre {name}"))
        child.register_forward_hook(lambda module, args, output, name=name: calls.append(f"post {name}"))
    model[1].register_forward_hook(lambda module, args, output: output * 10)   # replaces the output
    model.register_forward_hook(lambda module, args, output: calls.append("post model"))
    return [model(torch.ones(2)), calls]


@scenario(points=2, hint=hints.PLAIN_LIST)
def containers_register_their_layers_parameters(nn):
    """layers kept in containers are registered: their parameters are reachable from the model"""
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(1))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(Scaled(), Scaled())
            self.blocks = nn.ModuleList([Scaled() for _ in range(2)])
            self.heads = nn.ModuleDict({"left": Scaled(), "right": nn.Sequential(Scaled())})

    return dotted_parameters(Net())


# ModuleList

@scenario(points=3, public=True, hint=hints.PLAIN_LIST)
def module_list_from_iterables(nn):
    """ModuleList(iterable) registers each module as '0', '1', ...; bad input raises like torch"""
    children = leaves(nn, 0, 1, 2)
    built = [nn.ModuleList(children), nn.ModuleList(tuple(children)), nn.ModuleList(m for m in children),
             nn.ModuleList(nn.ModuleList(children)), nn.ModuleList(), nn.ModuleList(None)]
    return [[contents(m) for m in built], [same(m, children) for m in built[:4]], len(built[0]),
            outcome(lambda: contents(nn.ModuleList(3))), outcome(lambda: contents(nn.ModuleList([children[0], 3])))]


@scenario(points=2, hint=SLICE_NAMES)
def module_list_indexing_and_slices(nn):
    """layers[i] takes negative indices; a slice is a new list of the same class, numbered from '0'"""
    class Blocks(nn.ModuleList):
        pass

    children = leaves(nn, 0, 1, 2, 3)
    layers = Blocks(children)
    sliced = layers[1:3]
    return [[layers[i] is children[i] for i in range(-4, 4)], contents(sliced), sliced is layers,
            same(sliced, children[1:3]), contents(layers[::-2]), contents(layers[9:]),
            [outcome(lambda: label(layers[i])) for i in (4, -5)], outcome(lambda: label(layers["1"]))]


@scenario(points=3, hint=RENUMBERING)
def module_list_mutation(nn):
    """append, extend, insert, item assignment, del and pop keep the list numbered like torch"""
    layers = nn.ModuleList(leaves(nn, 0, 1, 2))
    steps = [layers.append(tagged(nn)(3)) is layers, layers.extend(leaves(nn, 4, 5)) is layers]
    layers.insert(0, tagged(nn)(6))
    layers.insert(len(layers), tagged(nn)(7))
    layers.insert(2, tagged(nn)(8))
    steps.append(contents(layers))
    layers[-1] = tagged(nn)(9)
    del layers[1]
    steps.append(contents(layers))
    del layers[1::3]
    steps.append(contents(layers))
    steps += [label(layers.pop(0)), contents(layers.pop(slice(0, 2))), contents(layers)]
    layers.append(tagged(nn)(10))
    steps += [contents(layers), outcome(layers.__setitem__, 9, tagged(nn)(0)),
              outcome(layers.__setitem__, 0, "relu"), outcome(layers.__delitem__, 9),
              outcome(layers.append, 3), outcome(layers.extend, 3), contents(layers)]
    return steps


@scenario(points=2)
def module_list_plus(nn):
    """layers + iterable is a new ModuleList sharing the children; += extends in place"""
    first, second = leaves(nn, 0, 1), leaves(nn, 2, 3)
    layers = nn.ModuleList(first)
    total = layers + second
    mixed = layers + nn.Sequential(*second)
    before = layers
    layers += (m for m in second)
    return [contents(total), total is layers, same(total, first + second), contents(mixed), layers is before,
            contents(layers), outcome(lambda: contents(layers + 3)), outcome(layers.__iadd__, [3])]


@scenario(points=1)
def lists_and_dicts_have_no_forward(nn):
    """ModuleList and ModuleDict hold layers but have no forward: calling one raises like torch"""
    layers = nn.ModuleList(leaves(nn, 1))
    heads = nn.ModuleDict({"a": tagged(nn)(1)})
    return [contents(layers), contents(heads), outcome(layers, torch.ones(1)), outcome(heads, torch.ones(1)),
            tagged(nn)(1) in layers, layers[0] in layers]


# ModuleDict

@scenario(points=3, public=True, hint=hints.PLAIN_DICT)
def module_dict_construction(nn):
    """ModuleDict registers each value under its key, from a mapping or from (key, module) pairs"""
    a, b, c = leaves(nn, 0, 1, 2)
    built = [nn.ModuleDict({"b": b, "a": a}), nn.ModuleDict(OrderedDict([("c", c), ("a", a)])),
             nn.ModuleDict([("a", a), ["b", b]]), nn.ModuleDict((key, m) for key, m in (("x", a), ("y", c))),
             nn.ModuleDict(nn.ModuleDict({"z": c, "a": a})), nn.ModuleDict(), nn.ModuleDict(None)]
    return [[contents(d) for d in built], built[0]["a"] is a, built[0]._modules["b"] is b, len(built[2])]


@scenario(points=3, public=True, hint=hints.PLAIN_DICT)
def module_dict_methods(nn):
    """ModuleDict behaves as an ordered dict: keys, values, items, in, len, pop, del, clear, update"""
    a, b, c, d = leaves(nn, 0, 1, 2, 3)
    heads = nn.ModuleDict({"a": a, "b": b})
    heads["c"] = c
    heads["a"] = d                                   # overwriting keeps the key's place
    views = [list(heads), list(heads.keys()), same(heads.values(), [d, b, c]),
             [[k, m.tag] for k, m in heads.items()], len(heads), "b" in heads, "z" in heads, heads["b"] is b]
    popped = heads.pop("b")
    del heads["c"]
    after_removal = [popped is b, contents(heads)]
    heads.update([("e", a), ("a", b)])
    heads.update(nn.ModuleDict({"f": c}))
    updated = contents(heads)
    heads.clear()
    return [views, after_removal, updated, contents(heads), len(heads)]


@scenario(points=2)
def module_dict_bad_input(nn):
    """ModuleDict rejects bad keys, values and pairs with torch's exception types"""
    leaf = tagged(nn)(0)
    heads = nn.ModuleDict({"a": leaf})
    built = [outcome(lambda: contents(nn.ModuleDict(spec))) for spec in
             (3, [leaf], [("a",)], [("a", leaf, leaf)], {"x": 3}, {"a.b": leaf}, {"": leaf}, {"training": leaf})]
    used = [outcome(heads.__setitem__, 3, leaf), outcome(heads.__setitem__, "b", "relu"),
            outcome(heads.__getitem__, "missing"), outcome(heads.__delitem__, "missing"),
            outcome(heads.pop, "missing"), outcome(heads.update, 5), outcome(heads.update, [("c", leaf), 7])]
    return [built, used, contents(heads)]


# Random sequences of list operations, applied to a Sequential or a ModuleList
# in both worlds. Hypothesis draws them derandomized, so every submission meets
# the same sequences. Insert positions into a ModuleList stay in 0..len: torch's
# ModuleList.insert does not check its index, and no one should copy that.
INDEX = st.integers(-3, 3)
BOUND = st.one_of(st.none(), st.integers(-3, 3))
STEP = st.sampled_from([None, 1, 2, -1, -2])
ARGUMENTS = {
    "append": st.tuples(), "append_bad": st.tuples(),
    "extend": st.tuples(st.integers(0, 2)), "add": st.tuples(st.integers(0, 2)), "iadd": st.tuples(st.integers(0, 2)),
    "insert": st.tuples(INDEX), "set": st.tuples(INDEX), "del": st.tuples(INDEX), "pop": st.tuples(INDEX),
    "get": st.tuples(INDEX), "del_slice": st.tuples(BOUND, BOUND, STEP), "get_slice": st.tuples(BOUND, BOUND, STEP),
}
OPERATION = st.sampled_from(list(ARGUMENTS)).flatmap(lambda name: ARGUMENTS[name].map(lambda args: [name, *args]))
SEQUENCES = st.tuples(st.sampled_from(["Sequential", "ModuleList"]), st.integers(0, 4),
                      st.lists(OPERATION, min_size=1, max_size=8)).map(list)


class Workbench:
    """One container and the operations of a spec, applied with world ``nn``."""

    def __init__(self, nn, kind, size):
        self.nn, self.kind, self.made = nn, kind, 0
        first = self.fresh(size)
        self.container = nn.ModuleList(first) if kind == "ModuleList" else nn.Sequential(*first)

    def fresh(self, count):
        """New leaves, tagged 0, 1, 2, ... in the order they are made."""
        self.made += count
        return leaves(self.nn, *range(self.made - count, self.made))

    def batch(self, count):
        """``count`` new leaves in the container kind's own ``+`` operand: a Sequential, or a list."""
        made = self.fresh(count)
        return self.nn.Sequential(*made) if self.kind == "Sequential" else made

    def apply(self, name, *args):
        c = self.container
        if name == "append":
            return c.append(self.fresh(1)[0]) is c
        if name == "append_bad":
            return c.append(0)
        if name == "extend":
            return c.extend(self.fresh(args[0])) is c
        if name == "add":
            self.container = c + self.batch(args[0])
            return self.container is c
        if name == "iadd":
            self.container += self.batch(args[0])
            return self.container is c
        if name == "insert":
            index = args[0] if self.kind == "Sequential" else args[0] % (len(c) + 1)
            c.insert(index, self.fresh(1)[0])
            return None
        if name == "set":
            c[args[0]] = self.fresh(1)[0]
            return None
        if name == "del":
            del c[args[0]]
            return None
        if name == "del_slice":
            del c[slice(*args)]
            return None
        if name == "pop":
            return label(c.pop(args[0]))
        if name == "get":
            return label(c[args[0]])
        return contents(c[slice(*args)])


def operations_hint(difference):
    """The likely misconception, from where a step's observation differs: the
    names (renumbering, or children never registered) or a returned slice's names."""
    path = difference.path if difference else ""
    if re.fullmatch(r"\[\d+\]\[1\](\[\d+\])?", path):
        counts_differ = isinstance(difference.expected, list) and len(difference.expected) != len(difference.actual)
        return hints.PLAIN_LIST if counts_differ else RENUMBERING
    if re.fullmatch(r"\[\d+\]\[0\]\[1\]\[\d+\]\[0\]", path):
        return SLICE_NAMES
    return None


@scenario(points=4, specs=SEQUENCES, examples=60, hint=operations_hint)
def random_list_operations(nn, spec):
    """any sequence of list operations leaves the container as torch leaves it"""
    kind, size, operations = spec
    bench = Workbench(nn, kind, size)
    history = []
    for operation in operations:
        result = outcome(bench.apply, *operation)
        history.append([result, [name for name in bench.container._modules],
                        [label(child) for child in bench.container._modules.values()], len(bench.container)])
    return history


# Random trees (depth <= 4) of plain modules, leaves and all three containers,
# with shared modules, built identically in both worlds; only trees that hold
# at least one container.

def holds_a_container(members):
    return any(member[0] in ("seq", "list", "dict") or member[0] == "module" and holds_a_container(member[1])
               for _, member in members)


TREES = module_trees(containers=True, max_depth=3, budget=10).filter(holds_a_container)


def registered_tree(module):
    """``[class, [[name, subtree], ...]]`` from the registers alone."""
    return [type(module).__name__,
            [[name, None if child is None else registered_tree(child)] for name, child in module._modules.items()]]


def every_module(module):
    """Every module reached through the registers, depth first, repeats kept."""
    found = [module]
    for child in module._modules.values():
        if child is not None:
            found += every_module(child)
    return found


def container_views(nn, container):
    """What indexing, iteration and slicing give, compared with the register."""
    registered = list(container._modules.values())
    if isinstance(container, nn.ModuleDict):
        return [len(container), list(container), list(container.keys()), same(container.values(), registered),
                [container[key] is child for key, child in container._modules.items()],
                [key in container for key in ("a", "b", "c", "z")]]
    size = len(container)
    return [size, same(container, registered), [container[i] is registered[i] for i in range(-size, size)],
            contents(container[::-1]), contents(container[1:]), outcome(lambda: label(container[size]))]


def unregistered_hint(difference):
    """Registers that differ point to children kept outside them; a raised
    exception (no difference) says nothing of the kind."""
    return hints.PLAIN_LIST if difference else None


def views_hint(difference):
    """The reversed slice and the ``[1:]`` slice are the 4th and 5th views of a list."""
    path = difference.path if difference else ""
    return SLICE_NAMES if re.match(r"\[\d+\]\[1\]\[[34]\]\[1\]", path) else None


@scenario(points=3, specs=TREES, examples=40, hint=unregistered_hint)
def random_trees_register_containers(nn, spec):
    """containers in any module tree register their children as torch's do"""
    root = build_tree(nn, spec)
    return [registered_tree(root), first_occurrences(every_module(root))]


@scenario(points=3, specs=TREES, examples=40, hint=views_hint)
def random_trees_container_views(nn, spec):
    """indexing, iteration and slices of every container in a tree agree with its register"""
    root = build_tree(nn, spec)
    containers = [m for m in every_module(root) if isinstance(m, (nn.Sequential, nn.ModuleList, nn.ModuleDict))]
    return [[type(c).__name__, container_views(nn, c)] for c in containers]
