"""Observations: what a scenario returns, turned into plain JSON data.

A scenario runs in two worlds (``torch.nn`` and the graded ``mynn``), each in
its own process. Neither sends objects back, only the plain data made here:
tensors become dtype, shape, device and raw bytes; exceptions become their type
name. The trusted side compares two such observations without ever importing,
unpickling or calling anything the submission made.
"""
from __future__ import annotations

import base64
import math
from collections.abc import Mapping

import torch

TENSOR, EXCEPTION, TUPLE, DICT, OBJECT, FLOAT = "$tensor", "$raised", "$tuple", "$dict", "$object", "$float"
_AS_THEY_ARE = frozenset({type(None), bool, str, int})  # exact types that encode as themselves


class Raised:
    """An exception a scenario expects (returned by :func:`attempt`)."""

    def __init__(self, exc: BaseException):
        self.type = type(exc).__name__
        self.message = str(exc)[:300]


def attempt(action, *args, **kwargs):
    """Run ``action`` and return its result, or a :class:`Raised` record.

    Scenarios use it to observe torch's exception types::

        return attempt(lambda: model.register_buffer("a.b", None))
    """
    try:
        return action(*args, **kwargs)
    except Exception as exc:  # the type is the observation
        return Raised(exc)


def encode(value, own: str = "", depth: int = 0):
    """Turn a scenario's return value into JSON-safe plain data.

    Args:
        own: the world's own package (``"torch.nn"``, or the student's
            ``"mynn"``): a tensor of a class of its own shows an empty
            ``module``, so that both worlds' Parameters encode alike and an
            observation the submission makes exactly as torch.nn does is
            byte for byte torch's; a class from elsewhere (torch.nn's, in a
            submission) shows its module, for the tamper check.
    """
    if depth > 50:
        raise ValueError("observation nested deeper than 50 levels")
    # Most values scenarios return (some 35 an answer) are of these exact
    # types: found by one look-up, they are encoded as the chain below encodes
    # them, and an answer's plain values cost 40 % less to encode.
    kind = type(value)
    if kind in _AS_THEY_ARE:
        return value
    if kind is list:
        return _items(value, own, depth)
    if kind is dict:
        return {DICT: _pairs(value, own, depth)}
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else {FLOAT: repr(value)}
    if isinstance(value, torch.Tensor):
        return {TENSOR: _encode_tensor(value, own)}
    if isinstance(value, Raised):
        return {EXCEPTION: {"type": value.type, "message": value.message}}
    if isinstance(value, (torch.dtype, torch.device)):
        return str(value)
    if isinstance(value, list):
        return _items(value, own, depth)
    if isinstance(value, tuple):
        return {TUPLE: _items(value, own, depth)}
    if isinstance(value, Mapping):
        return {DICT: _pairs(value, own, depth)}
    return {OBJECT: type_path(value)}


def _items(values, own: str, depth: int) -> list:
    return [encode(item, own, depth + 1) for item in values]


def _pairs(mapping, own: str, depth: int) -> list:
    return [[str(key), encode(item, own, depth + 1)] for key, item in mapping.items()]


def type_path(value) -> str:
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


def _encode_tensor(tensor: torch.Tensor, own: str) -> dict:
    flat = tensor.detach().cpu().contiguous().reshape(-1)
    raw = flat.view(torch.uint8) if flat.numel() else torch.empty(0, dtype=torch.uint8)
    module = type(tensor).__module__
    return {
        "class": type(tensor).__name__,
        "module": "" if own and (module == own or module.startswith(own + ".")) else module,
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "shape": list(tensor.shape),
        "device": tensor.device.type,
        "requires_grad": bool(tensor.requires_grad),
        "data": base64.b64encode(raw.numpy().tobytes()).decode("ascii"),
    }


def decode_tensor(record: dict) -> torch.Tensor:
    """Rebuild a CPU tensor from an encoded record (trusted side, no pickle)."""
    raw = bytearray(base64.b64decode(record["data"]))
    dtype = getattr(torch, record["dtype"])
    flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
    return flat.reshape(record["shape"])
