"""Exercise 01: Parameter, a tensor that asks to be trained.

A ``Parameter`` is an ordinary tensor with one extra meaning: "I belong to a
model and the optimizer should update me". The class adds no data of its own;
its type alone is what ``Module.__setattr__`` (exercise 02) looks for.
"""
import torch

from ._given import rebuild_parameter


class Parameter(torch.Tensor):
    """A tensor that a ``Module`` registers as trainable when assigned to it.

    Args:
        data: the tensor to wrap; it shares storage with the Parameter, nothing
            is copied. ``None`` gives an empty tensor.
        requires_grad: whether autograd tracks it, honoured even inside
            ``torch.no_grad()``.

    Example::

        >>> w = torch.zeros(2)
        >>> p = Parameter(w)
        >>> p.requires_grad, p.data_ptr() == w.data_ptr()
        (True, True)
        >>> type(p * 2).__name__   # operations give plain tensors
        'Tensor'
    """

    def __new__(cls, data=None, requires_grad=True):
        ### BEGIN SOLUTION
        if data is None:
            data = torch.empty(0)
        # _make_subclass re-labels the same storage as our class, and sets
        # requires_grad directly, so no_grad() cannot switch it off.
        return torch.Tensor._make_subclass(cls, data, requires_grad)
        ### END SOLUTION

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Run every torch operation as on a plain tensor, so results are plain
        ``Tensor``s: a sum of weights is not itself a weight."""
        ### BEGIN SOLUTION
        return torch._C._disabled_torch_function_impl(func, types, args, kwargs or {})
        ### END SOLUTION

    def __repr__(self):
        """``Parameter containing:`` followed by the tensor's own repr."""
        ### BEGIN SOLUTION
        # Print the same storage as a plain tensor: "tensor([...], requires_grad=True)".
        plain = torch.Tensor._make_subclass(torch.Tensor, self.detach(), self.requires_grad)
        return "Parameter containing:\n" + repr(plain)
        ### END SOLUTION

    def __deepcopy__(self, memo):
        """A deep copy is a new Parameter over copied data, same requires_grad."""
        ### BEGIN SOLUTION
        if id(self) not in memo:
            data = self.detach().clone(memory_format=torch.preserve_format)
            memo[id(self)] = type(self)(data, self.requires_grad)
        return memo[id(self)]
        ### END SOLUTION

    def __reduce_ex__(self, protocol):
        """Pickle (and ``torch.save``) as "rebuild a Parameter over this data":
        ``(rebuild_parameter, (data, requires_grad))``, the given function that
        unpickling calls."""
        ### BEGIN SOLUTION
        return (rebuild_parameter, (self.detach(), self.requires_grad))
        ### END SOLUTION
