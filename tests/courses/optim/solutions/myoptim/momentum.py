"""Exercise 02: momentum, the running average that steadies SGD's steps.

The buffer starts as a copy of the first gradient and then follows
``buffer = momentum * buffer + (1 - dampening) * grad``, step after step, kept in the
optimizer's state of each tensor. Nesterov's momentum looks one step ahead along it.
"""
import torch


def direction(grad, state, momentum, dampening, nesterov):
    """The direction of one step with momentum, updating the tensor's momentum buffer.

    Args:
        grad: this step's gradient (weight decay already added).
        state: the optimizer's state of the tensor: ``state["momentum_buffer"]`` is kept there.
        momentum, dampening, nesterov: as :class:`~.sgd.SGD` takes them.

    Returns:
        The buffer, or with ``nesterov`` ``grad + momentum * buffer``.

    Example::

        >>> state = {}
        >>> direction(torch.ones(1), state, 0.9, 0, False)
        tensor([1.])
    """
    ### BEGIN SOLUTION
    buffer = state.get("momentum_buffer")
    if buffer is None:
        buffer = state["momentum_buffer"] = torch.clone(grad).detach()
    else:
        buffer.mul_(momentum).add_(grad, alpha=1 - dampening)
    return grad.add(buffer, alpha=momentum) if nesterov else buffer
    ### END SOLUTION
