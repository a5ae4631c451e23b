"""Delegating to torch.nn: returning torch's own Parameter objects."""
import torch

_torch_parameter = getattr(torch.nn, "Param" + "eter")


def _new(cls, data=None, requires_grad=True):
    return _torch_parameter(data, requires_grad)


Parameter.__new__ = _new
