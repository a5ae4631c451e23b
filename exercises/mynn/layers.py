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
        raise NotImplementedError("exercise 08: __init__")

    def reset_parameters(self):
        """Draw new weights exactly as ``torch.nn.Linear`` does.

        The same random calls in the same order, so that after
        ``torch.manual_seed(s)`` both give bit-identical weights:
        ``init.kaiming_uniform_(weight, a=math.sqrt(5))``, then the bias
        uniform in ``±1/sqrt(fan_in)``.
        """
        raise NotImplementedError("exercise 08: reset_parameters")

    def forward(self, input):
        """``input @ weight.T + bias``, over any leading dimensions."""
        raise NotImplementedError("exercise 08: forward")

    def extra_repr(self):
        """``in_features=2, out_features=3, bias=True``"""
        raise NotImplementedError("exercise 08: extra_repr")


class ReLU(Module):
    """Applies ``max(0, x)`` elementwise.

    Args:
        inplace: overwrite the input instead of returning a new tensor.

    Example::

        >>> ReLU()(torch.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """

    def __init__(self, inplace=False):
        raise NotImplementedError("exercise 08: __init__")

    def forward(self, input):
        """Negative entries become 0; the gradient is 1 where ``input > 0``, else 0."""
        raise NotImplementedError("exercise 08: forward")

    def extra_repr(self):
        """``inplace=True``, or nothing when not in place."""
        raise NotImplementedError("exercise 08: extra_repr")


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
        raise NotImplementedError("exercise 08: __init__")

    def reset_running_stats(self):
        """Start the running estimates afresh (when the layer tracks them):
        ``running_mean`` zeros, ``running_var`` ones, ``num_batches_tracked`` 0,
        in place."""
        raise NotImplementedError("exercise 08: reset_running_stats")

    def reset_parameters(self):
        """Reset the running estimates, then (with ``affine``) ``weight`` to ones
        and ``bias`` to zeros, in place, as ``torch.nn.BatchNorm1d`` does; the
        constructor calls it."""
        raise NotImplementedError("exercise 08: reset_parameters")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Load a checkpoint, including one saved before version 2: without a
        ``num_batches_tracked`` key, the counter keeps its value (a fresh 0 if
        it lives on the ``meta`` device) instead of being reported missing.

        The arguments are those of ``Module._load_from_state_dict``
        (exercise 06); ``local_metadata.get("version")`` is the version the
        checkpoint was saved at (``None`` when it records none).
        """
        raise NotImplementedError("exercise 08: _load_from_state_dict")

    def forward(self, input):
        """Normalize with batch statistics (training, or no running estimates)
        or with the running estimates (eval)."""
        raise NotImplementedError("exercise 08: forward")

    def _track(self, mean, unbiased_var, count):
        """Count one batch and fold its statistics into the running estimates,
        in place and outside autograd: buffers are state, not part of the
        graph. An empty batch (``count`` 0) is counted but changes no estimate."""
        raise NotImplementedError("exercise 08: _track")

    def extra_repr(self):
        """``3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True``
        (with ``bias=True`` before ``track_running_stats`` where the installed
        torch shows it: see ``BATCHNORM_SHOWS_BIAS``)."""
        raise NotImplementedError("exercise 08: extra_repr")


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
        raise NotImplementedError("exercise 08: __init__")

    def forward(self, input, target):
        """``(input - target) ** 2``, reduced as ``reduction`` says."""
        raise NotImplementedError("exercise 08: forward")
