"""What exercise 02's scenarios observe: the steps and the momentum buffer they keep."""
import torch

from modlab.grading.fields import Field

# The fields scenarios observe under and detectors read, each defined once here.
FIRST = Field("w after one step")
SECOND = Field("w after two steps")
BUFFER = Field("optimizer.state[w]['momentum_buffer'] after two steps")
SECOND_GRADIENT = Field("the second step's gradient")

GRADIENTS = ([0.5, -1.0, 2.0], [1.0, 0.25, -0.5])


def two_steps(optim, **settings) -> dict:
    """``w`` after one and two steps of ``optim.SGD`` with momentum, and its momentum buffer."""
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    optimizer = optim.SGD([w], lr=0.1, **settings)
    seen = {}
    for label, gradient in zip((FIRST, SECOND), GRADIENTS):
        w.grad = torch.tensor(gradient)
        optimizer.step()
        seen[label] = w.detach().clone()
    return {**seen, BUFFER: optimizer.state[w]["momentum_buffer"], SECOND_GRADIENT: torch.tensor(GRADIENTS[1])}
