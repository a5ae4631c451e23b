"""What exercise 01's scenarios observe of a Parameter's copies: after ``copy.deepcopy``
and after a round trip through ``torch.save`` / ``torch.load``."""
from __future__ import annotations

import io

import torch

from modlab.grading.fields import Field

# The fields scenarios observe under and detectors read, each defined once here.
P_CLASS = Field("type(p).__name__")
P_REQUIRES_GRAD = Field("p.requires_grad")
P_SHAPE = Field("p.shape")
SHARES_STORAGE = Field("p shares data's storage")
KEYWORD_FALSE = Field("Parameter(t, requires_grad=False).requires_grad")
POSITIONAL_FALSE = Field("Parameter(t, False).requires_grad")
UNDER_NO_GRAD = Field("under no_grad: p.requires_grad")
EMPTY = Field("Parameter()")
RESULT_TYPES = Field("types of the results")
FLAGS = Field("requires_grad")
REPR_TRAINED = Field("repr(Parameter(torch.ones(2)))")
REPR_FROZEN = Field("repr(Parameter(torch.zeros(1), requires_grad=False))")
COPY_CLASS = Field("type(copy).__name__")
COPY_IS_P = Field("copy is p")
COPY_SHARES_STORAGE = Field("copy shares p's storage")
COPY_REQUIRES_GRAD = Field("copy.requires_grad")
COPIES_ONE_OBJECT = Field("both copies are one object")
LOADED_CLASS = Field("type(loaded).__name__")
LOADED_REQUIRES_GRAD = Field("loaded.requires_grad")
LOADED_ONE_OBJECT = Field("both loaded are one object")


def copied(p, twin) -> dict:
    """What a copy of ``p`` is: its class, identity, storage, requires_grad and values."""
    return {P_CLASS: type(p).__name__, P_REQUIRES_GRAD: p.requires_grad, P_SHAPE: list(p.shape),
            COPY_CLASS: type(twin).__name__, COPY_IS_P: twin is p,
            COPY_SHARES_STORAGE: twin.data_ptr() == p.data_ptr(), COPY_REQUIRES_GRAD: twin.requires_grad,
            "copy": twin}


def round_trip(p):
    buffer = io.BytesIO()
    torch.save(p, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=False)


def loaded(p, twin) -> dict:
    """What torch.save and torch.load made of ``p``."""
    return {P_CLASS: type(p).__name__, P_REQUIRES_GRAD: p.requires_grad, P_SHAPE: list(p.shape),
            LOADED_CLASS: type(twin).__name__, LOADED_REQUIRES_GRAD: twin.requires_grad, "loaded": twin}
