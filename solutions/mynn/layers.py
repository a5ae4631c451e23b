"""Exercise 08 (part 2): real layers.

Four layers built on your ``Module``: ``Linear``, ``ReLU``, ``BatchNorm1d``
and ``MSELoss``. Each one is ordinary Python over the registers: parameters
for what trains, buffers for what is state but not trained, plain attributes
for settings. Forward passes are a few tensor operations you can read.

Two things must match torch exactly, because torch fixes them exactly:
the initial weights under a seed (the same random calls in the same order)
and ``print(model)`` (through ``extra_repr``). Computed values may differ in
the last bits from torch's fused kernels; the graders allow for that.
"""
import inspect
import math

import torch

from .module import Module
from .parameter import Parameter

# torch 2.12 added BatchNorm's keyword-only `bias` switch and shows it in the
# repr. mynn prints what the installed torch prints, so print(model) matches
# torch on older and newer versions alike.
BATCHNORM_SHOWS_BIAS = "bias" in inspect.signature(torch.nn.BatchNorm1d).parameters


class Linear(Module):
    """Applies an affine map to the last dimension: ``y = x @ weight.T + bias``.

    Args:
        in_features: size of each input sample.
        out_features: size of each output sample.
        bias: if ``False``, no bias is learned (the ``bias`` slot holds None).
        device: where the parameters are created.
        dtype: the parameters' floating-point type.

    Attributes:
        weight: ``Parameter`` of shape ``(out_features, in_features)``, drawn
            from ``U(-1/sqrt(in_features), 1/sqrt(in_features))``.
        bias: ``Parameter`` of shape ``(out_features,)``, drawn from the same
            range, or None.

    Shape:
        input ``(*, in_features)``, output ``(*, out_features)``.

    Example::

        >>> torch.manual_seed(0)
        >>> layer = Linear(20, 30)
        >>> layer(torch.randn(128, 20)).shape
        torch.Size([128, 30])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        ### BEGIN SOLUTION
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        ### END SOLUTION

    def reset_parameters(self):
        """Draw new weights exactly as ``torch.nn.Linear`` does.

        The same random calls in the same order, so that after
        ``torch.manual_seed(s)`` both give bit-identical weights:
        ``init.kaiming_uniform_(weight, a=math.sqrt(5))``, then the bias
        uniform in ``±1/sqrt(fan_in)``.
        """
        ### BEGIN SOLUTION
        torch.nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            torch.nn.init.uniform_(self.bias, -bound, bound)
        ### END SOLUTION

    def forward(self, input):
        """``input @ weight.T + bias``, over any leading dimensions."""
        ### BEGIN SOLUTION
        output = input @ self.weight.T
        if self.bias is not None:
            output = output + self.bias
        return output
        ### END SOLUTION

    def extra_repr(self):
        """``in_features=2, out_features=3, bias=True``"""
        ### BEGIN SOLUTION
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
        ### END SOLUTION


class ReLU(Module):
    """Applies ``max(0, x)`` elementwise.

    Args:
        inplace: overwrite the input instead of returning a new tensor.

    Example::

        >>> ReLU()(torch.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """

    def __init__(self, inplace=False):
        ### BEGIN SOLUTION
        super().__init__()
        self.inplace = inplace
        ### END SOLUTION

    def forward(self, input):
        """Negative entries become 0; the gradient is 1 where ``input > 0``, else 0."""
        ### BEGIN SOLUTION
        return torch.relu_(input) if self.inplace else torch.relu(input)
        ### END SOLUTION

    def extra_repr(self):
        """``inplace=True``, or nothing when not in place."""
        ### BEGIN SOLUTION
        return "inplace=True" if self.inplace else ""
        ### END SOLUTION


class BatchNorm1d(Module):
    """Normalizes each feature over the batch, then scales and shifts it.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, per feature
    (dimension 1). In training mode ``mean`` and ``var`` are the batch's
    (``var`` biased), and the running estimates are updated::

        running = (1 - momentum) * running + momentum * batch_statistic

    with the *unbiased* batch variance for ``running_var``, and
    ``num_batches_tracked`` counting the batches. In eval mode the running
    estimates are used and nothing is updated.

    Args:
        num_features: ``C`` in an input of shape ``(N, C)`` or ``(N, C, L)``.
        eps: added to the variance for numerical stability.
        momentum: weight of the newest batch in the running estimates;
            ``None`` gives a cumulative average (weight ``1 / num_batches_tracked``).
        affine: learn ``weight`` (ones) and ``bias`` (zeros).
        track_running_stats: keep running estimates in buffers; if ``False``
            the buffers are None and batch statistics are used in eval mode too.
        device: where parameters and buffers are created.
        dtype: the floating-point type of parameters and running estimates.
        bias: with ``affine``, whether to learn the ``bias`` (keyword only).

    Attributes:
        running_mean: buffer, zeros; running_var: buffer, ones;
        num_batches_tracked: buffer, ``torch.tensor(0)`` (an integer, int64).

    An empty batch (no values per feature) gives an empty output and leaves
    the running estimates as they are; ``num_batches_tracked`` counts it all
    the same, as torch does.

    Checkpoints: the class is at version 2 (``_version``), the version that
    added ``num_batches_tracked``; a checkpoint saved at version 1 (or with no
    version) loads without it, see ``_load_from_state_dict``.

    Raises:
        ValueError: an input that is not 2D or 3D, or, when batch statistics
            are used, exactly one value per feature.

    Example::

        >>> bn = BatchNorm1d(3)
        >>> out = bn(torch.randn(8, 3))
        >>> bn.num_batches_tracked
        tensor(1)
    """

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        ### BEGIN SOLUTION
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        self.register_parameter("weight", Parameter(torch.empty(num_features, device=device, dtype=dtype))
                                if affine else None)
        self.register_parameter("bias", Parameter(torch.empty(num_features, device=device, dtype=dtype))
                                if affine and bias else None)
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", torch.ones(num_features, device=device, dtype=dtype))
            # A count, so an integer: .to(float64) and .half() leave it alone.
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long, device=device))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()
        ### END SOLUTION

    def reset_running_stats(self):
        """Start the running estimates afresh (when the layer tracks them):
        ``running_mean`` zeros, ``running_var`` ones, ``num_batches_tracked`` 0,
        in place."""
        ### BEGIN SOLUTION
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()
        ### END SOLUTION

    def reset_parameters(self):
        """Reset the running estimates, then (with ``affine``) ``weight`` to ones
        and ``bias`` to zeros, in place, as ``torch.nn.BatchNorm1d`` does; the
        constructor calls it."""
        ### BEGIN SOLUTION
        self.reset_running_stats()
        if self.affine:
            torch.nn.init.ones_(self.weight)
            if self.bias is not None:
                torch.nn.init.zeros_(self.bias)
        ### END SOLUTION

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Load a checkpoint, including one saved before version 2: without a
        ``num_batches_tracked`` key, the counter keeps its value (a fresh 0 if
        it lives on the ``meta`` device) instead of being reported missing.

        The arguments are those of ``Module._load_from_state_dict``
        (exercise 06); ``local_metadata.get("version")`` is the version the
        checkpoint was saved at (``None`` when it records none).
        """
        ### BEGIN SOLUTION
        version = local_metadata.get("version")
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            counter = self.num_batches_tracked
            usable = counter is not None and counter.device.type != "meta"
            state_dict[key] = counter if usable else torch.tensor(0, dtype=torch.long)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)
        ### END SOLUTION

    def forward(self, input):
        """Normalize with batch statistics (training, or no running estimates)
        or with the running estimates (eval)."""
        ### BEGIN SOLUTION
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
        # Statistics per feature: over the batch, and over the length of a 3D input.
        dims = (0,) if input.dim() == 2 else (0, 2)
        shape = (1, -1) if input.dim() == 2 else (1, -1, 1)
        if self.training or self.running_mean is None:
            count = input.shape[0] * math.prod(input.shape[2:])  # values per feature
            if count == 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.size()}")
            if count == 0:  # an empty batch: statistics of nothing would be NaN
                mean = var = torch.zeros(input.shape[1], dtype=input.dtype, device=input.device)
            else:
                mean = input.mean(dim=dims)
                var = input.var(dim=dims, unbiased=False)
            if self.training and self.track_running_stats:
                self._track(mean, var * count / (count - 1), count)
        else:
            mean, var = self.running_mean, self.running_var
        output = (input - mean.reshape(shape)) / torch.sqrt(var.reshape(shape) + self.eps)
        if self.weight is not None:
            output = output * self.weight.reshape(shape)
        if self.bias is not None:
            output = output + self.bias.reshape(shape)
        return output
        ### END SOLUTION

    def _track(self, mean, unbiased_var, count):
        """Count one batch and fold its statistics into the running estimates,
        in place and outside autograd: buffers are state, not part of the
        graph. An empty batch (``count`` 0) is counted but changes no estimate."""
        ### BEGIN SOLUTION
        with torch.no_grad():
            self.num_batches_tracked.add_(1)
            if count == 0:
                return
            momentum = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
            self.running_mean.mul_(1 - momentum).add_(mean, alpha=momentum)
            self.running_var.mul_(1 - momentum).add_(unbiased_var, alpha=momentum)
        ### END SOLUTION

    def extra_repr(self):
        """``3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True``
        (with ``bias=True`` before ``track_running_stats`` where the installed
        torch shows it: see ``BATCHNORM_SHOWS_BIAS``)."""
        ### BEGIN SOLUTION
        bias = f"bias={self.bias is not None}, " if BATCHNORM_SHOWS_BIAS else ""
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"{bias}track_running_stats={self.track_running_stats}")
        ### END SOLUTION


class MSELoss(Module):
    """The mean squared error between ``input`` and ``target``.

    Args:
        reduction: ``"mean"`` (the default), ``"sum"``, or ``"none"`` for the
            elementwise squared errors. (torch's deprecated ``size_average``
            and ``reduce`` arguments are left out.)

    Raises:
        ValueError: at the forward pass, for an unknown ``reduction``.

    Example::

        >>> MSELoss()(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 0.0]))
        tensor(5.)
    """

    def __init__(self, reduction="mean"):
        ### BEGIN SOLUTION
        super().__init__()
        self.reduction = reduction
        ### END SOLUTION

    def forward(self, input, target):
        """``(input - target) ** 2``, reduced as ``reduction`` says."""
        ### BEGIN SOLUTION
        squared = (input - target) ** 2
        if self.reduction == "mean":
            return squared.mean()
        if self.reduction == "sum":
            return squared.sum()
        if self.reduction == "none":
            return squared
        raise ValueError(f"{self.reduction} is not a valid value for reduction")
        ### END SOLUTION
