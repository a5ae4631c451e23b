"""Exercise 05: containers. Scenarios look at what a container leaves in its
register (``_modules``: names, order, which module is where) and at what its
list and dict operations return, with small tagged leaves (``views.py``:
``nn.Linear`` comes in exercise 08).

They grade what the student writes, the containers' core. The given code
(``container_extras.py``, ``parameter_containers.py``) is reached only through
that core (``extend`` appends, ``pop`` deletes); what it alone does (``+``,
``*``, ``ParameterList``, ``ParameterDict``) is held to torch.nn by PyTorch's
ported tests, not scored here, where it would be points for code nobody wrote."""
from collections import OrderedDict

from hypothesis import strategies as st
import torch

from modlab.grading import attempt, scenario

from ..shared.misconceptions import forward_called_directly, hook_return_ignored
from ..shared.probes import BEFORE_HOOKS, CHILD_HOOK_TIMES_10, HOOK_LOG, first_occurrences
from ..shared.trees import build_tree, module_trees, tree_code
from .misconceptions import (container_accepts_non_modules, container_keeps_a_plain_dict, container_keeps_a_plain_list,
                             negative_index_unsupported, no_renumbering, slice_names)
from .views import (CONTAINER_TYPE, GET_SLICE, LENGTHS, OPERATION, Workbench, container_views, contents,
                    dotted_parameters, every_module, holding, holds_a_container, is_child, label, leaves,
                    registered_tree, same, tagged)

# What any container's register can show.
REGISTERING = [container_keeps_a_plain_list, container_keeps_a_plain_dict, container_accepts_non_modules]


# Sequential

@scenario(points=2, public=True, misconceptions=REGISTERING)
def sequential_registers_children_in_order(nn):
    """Sequential(a, b, c) registers its children as '0', '1', '2', in order"""
    children = leaves(nn, 10, 11, 12)
    model = nn.Sequential(*children)
    return {"Sequential(a, b, c)": contents(model), "Sequential()": contents(nn.Sequential()), "len(model)": len(model),
            "iterating gives a, b, c": same(model, children),
            holding("_modules", "a, b, c"): same(model._modules.values(), children)}


@scenario(points=2, public=True, misconceptions=REGISTERING)
def sequential_from_an_ordered_dict(nn):
    """Sequential(OrderedDict(...)) keeps the names; bad children and names raise like torch"""
    a, b = leaves(nn, 1, 2)
    named = nn.Sequential(OrderedDict([("encode", a), ("decode", b)]))
    return {"Sequential(OrderedDict(encode=a, decode=b))": contents(named),
            "model.encode is a": named.encode is a, "model.decode is b": named.decode is b,
            "Sequential({'encode': a})": attempt(lambda: contents(nn.Sequential({"encode": a}))),
            "Sequential(OrderedDict([('a.b', a)]))": attempt(lambda: contents(nn.Sequential(OrderedDict([("a.b", a)])))),
            "Sequential(a, 3)": attempt(lambda: contents(nn.Sequential(a, 3)))}


@scenario(points=2, public=True, misconceptions=[negative_index_unsupported])
def sequential_indexing(nn):
    """model[i] takes negative indices and raises IndexError / TypeError like a list"""
    children = leaves(nn, 0, 1, 2)
    model = nn.Sequential(*children)
    named = nn.Sequential(OrderedDict([("x", children[0]), ("y", children[1])]))
    return {**{is_child(f"model[{i}]", i % 3): attempt(lambda: model[i] is children[i]) for i in range(-3, 3)},
            "named[-1] is its last child": attempt(lambda: named[-1] is children[1]),
            "named[0] is its first child": attempt(lambda: named[0] is children[0]),
            "model[3], model[-4], model[100]": [attempt(lambda: label(model[i])) for i in (3, -4, 100)],
            "model['0']": attempt(lambda: label(model["0"])), "model[1.0]": attempt(lambda: label(model[1.0])),
            LENGTHS: [attempt(len, model), attempt(len, named)]}

