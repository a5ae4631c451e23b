"""Exercise 09, the capstone: train with your own framework.

Everything here is built from your own pieces (``Module``, ``Parameter``,
``Linear``, ``ModuleList``, ``MSELoss``) and trained with the real
``torch.optim``, which only needs ``model.parameters()``. This exercise is
graded with your whole package, not just this file: it is where the earlier
exercises meet.

Two workloads from the seed articles:

1. The line ``y = 3x + 1`` fitted to 20 noisy points. Your model must follow
   the same model written with ``torch.nn`` step for step (same seed, same
   initial weights, same losses) and end near the least-squares line::

       >>> torch.manual_seed(0)
       >>> x = torch.linspace(0, 2, 20).unsqueeze(1)
       >>> y = 3 * x + 1 + 0.3 * torch.randn_like(x)
       >>> model = TinyModel()
       >>> losses = train(model, x, y)
       >>> model.linear.weight.item(), model.linear.bias.item()   # about 3.29, 0.82
       >>> least_squares_line(x, y)                               # about (3.29, 0.81)

2. A 3-layer classifier whose hidden layers sit in a ``ModuleList``, next to
   the same classifier with them in a plain Python list. Only the first one
   trains all its layers; the table shows why::

       >>> for label, trained, expected, names in registration_table():
       ...     print(f"{label:12} {trained:>5} / {expected}")
       ModuleList    9219 / 9219
       plain list     195 / 9219
"""
import torch

from .containers import ModuleList
from .layers import Linear, MSELoss
from .module import Module

CLASSIFIER_SIZES = (10, 64, 64, 64)  # the input, then each hidden layer's width
CLASSES = 3


class TinyModel(Module):
    """``y = w * x + b``: a single ``Linear(1, 1)`` named ``linear``.

    Example::

        >>> [name for name, _ in TinyModel().named_parameters()]
        ['linear.weight', 'linear.bias']
    """

    def __init__(self):
        ### BEGIN SOLUTION
        super().__init__()
        self.linear = Linear(1, 1)
        ### END SOLUTION

    def forward(self, x):
        """The line at ``x`` (shape ``(N, 1)`` in, ``(N, 1)`` out)."""
        ### BEGIN SOLUTION
        return self.linear(x)
        ### END SOLUTION


def train(model, x, y, steps=200, lr=0.1):
    """Fit ``model`` to ``(x, y)`` by gradient descent on the mean squared error.

    Each step: the loss of ``model(x)`` against ``y`` with your ``MSELoss``,
    ``zero_grad``, ``backward``, then ``step`` of a ``torch.optim.SGD`` built
    once over ``model.parameters()`` with learning rate ``lr``.

    Args:
        model: any module whose parameters should be fitted.
        x: the inputs.
        y: the targets, shaped like ``model(x)``.
        steps: how many gradient steps.
        lr: the learning rate.

    Returns:
        The loss before each step, as a list of ``steps`` floats.

    Example::

        >>> losses = train(TinyModel(), x, y)
        >>> losses[0] > losses[-1]
        True
    """
    ### BEGIN SOLUTION
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = MSELoss()
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
    ### END SOLUTION


def least_squares_line(x, y):
    """The best straight line through the points, solved directly.

    Solves ``[x, 1] @ [w, b] = y`` in the least-squares sense with
    ``torch.linalg.lstsq``: the line gradient descent should approach.

    Args:
        x: inputs of shape ``(N, 1)``.
        y: targets of shape ``(N, 1)``.

    Returns:
        ``(w, b)`` as two floats.
    """
    ### BEGIN SOLUTION
    design = torch.cat([x, torch.ones_like(x)], dim=1)
    w, b = torch.linalg.lstsq(design, y).solution.flatten().tolist()
    return w, b
    ### END SOLUTION


class Classifier(Module):
    """The seed's classifier: hidden ``Linear`` layers in a ``ModuleList``
    named ``blocks``, each followed by a ReLU, then a ``Linear`` ``head``.

    Args:
        sizes: the input width, then each hidden layer's width
            (default ``(10, 64, 64, 64)``: three hidden layers).
        classes: the number of outputs.

    Example::

        >>> sum(p.numel() for p in Classifier().parameters())
        9219
    """

    def __init__(self, sizes=CLASSIFIER_SIZES, classes=CLASSES):
        ### BEGIN SOLUTION
        super().__init__()
        self.blocks = ModuleList([Linear(n_in, n_out) for n_in, n_out in zip(sizes, sizes[1:])])
        self.head = Linear(sizes[-1], classes)
        ### END SOLUTION

    def forward(self, x):
        """Class scores of shape ``(N, classes)`` for inputs ``(N, sizes[0])``."""
        ### BEGIN SOLUTION
        for layer in self.blocks:
            x = torch.relu(layer(x))
        return self.head(x)
        ### END SOLUTION


class PlainListClassifier(Module):
    """The seed's bug, kept for the comparison: the same layers, built in the
    same order, but the hidden ones in a plain Python list. ``forward`` runs
    them all, yet only ``head`` is registered, so only ``head`` trains.
    (Given: nothing to write here.)"""

    def __init__(self, sizes=CLASSIFIER_SIZES, classes=CLASSES):
        super().__init__()
        self.blocks = [Linear(n_in, n_out) for n_in, n_out in zip(sizes, sizes[1:])]
        self.head = Linear(sizes[-1], classes)

    forward = Classifier.forward


def linear_parameter_count(sizes):
    """The parameters a chain of ``Linear`` layers holds, from the layer sizes.

    Args:
        sizes: the widths along the chain; each consecutive pair
            ``(n_in, n_out)`` is one layer of ``n_in * n_out`` weights and
            ``n_out`` biases.

    Example::

        >>> linear_parameter_count((10, 64, 64, 64, 3))   # the seed's classifier
        9219
    """
    ### BEGIN SOLUTION
    return sum(n_in * n_out + n_out for n_in, n_out in zip(sizes, sizes[1:]))
    ### END SOLUTION


def registration_table():
    """The before/after table: what the optimizer receives from each classifier.

    Returns:
        Two rows, ``"ModuleList"`` (a :class:`Classifier`) then
        ``"plain list"`` (a :class:`PlainListClassifier`), each
        ``[label, parameters trained, parameters expected from the layer
        sizes, names of the trained parameters]``, where "trained" counts
        what ``parameters()`` hands to an optimizer.
    """
    ### BEGIN SOLUTION
    expected = linear_parameter_count((*CLASSIFIER_SIZES, CLASSES))
    rows = []
    for label, model in (("ModuleList", Classifier()), ("plain list", PlainListClassifier())):
        trained = sum(p.numel() for p in model.parameters())
        rows.append([label, trained, expected, [name for name, _ in model.named_parameters()]])
    return rows
    ### END SOLUTION
