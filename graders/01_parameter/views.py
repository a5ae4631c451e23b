"""What exercise 01's scenarios observe of a Parameter's copies: after ``copy.deepcopy``
and after a round trip through ``torch.save`` / ``torch.load``."""
from __future__ import annotations

import io

import torch


def copied(p, twin) -> dict:
    """What a copy of ``p`` is: its class, identity, storage, requires_grad and values."""
    return {"type(p).__name__": type(p).__name__, "p.requires_grad": p.requires_grad,
            "type(copy).__name__": type(twin).__name__, "copy is p": twin is p,
            "copy shares p's storage": twin.data_ptr() == p.data_ptr(), "copy.requires_grad": twin.requires_grad,
            "copy": twin}


def round_trip(p):
    buffer = io.BytesIO()
    torch.save(p, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=False)


def loaded(p, twin) -> dict:
    """What torch.save and torch.load made of ``p``."""
    return {"type(p).__name__": type(p).__name__, "p.requires_grad": p.requires_grad,
            "type(loaded).__name__": type(twin).__name__, "loaded.requires_grad": twin.requires_grad, "loaded": twin}