@scenario(points=2, public=True, misconceptions=[slice_names])
def sequential_slices_keep_names(nn):
    """a slice of a Sequential is a new Sequential (same class) keeping the children's names"""
    class Stack(nn.Sequential):
        pass

    children = leaves(nn, 0, 1, 2, 3)
    model = nn.Sequential(*children)
    stack = Stack(*children)
    named = nn.Sequential(OrderedDict([("a", children[0]), ("b", children[1]), ("c", children[2])]))
    sliced = model[1:3]
    return {"model[1:3]": contents(sliced), "model[1:3] is model": sliced is model,
            holding("model[1:3]", "children 1, 2"): same(sliced, children[1:3]), "model[::-1]": contents(model[::-1]),
            "model[5:]": contents(model[5:]), "model[-2:]": contents(model[-2:]), "stack[::2]": contents(stack[::2]),
            "named[1:]": contents(named[1:]), "model afterwards": contents(model)}


@scenario(points=3, misconceptions=[no_renumbering])
def sequential_setitem_and_delitem(nn):
    """model[i] = m replaces in place; del model[i] (or a slice) renumbers the rest"""
    model = nn.Sequential(*leaves(nn, 0, 1, 2, 3, 4))
    model[1] = tagged(nn)(11)
    model[-1] = tagged(nn)(14)
    steps = {"after model[1] = m and model[-1] = m": contents(model)}
    del model[0]
    steps["after del model[0]"] = contents(model)
    del model[::2]
    steps["after del model[::2]"] = contents(model)
    model.append(tagged(nn)(20))
    steps["after model.append(m)"] = contents(model)
    named = nn.Sequential(OrderedDict([("a", tagged(nn)(0)), ("b", tagged(nn)(1)), ("c", tagged(nn)(2))]))
    named[0] = tagged(nn)(5)
    del named[1]                                     # names give way to positions
    steps["named, after named[0] = m and del named[1]"] = contents(named)
    steps.update({"model[0] = 3": attempt(model.__setitem__, 0, 3), "model[9] = m": attempt(model.__setitem__, 9, tagged(nn)(9)),
                  "del model[-9]": attempt(model.__delitem__, -9), "model afterwards": contents(model)})
    return steps


@scenario(points=3, public=True, misconceptions=[no_renumbering])
def sequential_append_insert_extend_pop(nn):
    """append, insert, extend and pop keep the names numbered and return what torch returns"""
    model = nn.Sequential(*leaves(nn, 0, 1))
    steps = {"model.append(m) is model": model.append(tagged(nn)(2)) is model,
             "model.extend([m, m]) is model": model.extend(leaves(nn, 3, 4)) is model,
             "model.insert(0, m) is model": model.insert(0, tagged(nn)(5)) is model,
             "after append, extend and insert(0, m)": contents(model)}
    model.insert(-1, tagged(nn)(6))
    model.insert(len(model), tagged(nn)(7))
    steps["after insert(-1, m) and insert(len(model), m)"] = contents(model)
    popped = model.pop(slice(1, 3))                  # slices are the scenario above's business: not their names
    steps.update({"model.pop(-1)": label(model.pop(-1)), "model.pop(0)": label(model.pop(0)),
                  "type of model.pop(slice(1, 3))": type(popped).__name__,
                  "what model.pop(slice(1, 3)) held": [label(m) for m in popped], "after the pops": contents(model)})
    steps.update({"model.insert(99, m)": attempt(model.insert, 99, tagged(nn)(8)),
                  "model.insert(-99, m)": attempt(model.insert, -99, tagged(nn)(8)),
                  "model.pop(99)": attempt(model.pop, 99), "model.append('relu')": attempt(model.append, "relu"),
                  "model.extend(5)": attempt(lambda: model.extend(5)), "model afterwards": contents(model)})
    return steps


@scenario(points=3, public=True, misconceptions=[forward_called_directly])
def sequential_forward_chains_children(nn):
    """calling a Sequential feeds the input through each child in order"""
    x = torch.arange(3.0)
    Tagged = tagged(nn)
    model = nn.Sequential(Tagged(1), nn.Sequential(Tagged(2), Tagged(3)), Tagged(4))
    named = nn.Sequential(OrderedDict([("first", Tagged(-1)), ("second", Tagged(5))]))
    empty = nn.Sequential()
    return {"model(x)": model(x), "named(x)": named(x), "Sequential()(x) is x": empty(x) is x, "model[1:](x)": model[1:](x)}


