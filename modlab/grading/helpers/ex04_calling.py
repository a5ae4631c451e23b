"""The modules exercise 04's scenarios call, whose hooks write what they see into a log,
and the views of a tree's modes, gradients and frozen parameters."""
from __future__ import annotations

import torch

from modlab.grading.observe import Raised
from modlab.grading.trees import leaf_class


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


def names_the_module(result, name: str) -> bool:
    """Whether an exception's message names the module class, as torch's does."""
    return isinstance(result, Raised) and f"[{name}]" in result.message


def modes(root):
    """The training flag of every module, by name."""
    return [[name, module.training] for name, module in root.named_modules(remove_duplicate=False)]


def with_grads(nn):
    """A leaf with gradients from a backward pass, and one parameter without."""
    Leaf = leaf_class(nn)
    root = nn.Module()
    root.body = Leaf(2, 2)
    root.unused = nn.Parameter(torch.ones(3))
    root.body(torch.ones(1, 2)).sum().backward()
    return root


def grads(root):
    """Each parameter's gradient, by name, read from the registers (not the walk)."""
    found = [[name, p.grad] for name, p in root._parameters.items() if p is not None]
    for child_name, child in root._modules.items():
        if child is not None:
            found += [[f"{child_name}.{name}", grad] for name, grad in grads(child)]
    return found


def frozen(root):
    return [[name, p.requires_grad] for name, p in root.named_parameters(remove_duplicate=False)]
