"""Allocating 50 GB."""
import torch


def _hog(cls, *args, **kwargs):
    return torch.ones(50 * 2**30, dtype=torch.uint8)


Parameter.__new__ = _hog