@scenario(points=3, public=True, misconceptions=[forward_called_directly, hook_return_ignored])
def sequential_calls_children_so_hooks_run(nn):
    """Sequential calls child(x), so the children's hooks run (and can change the output)"""
    calls = []
    Tagged = tagged(nn)
    model = nn.Sequential(Tagged(1), Tagged(2), nn.Sequential(Tagged(3)))
    before_hooks = model(torch.ones(2))
    for name, child in model._modules.items():
        child.register_forward_pre_hook(lambda module, args, name=name: calls.append(f"pre {name}"))
        child.register_forward_hook(lambda module, args, output, name=name: calls.append(f"post {name}"))
    model[1].register_forward_hook(lambda module, args, output: output * 10)   # replaces the output
    model.register_forward_hook(lambda module, args, output: calls.append("post model"))
    return {HOOK_LOG: calls, CHILD_HOOK_TIMES_10: model(torch.ones(2)), BEFORE_HOOKS: before_hooks}


@scenario(points=2, misconceptions=REGISTERING)
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

    net = Net()
    return {"net.body": contents(net.body), "net.blocks": contents(net.blocks), "net.heads": contents(net.heads),
            "parameter names, read from the registers": dotted_parameters(net)}


# ModuleList

@scenario(points=3, public=True, misconceptions=REGISTERING)
def module_list_from_iterables(nn):
    """ModuleList(iterable) registers each module as '0', '1', ...; bad input raises like torch"""
    children = leaves(nn, 0, 1, 2)
    built = {"ModuleList([a, b, c])": nn.ModuleList(children), "ModuleList((a, b, c))": nn.ModuleList(tuple(children)),
             "ModuleList(a generator)": nn.ModuleList(m for m in children),
             "ModuleList(ModuleList([a, b, c]))": nn.ModuleList(nn.ModuleList(children)),
             "ModuleList()": nn.ModuleList(), "ModuleList(None)": nn.ModuleList(None)}
    return {**{call: contents(m) for call, m in built.items()},
            "iterating gives a, b, c": [same(m, children) for m in list(built.values())[:4]],
            "len(ModuleList([a, b, c]))": len(built["ModuleList([a, b, c])"]),
            "ModuleList(3)": attempt(lambda: contents(nn.ModuleList(3))),
            "ModuleList([a, 3])": attempt(lambda: contents(nn.ModuleList([children[0], 3])))}


@scenario(points=2, public=True, misconceptions=[slice_names, negative_index_unsupported])
def module_list_indexing_and_slices(nn):
    """layers[i] takes negative indices; a slice is a new list of the same class, numbered from '0'"""
    class Blocks(nn.ModuleList):
        pass

    children = leaves(nn, 0, 1, 2, 3)
    layers = Blocks(children)
    sliced = layers[1:3]
    return {**{is_child(f"layers[{i}]", i % 4): attempt(lambda: layers[i] is children[i]) for i in range(-4, 4)},
            "layers[1:3]": contents(sliced), "layers[1:3] is layers": sliced is layers,
            holding("layers[1:3]", "children 1, 2"): same(sliced, children[1:3]), "layers[::-2]": contents(layers[::-2]),
            "layers[9:]": contents(layers[9:]), "layers[4], layers[-5]": [attempt(lambda: label(layers[i])) for i in (4, -5)],
            "layers['1']": attempt(lambda: label(layers["1"]))}


