"""The random module trees: plain data, built the same way every time, and
holding the features the walk graders rely on."""
import json

import torch
from hypothesis import HealthCheck, given, settings

from conftest import course_module

first_occurrences = course_module("shared/probes.py").first_occurrences
build_tree, lookup, module_trees = (getattr(course_module("shared/trees.py"), name)
                                    for name in ("build_tree", "lookup", "module_trees"))

DRAWS = settings(max_examples=80, derandomize=True, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck))


def built(spec):
    torch.manual_seed(0)
    return build_tree(torch.nn, spec)


def everything(root):
    """Every observable of a tree, duplicates kept, as comparable data."""
    def values(pairs):
        return [[name, t.dtype, t.requires_grad, t.tolist()] for name, t in pairs]

    return [values(root.named_parameters(remove_duplicate=False)),
            values(root.named_buffers(remove_duplicate=False)),
            [[name, type(m).__name__] for name, m in root.named_modules(remove_duplicate=False)],
            list(root.state_dict())]


@DRAWS
@given(spec=module_trees(containers=True))
def test_specs_are_json_and_build_the_same_tree_every_time(spec):
    travelled = json.loads(json.dumps(spec))
    assert travelled == spec
    assert everything(built(travelled)) == everything(built(spec))


@DRAWS
@given(spec=module_trees(max_depth=2))
def test_depth_is_bounded_and_containers_come_only_when_asked(spec):
    assert not {"Sequential", "ModuleList", "ModuleDict"} & {type(m).__name__ for m in built(spec).modules()}
    assert all(name.count(".") < 2 for name, _ in built(spec).named_modules())


def drawn(strategy, count=150):
    specs = []

    @settings(DRAWS, max_examples=count)
    @given(spec=strategy)
    def collect(spec):
        specs.append(spec)

    collect()
    return specs


def test_every_feature_appears_in_the_drawn_trees():
    seen = set()
    for spec in drawn(module_trees(containers=True)):
        root = built(spec)
        modules = [m for _, m in root.named_modules(remove_duplicate=False)]
        parameters = [p for m in modules for p in m._parameters.values() if p is not None]
        buffers = [b for m in modules for b in m._buffers.values() if b is not None]
        seen |= {type(m).__name__ for m in modules}
        seen |= {"shared module"} if len(set(first_occurrences(modules))) < len(modules) else set()
        seen |= {"tied parameter"} if any(n > 1 for n in _counts(root.named_parameters(remove_duplicate=False))) else set()
        seen |= {"None slot"} if any(None in (*m._parameters.values(), *m._buffers.values(), *m._modules.values())
                                     for m in modules) else set()
        seen |= {"frozen parameter"} if any(not p.requires_grad for p in parameters) else set()
        seen |= {"non-persistent buffer"} if any(m._non_persistent_buffers_set for m in modules) else set()
        seen |= {"int64 buffer"} if any(b.dtype == torch.int64 for b in buffers) else set()
    assert seen >= {"Module", "Leaf", "Sequential", "ModuleList", "ModuleDict", "shared module", "tied parameter",
                    "None slot", "frozen parameter", "non-persistent buffer", "int64 buffer"}


def _counts(pairs):
    """How often each object (by identity) occurs among the named pairs."""
    occurrences = first_occurrences([value for _, value in pairs])
    return [occurrences.count(index) for index in set(occurrences)]


def test_links_are_the_same_objects():
    spec = [["a", ["leaf", 2, 3, True]],
            ["b", ["module", [["w", ["tied", "a.weight"]], ["s", ["shared", "a"]]]]]]
    root = built(spec)
    assert lookup(root, "b.w") is lookup(root, "a.weight")
    assert lookup(root, "b.s") is lookup(root, "a")
    assert lookup(root, "a.bias").shape == (3,)
    assert lookup(root, "b.nothing") is None and lookup(root, "zz.w") is None


def test_first_occurrences_marks_repeats_by_identity():
    a, b = torch.zeros(1), torch.zeros(1)
    assert first_occurrences([a, b, a, a, b]) == [0, 1, 0, 0, 1]
