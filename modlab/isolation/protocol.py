"""What crosses a process boundary, and the checks on what comes back.

Between the grading process and the zygote: JSON frames (:mod:`.frames`).
Between the grading process and a worker: JSON over a
:class:`multiprocessing.connection.Connection` (length-prefixed bytes; no
pickle). Everything a worker sends is untrusted: :func:`check_answer` looks
at its shape before any other code reads it, so a malformed or hostile
answer costs the submission that test, never the grading process.
"""
from __future__ import annotations

import base64
import binascii
import json
import math

import torch

from modlab.grading.observe import DICT, EXCEPTION, FLOAT, OBJECT, TENSOR, TUPLE

from .frames import ProtocolError

MAX_DEPTH = 120  # observations nest at most 50 levels; tuples and dicts add one each
TENSOR_KEYS = {"class": str, "module": str, "dtype": str, "shape": list, "device": str,
               "requires_grad": bool, "data": str}


# -- a worker's answers --------------------------------------------------------

def parse_answer(raw: bytes) -> dict:
    """JSON bytes from a worker, as a dict.

    Raises:
        ProtocolError: not JSON, nested too deep for the parser, or not an object.
    """
    try:
        answer = json.loads(raw)
    except (ValueError, RecursionError):
        raise ProtocolError("the worker answered something that is not JSON") from None
    if not isinstance(answer, dict):
        raise ProtocolError("the worker answered something that is not a JSON object")
    return answer


def check_hello(hello: dict) -> None:
    """A worker's first message: loaded or not, what confines it, what it delegates.

    Raises:
        ProtocolError: it is not shaped so.
    """
    loaded, sandbox, tamper = hello.get("loaded"), hello.get("sandbox", {}), hello.get("tamper", [])
    if "sandbox_error" in hello and isinstance(hello["sandbox_error"], str):
        return
    if not (isinstance(loaded, bool) and isinstance(sandbox, dict) and _strings(sandbox.values())
            and isinstance(tamper, list) and _strings(tamper) and (loaded or _is_raised(hello.get("error")))):
        raise ProtocolError("the worker's hello is malformed")


def _strings(values) -> bool:
    return all(isinstance(value, str) for value in values)


def check_answer(answer: dict) -> dict:
    """An answer to a ``run`` request: an observation, or the exception raised.

    An observation comes as JSON text (``observed``), read only when it is
    needed (:func:`observation`): one the submission makes exactly as torch.nn
    does is the same text as torch's, and needs no reading at all.

    Raises:
        ProtocolError: neither, an observation that is not text, or one the
            worker claims to have read for this side.
    """
    if "observation" in answer:  # this side's reading of the text (see observation): never sent
        raise ProtocolError("the worker's answer holds an observation already read")
    if "observed" in answer:
        if not isinstance(answer["observed"], str):
            raise ProtocolError("the worker's observation is not text")
    elif not _is_raised(answer.get("raised")):
        raise ProtocolError("the worker's answer holds neither an observation nor an exception")
    tamper = answer.setdefault("tamper", [])
    if not (isinstance(tamper, list) and _strings(tamper)):
        raise ProtocolError("malformed tamper report")
    return answer


def observation(answer: dict):
    """The answer's observation as plain data, read from its text the first time.

    Raises:
        ProtocolError: the text is not JSON, or not plain data in the shape
            :mod:`modlab.grading.observe` makes.
    """
    if "observation" not in answer:
        try:
            value = json.loads(answer["observed"])
        except (ValueError, RecursionError):
            raise ProtocolError("the worker's observation is not JSON") from None
        _check_value(value, 0)
        answer["observation"] = value
    return answer["observation"]


def has_observation(answer: dict) -> bool:
    return "observed" in answer


def _is_raised(raised) -> bool:
    return (isinstance(raised, dict) and isinstance(raised.get("type"), str)
            and isinstance(raised.get("message"), str)
            and all(isinstance(raised.get(key, ""), str) for key in ("file", "limit", "by", "name", "scenario_file"))
            and all(isinstance(raised.get(key, 0), int) for key in ("line", "scenario_line"))
            and _is_frames(raised.get("frames", [])) and is_described(raised.get("scenario_values", {})))


def is_described(values) -> bool:
    """``{name: kind}`` in words, a few short ones (:mod:`.line_values`)."""
    return isinstance(values, dict) and len(values) <= 8 and all(
        isinstance(k, str) and isinstance(v, str) and len(k) <= 100 and len(v) <= 200 for k, v in values.items())


def _is_frames(frames) -> bool:
    """``[[file, line, function], ...]``, as the worker records an exception's path."""
    return isinstance(frames, list) and len(frames) <= 50 and all(
        isinstance(f, list) and len(f) == 3 and isinstance(f[0], str) and isinstance(f[1], int)
        and isinstance(f[2], str) for f in frames)


def _check_value(value, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ProtocolError("observation nested too deep")
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ProtocolError("a bare non-finite float in an observation")
        return
    if isinstance(value, list):
        for item in value:
            _check_value(item, depth + 1)
        return
    if not isinstance(value, dict) or len(value) != 1:
        raise ProtocolError("an observation holds a value that is not plain data")
    ((tag, payload),) = value.items()
    if tag == TENSOR:
        _check_tensor(payload)
    elif tag == EXCEPTION:
        if not _is_raised(payload):
            raise ProtocolError("malformed exception record")
    elif tag in (OBJECT, FLOAT):
        if not isinstance(payload, str):
            raise ProtocolError(f"malformed {tag} record")
    elif tag == TUPLE:
        if not isinstance(payload, list):
            raise ProtocolError("malformed tuple")
        _check_value(payload, depth + 1)
    elif tag == DICT:
        if not (isinstance(payload, list) and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                                                  for p in payload)):
            raise ProtocolError("malformed mapping")
        for _, item in payload:
            _check_value(item, depth + 1)
    else:
        raise ProtocolError(f"unknown observation tag {tag[:40]!r}")


def _check_tensor(record) -> None:
    if not isinstance(record, dict) or set(record) != set(TENSOR_KEYS) or not all(
            isinstance(record[key], kind) for key, kind in TENSOR_KEYS.items()):
        raise ProtocolError("malformed tensor record")
    dtype = getattr(torch, record["dtype"], None)
    shape = record["shape"]
    if not isinstance(dtype, torch.dtype) or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise ProtocolError("tensor record with an unknown dtype or a bad shape")
    try:
        size = len(base64.b64decode(record["data"], validate=True))
    except (binascii.Error, ValueError):
        raise ProtocolError("tensor record whose data is not base64") from None
    if size != math.prod(shape) * dtype.itemsize:
        raise ProtocolError("tensor record whose data does not fill its shape")