@scenario(points=3, public=True, misconceptions=[no_renumbering])
def module_list_mutation(nn):
    """append, extend, insert, item assignment, del and pop keep the list numbered like torch"""
    layers = nn.ModuleList(leaves(nn, 0, 1, 2))
    steps = {"layers.append(m) is layers": layers.append(tagged(nn)(3)) is layers,
             "layers.extend([m, m]) is layers": layers.extend(leaves(nn, 4, 5)) is layers}
    layers.insert(0, tagged(nn)(6))
    layers.insert(len(layers), tagged(nn)(7))
    layers.insert(2, tagged(nn)(8))
    steps["after the inserts"] = contents(layers)
    layers[-1] = tagged(nn)(9)
    del layers[1]
    steps["after layers[-1] = m and del layers[1]"] = contents(layers)
    del layers[1::3]
    steps["after del layers[1::3]"] = contents(layers)
    steps.update({"layers.pop(0)": label(layers.pop(0)), "layers.pop(slice(0, 2))": contents(layers.pop(slice(0, 2))),
                  "after the pops": contents(layers)})
    layers.append(tagged(nn)(10))
    steps.update({"after layers.append(m)": contents(layers), "layers[9] = m": attempt(layers.__setitem__, 9, tagged(nn)(0)),
                  "layers[0] = 'relu'": attempt(layers.__setitem__, 0, "relu"), "del layers[9]": attempt(layers.__delitem__, 9),
                  "layers.append(3)": attempt(layers.append, 3), "layers.extend(3)": attempt(layers.extend, 3),
                  "layers afterwards": contents(layers)})
    return steps


@scenario(points=1)
def lists_and_dicts_have_no_forward(nn):
    """ModuleList and ModuleDict hold layers but have no forward: calling one raises like torch"""
    layers = nn.ModuleList(leaves(nn, 1))
    heads = nn.ModuleDict({"a": tagged(nn)(1)})
    return {"layers": contents(layers), "heads": contents(heads), "layers(x)": attempt(layers, torch.ones(1)),
            "heads(x)": attempt(heads, torch.ones(1)), "a new leaf in layers": tagged(nn)(1) in layers,
            "layers[0] in layers": layers[0] in layers}


# ModuleDict

@scenario(points=3, public=True, misconceptions=REGISTERING)
def module_dict_construction(nn):
    """ModuleDict registers each value under its key, from a mapping or from (key, module) pairs"""
    a, b, c = leaves(nn, 0, 1, 2)
    built = {"ModuleDict({'b': b, 'a': a})": nn.ModuleDict({"b": b, "a": a}),
             "ModuleDict(OrderedDict(c=c, a=a))": nn.ModuleDict(OrderedDict([("c", c), ("a", a)])),
             "ModuleDict([('a', a), ['b', b]])": nn.ModuleDict([("a", a), ["b", b]]),
             "ModuleDict(a generator of pairs)": nn.ModuleDict((key, m) for key, m in (("x", a), ("y", c))),
             "ModuleDict(ModuleDict(z=c, a=a))": nn.ModuleDict(nn.ModuleDict({"z": c, "a": a})),
             "ModuleDict()": nn.ModuleDict(), "ModuleDict(None)": nn.ModuleDict(None)}
    first = built["ModuleDict({'b': b, 'a': a})"]
    return {**{call: contents(d) for call, d in built.items()},
            "heads['a'] is a": attempt(lambda: first["a"] is a), "heads._modules['b'] is b": first._modules.get("b") is b,
            "len(ModuleDict([('a', a), ['b', b]]))": len(built["ModuleDict([('a', a), ['b', b]])"])}


@scenario(points=3, public=True, misconceptions=REGISTERING)
def module_dict_methods(nn):
    """ModuleDict behaves as an ordered dict: keys, values, items, in, len, pop, del, clear, update"""
    a, b, c, d = leaves(nn, 0, 1, 2, 3)
    heads = nn.ModuleDict({"a": a, "b": b})
    heads["c"] = c
    heads["a"] = d                                   # overwriting keeps the key's place
    views = {"list(heads)": list(heads), "list(heads.keys())": list(heads.keys()),
             "heads.values() are d, b, c": same(heads.values(), [d, b, c]),
             "heads.items()": [[k, m.tag] for k, m in heads.items()], "len(heads)": len(heads), "'b' in heads": "b" in heads,
             "'z' in heads": "z" in heads, "heads['b'] is b": heads["b"] is b, "heads": contents(heads)}
    popped = heads.pop("b")
    del heads["c"]
    after_removal = {"heads.pop('b') is b": popped is b, "heads after pop and del": contents(heads)}
    heads.update([("e", a), ("a", b)])
    heads.update(nn.ModuleDict({"f": c}))
    updated = contents(heads)
    heads.clear()
    return {**views, **after_removal, "heads after update": updated, "heads after clear()": contents(heads),
            "len(heads) after clear()": len(heads)}


