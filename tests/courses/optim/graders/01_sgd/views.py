"""What exercise 01's scenarios observe: tensors after steps of an optimizer."""
import torch

from modlab.grading.fields import Field

# The fields scenarios observe under and detectors read, each defined once here.
PLAIN = Field("w after a step, lr=0.1")
DECAYED = Field("w after a step, lr=0.1, weight_decay=0.5")

GRADIENTS = ([0.5, -1.0, 2.0], [1.0, 0.25, -0.5], [-2.0, 0.5, 1.0])


def trained(optim, steps: int = 1, **settings):
    """``w`` after ``steps`` steps of ``optim.SGD`` with these settings, each from a gradient of ``GRADIENTS``."""
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    optimizer = optim.SGD([w], **settings)
    for step in range(steps):
        w.grad = torch.tensor(GRADIENTS[step % len(GRADIENTS)])
        optimizer.step()
    return w.detach().clone()
