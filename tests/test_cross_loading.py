"""The acid test of exercise 06: a state dict saved with ``torch.save`` from the
reference ``mynn`` loads with ``strict=True`` into the same model built with
``torch.nn``, and the other way round, with equal outputs afterwards.

Grader scenarios run in one world at a time, so this trusted test imports both
``torch.nn`` and the reference package (from ``solutions/``) side by side.
"""
import importlib
import io
import sys

import pytest
import torch
from hypothesis import given, settings

from conftest import ROOT, course_module

build_tree, module_trees = course_module("shared/trees.py").build_tree, course_module("shared/trees.py").module_trees


@pytest.fixture(scope="module")
def mynn():
    sys.path.insert(0, str(ROOT / "solutions"))
    try:
        yield importlib.import_module("mynn")
    finally:
        sys.path.remove(str(ROOT / "solutions"))
        for name in [n for n in sys.modules if n == "mynn" or n.startswith("mynn.")]:
            del sys.modules[name]


def layers(nn):
    """Real layers: Linear weights, BatchNorm1d running statistics and its int64 counter."""
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))


def hand_built(nn):
    """Containers, a tied Parameter, a shared module, a non-persistent buffer and None slots."""

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
            self.heads = nn.ModuleDict({"mean": nn.Linear(4, 3), "spread": nn.Linear(4, 3)})
            self.heads["spread"].weight = self.heads["mean"].weight
            self.again = self.blocks[0]
            self.scale = nn.Parameter(torch.randn(4))
            self.register_buffer("steps", torch.tensor(0))
            self.register_buffer("cache", torch.zeros(4), persistent=False)
            self.register_parameter("unused", None)

        def forward(self, x):
            for block in self.blocks:
                x = torch.relu(block(x) * self.scale)
            return torch.cat([self.heads["mean"](x), self.heads["spread"](x)], dim=1)

    return Net()


def through_torch_save(state):
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer)


def trained(model, steps=3):
    """A few steps of training, so weights and running statistics are not their initial values."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        model(torch.randn(6, 4)).pow(2).mean().backward()
        optimizer.step()
    return model.eval()


WORLDS = [("mynn", "torch"), ("torch", "mynn")]


@pytest.mark.parametrize("build", [layers, hand_built])
@pytest.mark.parametrize("source, target", WORLDS)
def test_state_dict_loads_strictly_into_the_other_world(mynn, build, source, target):
    world = {"mynn": mynn, "torch": torch.nn}
    torch.manual_seed(0)
    saved = trained(build(world[source]))
    torch.manual_seed(1)
    loaded = build(world[target]).eval()
    state = through_torch_save(saved.state_dict())

    result = loaded.load_state_dict(state, strict=True)

    assert (list(result.missing_keys), list(result.unexpected_keys)) == ([], [])
    assert list(loaded.state_dict()) == list(saved.state_dict())
    x = torch.randn(5, 4)
    torch.testing.assert_close(loaded(x), saved(x))


@settings(max_examples=40, derandomize=True, database=None, deadline=None)
@given(spec=module_trees(containers=True))
def test_random_trees_cross_load_both_ways(mynn, spec):
    """Any tree's state dict loads strictly into the same tree of the other world."""
    for source, target in ((mynn, torch.nn), (torch.nn, mynn)):
        torch.manual_seed(0)
        saved = build_tree(source, spec)
        torch.manual_seed(1)
        loaded = build_tree(target, spec)
        loaded.load_state_dict(through_torch_save(saved.state_dict()), strict=True)
        expected, actual = saved.state_dict(), loaded.state_dict()
        assert list(actual) == list(expected)
        for key, value in expected.items():
            assert torch.equal(actual[key], value), key
