"""Exercise 01: the step of stochastic gradient descent, as torch.optim.SGD takes it.

Each tensor ``p`` moves against its gradient: ``p -= lr * (grad + weight_decay * p)``.
With ``maximize=True`` it climbs instead. With momentum, the direction is a running
average of the gradients (``momentum.py``, exercise 02).
"""
import torch

from .momentum import direction


class SGD:
    """Stochastic gradient descent over a list of tensors that require grad.

    Args:
        params: the tensors to train (leaf tensors with ``requires_grad``).
        lr: the learning rate.
        momentum: the momentum factor (0: none).
        dampening: how much of the new gradient the momentum buffer takes (``1 - dampening``).
        weight_decay: the L2 penalty added to each gradient as ``weight_decay * p``.
        nesterov: look ahead along the momentum (needs momentum and no dampening).
        maximize: climb the objective instead of descending it.

    Raises:
        ValueError: a negative rate, momentum or decay, an empty list of tensors, or
            Nesterov's momentum without momentum or with dampening.

    Example::

        >>> w = torch.ones(2, requires_grad=True)
        >>> w.grad = torch.tensor([0.5, -1.0])
        >>> SGD([w], lr=0.1).step()
        >>> w
        tensor([0.9500, 1.1000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
        ### BEGIN SOLUTION
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        self.settings = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                         "nesterov": nesterov, "maximize": maximize}
        self.state = {}
        ### END SOLUTION

    def zero_grad(self, set_to_none=True):
        """Forget every gradient: ``None`` (the default), or zeros kept in place."""
        ### BEGIN SOLUTION
        for p in self.params:
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.requires_grad_(False)
                    p.grad.zero_()
        ### END SOLUTION

    @torch.no_grad()
    def step(self):
        """Move each tensor that has a gradient one step, in place."""
        ### BEGIN SOLUTION
        s = self.settings
        for p in self.params:
            if p.grad is None:
                continue
            grad = -p.grad if s["maximize"] else p.grad
            if s["weight_decay"] != 0:
                grad = grad.add(p, alpha=s["weight_decay"])
            if s["momentum"] != 0:
                grad = direction(grad, self.state.setdefault(p, {}), s["momentum"], s["dampening"], s["nesterov"])
            p.add_(grad, alpha=-s["lr"])
        ### END SOLUTION
