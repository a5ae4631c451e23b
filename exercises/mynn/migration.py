"""Exercise 07: device and dtype migration.

``model.to(torch.float64)``, ``model.cuda()`` and ``model.half()`` are all one
walk, ``_apply(fn)``: visit every registered tensor and convert it with
``fn``. Two rules make it safe to call at any time:

* a Parameter keeps its identity, only its data is replaced, so an optimizer
  built before the move still holds the model's parameters (and a gradient
  moves along with its parameter);
* only floating-point (and complex) tensors change dtype: an integer buffer
  such as ``num_batches_tracked`` stays an integer.

Only registered tensors are visited. A layer kept in a plain list, or a bare
tensor attribute, stays where it was, and the next forward pass fails with a
dtype or device mismatch.
"""
import torch


class Migration:
    """Converting every registered tensor of a module tree: devices and dtypes."""

    def _apply(self, fn):
        """Replace every parameter, gradient and buffer ``t`` of the tree by ``fn(t)``.

        Children are converted first. A parameter keeps its identity: its
        ``.data`` becomes ``fn(param)``, computed without tracking gradients;
        its gradient, if any, is converted the same way. A buffer is
        replaced by ``fn(buffer)``. Empty (``None``) slots are skipped.

        Args:
            fn: a function from a tensor to the converted tensor.

        Returns:
            self

        Example::

            >>> model._apply(lambda t: t.double())   # what model.double() does
        """
        raise NotImplementedError("exercise 07: _apply")

    def apply(self, fn):
        """Call ``fn(module)`` on every child (recursively), then on self.

        Typically used to initialise weights.

        Args:
            fn: a function of one module; its result is ignored.

        Returns:
            self

        Example::

            >>> @torch.no_grad()
            ... def init(m):
            ...     if isinstance(m, Line):
            ...         m.weight.fill_(1.0)
            >>> model.apply(init)
        """
        raise NotImplementedError("exercise 07: apply")

    def to(self, *args, **kwargs):
        """Move and/or cast the parameters and buffers, in place.

        Called like ``torch.Tensor.to``::

            to(device=None, dtype=None, non_blocking=False)
            to(dtype, non_blocking=False)
            to(tensor, non_blocking=False)   # that tensor's device and dtype

        Only floating-point and complex tensors take the new dtype; integer
        and bool tensors keep theirs and only move to ``device``.

        Args:
            device: the target device (``torch.device``, ``"cuda:0"``, ``0``).
            dtype: the target floating-point or complex dtype.
            tensor: a tensor whose device and dtype are the targets.
            non_blocking: copy asynchronously where possible (pinned CPU
                memory to CUDA).
            memory_format: keyword only, the memory format for 4D and 5D
                tensors.

        Returns:
            self

        Raises:
            TypeError: ``dtype`` is not floating point or complex.

        Example::

            >>> model.to(torch.float64)
            >>> model.to("cuda", non_blocking=True)
            >>> model.to(batch)           # the batch's device and dtype
        """
        raise NotImplementedError("exercise 07: to")

    def cuda(self, device=None):
        """Move every parameter and buffer to a CUDA device, in place.

        Args:
            device: the device index or ``torch.device``; the current CUDA
                device by default.

        Returns:
            self
        """
        raise NotImplementedError("exercise 07: cuda")

    def cpu(self):
        """Move every parameter and buffer to the CPU, in place.

        Returns:
            self
        """
        raise NotImplementedError("exercise 07: cpu")

    def float(self):
        """Cast floating-point parameters and buffers to ``float32``; others stay.

        Returns:
            self
        """
        raise NotImplementedError("exercise 07: float")

    def double(self):
        """Cast floating-point parameters and buffers to ``float64``; others stay.

        Returns:
            self
        """
        raise NotImplementedError("exercise 07: double")

    def half(self):
        """Cast floating-point parameters and buffers to ``float16``; others stay.

        Returns:
            self
        """
        raise NotImplementedError("exercise 07: half")

    def share_memory(self):
        """Given: move every parameter and buffer into shared memory
        (``tensor.share_memory_()``), for models trained by several processes.

        Returns:
            self
        """
        return self._apply(lambda t: t.share_memory_())

    def type(self, dst_type):
        """Cast *every* parameter and buffer, integer ones included, to ``dst_type``.

        Unlike ``to`` and ``double``, this casts integer buffers too.

        Args:
            dst_type: a dtype (``torch.float64``) or a tensor type name
                (``"torch.DoubleTensor"``).

        Returns:
            self

        Example::

            >>> model.type(torch.float64)   # num_batches_tracked becomes float64 too
        """
        raise NotImplementedError("exercise 07: type")


def _convert(tensor, device, dtype, non_blocking, memory_format):
    """``tensor`` on ``device``; in ``dtype`` only if it is floating point or complex."""
    raise NotImplementedError("exercise 07: _convert")
