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
        raise NotImplementedError("exercise 01: __new__")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Run every torch operation as on a plain tensor, so results are plain
        ``Tensor``s: a sum of weights is not itself a weight."""
        raise NotImplementedError("exercise 01: __torch_function__")

    def __repr__(self):
        """``Parameter containing:`` followed by the tensor's own repr."""
        raise NotImplementedError("exercise 01: __repr__")

    def __deepcopy__(self, memo):
        """A deep copy is a new Parameter over copied data, same requires_grad."""
        raise NotImplementedError("exercise 01: __deepcopy__")

    def __reduce_ex__(self, protocol):
        """Pickle (and ``torch.save``) as "rebuild a Parameter over this data":
        ``(rebuild_parameter, (data, requires_grad))``, the given function that
        unpickling calls."""
        raise NotImplementedError("exercise 01: __reduce_ex__")
