"""The capstone's models: the submission's own ``capstone`` module, or, in the torch.nn
world, :class:`Seeds`, the seed articles' own code; and the data they are trained on."""
from __future__ import annotations

import importlib

import torch

from modlab.grading.fields import Field

# The fields scenarios observe under and detectors read, each defined once here.
CHANGED = Field("changed")
INITIAL = Field("initial")
LOSSES = Field("losses")
PARAMETER_NAMES = Field("names")
TWICE_SAME = Field("model(x) twice gives the same output")


class Seeds:
    """The seed articles' code, written with torch.nn: what the capstone reproduces."""

    class TinyModel(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(1, 1)

        def forward(self, x):
            return self.linear(x)

    class Classifier(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = torch.nn.ModuleList([torch.nn.Linear(10, 64), torch.nn.Linear(64, 64),
                                               torch.nn.Linear(64, 64)])
            self.head = torch.nn.Linear(64, 3)

        def forward(self, x):
            for block in self.blocks:
                x = torch.relu(block(x))
            return self.head(x)

    class PlainListClassifier(Classifier):
        def __init__(self):
            torch.nn.Module.__init__(self)
            self.blocks = [torch.nn.Linear(10, 64), torch.nn.Linear(64, 64), torch.nn.Linear(64, 64)]
            self.head = torch.nn.Linear(64, 3)

    @staticmethod
    def train(model, x, y, steps=200, lr=0.1):
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        loss_fn = torch.nn.MSELoss()
        losses = []
        for _ in range(steps):
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    @staticmethod
    def least_squares_line(x, y):
        solution = torch.linalg.lstsq(torch.cat([x, torch.ones_like(x)], dim=1), y).solution
        return solution[0].item(), solution[1].item()

    @staticmethod
    def linear_parameter_count(sizes):
        # The seed's hand count: (10*64 + 64) + 2*(64*64 + 64) + (64*3 + 3)
        return sum(a * b + b for a, b in zip(sizes, sizes[1:]))

    @staticmethod
    def registration_table():
        expected = Seeds.linear_parameter_count((10, 64, 64, 64, 3))
        rows = []
        for label, model in (("ModuleList", Seeds.Classifier()), ("plain list", Seeds.PlainListClassifier())):
            rows.append([label, sum(p.numel() for p in model.parameters()), expected,
                         [name for name, _ in model.named_parameters()]])
        return rows


def capstone(nn):
    """Where this world's capstone lives: the seeds' torch.nn code, or the submission's module."""
    return Seeds if nn is torch.nn else importlib.import_module(f"{nn.__name__}.capstone")


def line_data():
    """The seed's 20 noisy points around y = 3x + 1."""
    torch.manual_seed(0)
    x = torch.linspace(0, 2, 20).unsqueeze(1)
    return x, 3 * x + 1 + 0.3 * torch.randn_like(x)


def hidden_and_head(model):
    """The classifier's Linear layers, registered or not, in order."""
    return [*model.blocks, model.head]
