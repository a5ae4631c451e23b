"""The hand-picked trees exercise 03's scenarios walk (built with registration only:
:func:`~modlab.grading.trees.leaf_class` stands in for ``nn.Linear``, exercise 08), and the
views of a walk with and without de-duplication."""
from __future__ import annotations

import torch

from modlab.grading import attempt
from modlab.grading.fields import Field

from ..shared.probes import first_occurrences, kind, named_shapes, named_types
from ..shared.trees import leaf_class

# The fields scenarios observe under and detectors read, each defined once here.
ALIASES = Field("names with remove_duplicate=False")
NAMED_MODULES = Field("root.named_modules()")
IS_REGISTERED_OBJECT = Field("is the registered object")
MEMO_SIZE = Field("len(memo)")
ROOT_IN_MEMO = Field("root in memo")
BODY_IN_MEMO = Field("root.body in memo")
MEMO_FILLED = Field("len(memo) after list(root.named_modules(memo=memo))")
SAME_OBJECT = Field("which are the same object")
SAME_MODULE = Field("which modules are the same object")


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


def encoder_decoder(nn):
    """A root with children assigned before its own parameter and buffer."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.encoder = Leaf(2, 3)
    root.decoder = Leaf(3, 1, bias=False)
    root.scale = nn.Parameter(torch.ones(1))
    root.register_buffer("steps", torch.tensor(0))
    return root


def three_levels(nn):
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.w = nn.Parameter(torch.randn(2))
    root.body = nn.Module()
    root.body.block = nn.Module()
    root.body.block.head = Leaf(2, 2)
    root.body.block.register_buffer("mean", torch.zeros(2))
    return root


def tied_autoencoder(nn):
    """decoder.weight is the encoder's weight, the seeds' weight tying."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.encoder = Leaf(3, 3)
    root.decoder = Leaf(3, 3)
    root.decoder.weight = root.encoder.weight
    return root


def deduplicated(root, walk: str) -> dict:
    """A walk as it is, its modules, and what remove_duplicate=False yields (the aliases torch skips),
    with which of those are the same object."""
    modules = walk == "named_modules"
    every = list(getattr(root, walk)(remove_duplicate=False))
    return {f"root.{walk}()": (named_types if modules else named_shapes)(getattr(root, walk)()),
            NAMED_MODULES: named_types(root.named_modules()),
            ALIASES: [name for name, _ in every],
            SAME_MODULE if modules else SAME_OBJECT: first_occurrences([value for _, value in every])}


def shared_layer(nn):
    """One leaf reachable as `first` and `second`, plus a module of its own."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.first = Leaf(2, 2)
    root.middle = nn.Module()
    root.second = root.first
    root.middle.again = root.first
    return root


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


def lookups(root, method: str, found: dict, failing: list) -> dict:
    """``root.<method>(path)`` for each path: whether it is the object ``found``
    names, or what a path in ``failing`` raises."""
    look = getattr(root, method)
    observed = {f"root.{method}({path!r}) is the object": attempt(lambda path=path: look(path) is target)
                for path, target in found.items()}
    return {**observed, **{f"root.{method}({path!r})": attempt(lambda path=path: kind(look(path))) for path in failing}}