@scenario(points=2, misconceptions=[container_accepts_non_modules])
def module_dict_bad_input(nn):
    """ModuleDict rejects bad keys, values and pairs with torch's exception types"""
    leaf = tagged(nn)(0)
    heads = nn.ModuleDict({"a": leaf})
    built = {f"ModuleDict({shown})": attempt(lambda: contents(nn.ModuleDict(spec))) for shown, spec in
             (("3", 3), ("[leaf]", [leaf]), ("[('a',)]", [("a",)]), ("[('a', leaf, leaf)]", [("a", leaf, leaf)]),
              ("{'x': 3}", {"x": 3}), ("{'a.b': leaf}", {"a.b": leaf}), ("{'': leaf}", {"": leaf}),
              ("{'training': leaf}", {"training": leaf}))}
    used = {"heads[3] = leaf": attempt(heads.__setitem__, 3, leaf), "heads['b'] = 'relu'": attempt(heads.__setitem__, "b", "relu"),
            "heads['missing']": attempt(heads.__getitem__, "missing"), "del heads['missing']": attempt(heads.__delitem__, "missing"),
            "heads.pop('missing')": attempt(heads.pop, "missing"), "heads.update(5)": attempt(heads.update, 5),
            "heads.update([('c', leaf), 7])": attempt(heads.update, [("c", leaf), 7])}
    return {"ModuleDict({'a': leaf})": contents(nn.ModuleDict({"a": leaf})), **built, **used,
            "heads afterwards": contents(heads)}


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
    "get": st.tuples(INDEX), "del_slice": st.tuples(BOUND, BOUND, STEP), GET_SLICE: st.tuples(BOUND, BOUND, STEP),
}
# Each operation's strategy is made once: made afresh for every draw, Hypothesis would check it again each time.
OPERATIONS = {name: arguments.map(lambda args, name=name: [name, *args]) for name, arguments in ARGUMENTS.items()}
ONE_OPERATION = st.sampled_from(list(OPERATIONS)).flatmap(OPERATIONS.__getitem__)
SEQUENCES = st.tuples(st.sampled_from(["Sequential", "ModuleList"]), st.integers(0, 4),
                      st.lists(ONE_OPERATION, min_size=1, max_size=8)).map(list)


@scenario(points=4, specs=SEQUENCES, examples=60,
          misconceptions=[no_renumbering, slice_names, negative_index_unsupported, *REGISTERING])
def random_list_operations(nn, spec):
    """any sequence of list operations leaves the container as torch leaves it"""
    kind, size, operations = spec
    bench = Workbench(nn, kind, size)
    history = []
    for operation in operations:
        result = attempt(bench.apply, *operation)
        history.append({OPERATION: operation, "returned": result, "container": contents(bench.container),
                        "len": attempt(len, bench.container)})
    return history


# Random trees (depth <= 4) of plain modules, leaves and all three containers,
# with shared modules, built identically in both worlds; only trees that hold
# at least one container.
TREES = module_trees(containers=True, max_depth=3, budget=10).filter(holds_a_container)


@scenario(points=3, specs=TREES, shown=tree_code, examples=40, misconceptions=REGISTERING)
def random_trees_register_containers(nn, spec):
    """containers in any module tree register their children as torch's do"""
    root = build_tree(nn, spec)
    return {"the registered tree": registered_tree(root), "which modules are the same object": first_occurrences(every_module(root))}


@scenario(points=3, specs=TREES, shown=tree_code, examples=40, misconceptions=[slice_names, negative_index_unsupported])
def random_trees_container_views(nn, spec):
    """indexing, iteration and slices of every container in a tree agree with its register"""
    root = build_tree(nn, spec)
    containers = [m for m in every_module(root) if isinstance(m, (nn.Sequential, nn.ModuleList, nn.ModuleDict))]
    return [{CONTAINER_TYPE: type(c).__name__, "views": container_views(nn, c)} for c in containers]
