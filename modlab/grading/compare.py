"""Compare two observations (plain data) and describe the first difference.

Runs on the trusted side only. Values that torch fixes exactly (names, order,
shapes, dtypes, initial weights under a seed) compare bit for bit; a scenario
that computes floats by a route a correct student may legitimately vary
passes a :class:`Tolerance`.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from .observe import DICT, FLOAT, OBJECT, RAISED, TENSOR, TUPLE, decode_tensor

TENSOR_FIELDS = ("class", "dtype", "shape", "device", "requires_grad")


@dataclass(frozen=True)
class Tolerance:
    """``|actual - expected| <= atol + rtol * |expected|``, elementwise."""

    rtol: float = 1e-5
    atol: float = 1e-5


@dataclass(frozen=True)
class Difference:
    """Where two observations part, and what each world had there."""

    path: str
    expected: object
    actual: object
    detail: str = ""

    def describe(self) -> str:
        where = f" at {self.path}" if self.path else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"torch.nn gave {show(self.expected)}, your mynn gave {show(self.actual)}{where}{detail}"


def compare(expected, actual, tolerance: Tolerance | None = None, path: str = "") -> Difference | None:
    """The first difference between torch's observation and the submission's, or None."""
    if _tag(expected) != _tag(actual):
        return Difference(path, expected, actual)
    tag = _tag(expected)
    if tag == TENSOR:
        return _compare_tensors(expected[TENSOR], actual[TENSOR], tolerance, path)
    if tag == RAISED:
        same = expected[RAISED]["type"] == actual[RAISED]["type"]
        return None if same else Difference(path, expected, actual)
    if tag in (TUPLE, "list"):
        items_e, items_a = (expected[TUPLE], actual[TUPLE]) if tag == TUPLE else (expected, actual)
        return _compare_sequences(items_e, items_a, tolerance, path)
    if tag == DICT:
        keys_e = [key for key, _ in expected[DICT]]
        keys_a = [key for key, _ in actual[DICT]]
        if keys_e != keys_a:
            return Difference(path, keys_e, keys_a, _key_detail(keys_e, keys_a))
        for (key, item_e), (_, item_a) in zip(expected[DICT], actual[DICT]):
            found = compare(item_e, item_a, tolerance, f"{path}[{key!r}]")
            if found:
                return found
        return None
    if tag == "float" and tolerance is not None:
        close = abs(actual - expected) <= tolerance.atol + tolerance.rtol * abs(expected)
        return None if close else Difference(path, expected, actual)
    return None if expected == actual else Difference(path, expected, actual)


def _compare_sequences(expected: list, actual: list, tolerance, path: str) -> Difference | None:
    if len(expected) != len(actual):
        detail = _key_detail(expected, actual) if _all_strings(expected, actual) else f"{len(expected)} items vs {len(actual)}"
        return Difference(path, expected, actual, detail)
    for index, (item_e, item_a) in enumerate(zip(expected, actual)):
        found = compare(item_e, item_a, tolerance, f"{path}[{index}]")
        if found:
            return found
    return None


def _compare_tensors(expected: dict, actual: dict, tolerance, path: str) -> Difference | None:
    for field in TENSOR_FIELDS:
        if expected[field] != actual[field]:
            return Difference(f"{path}.{field}" if path else field, expected[field], actual[field])
    if expected["data"] == actual["data"]:
        return None
    if tolerance is not None and expected["dtype"] in _FLOATING:
        want, got = decode_tensor(expected).double(), decode_tensor(actual).double()
        gap = (got - want).abs()
        allowed = tolerance.atol + tolerance.rtol * want.abs()
        both_nan = torch.isnan(want) & torch.isnan(got)
        if bool(((gap <= allowed) | both_nan).all()):
            return None
        return Difference(path, {TENSOR: expected}, {TENSOR: actual}, f"largest gap {gap.nan_to_num(0).max().item():.3g}")
    return Difference(path, {TENSOR: expected}, {TENSOR: actual}, "values differ")


_FLOATING = {"float16", "bfloat16", "float32", "float64"}


def _tag(value) -> str:
    if isinstance(value, dict):
        for tag in (TENSOR, RAISED, TUPLE, DICT, OBJECT, FLOAT):
            if tag in value:
                return tag
        return "malformed"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float" if isinstance(value, float) else "int"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


def _all_strings(*lists) -> bool:
    return all(isinstance(item, str) for items in lists for item in items)


def _key_detail(expected: list, actual: list) -> str:
    missing = [key for key in expected if key not in actual]
    extra = [key for key in actual if key not in expected]
    parts = []
    if missing:
        parts.append("missing " + ", ".join(f"`{k}`" for k in missing[:5]))
    if extra:
        parts.append("extra " + ", ".join(f"`{k}`" for k in extra[:5]))
    if not parts:
        parts.append("same names in a different order")
    return "; ".join(parts)


def show(value, limit: int = 160) -> str:
    """A short, readable rendering of an observation for feedback."""
    text = _show(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _show(value) -> str:
    tag = _tag(value)
    if tag == TENSOR:
        t = value[TENSOR]
        grad = ", requires_grad" if t["requires_grad"] else ""
        kind = "" if t["class"] == "Tensor" else f"{t['class']} "
        values = _preview(t)
        return f"{kind}tensor({values}{t['dtype']}, shape {tuple(t['shape'])}, {t['device']}{grad})"
    if tag == RAISED:
        return f"raised {value[RAISED]['type']}"
    if tag == TUPLE:
        return "(" + ", ".join(_show(item) for item in value[TUPLE]) + ("," if len(value[TUPLE]) == 1 else "") + ")"
    if tag == DICT:
        return "{" + ", ".join(f"{key!r}: {_show(item)}" for key, item in value[DICT]) + "}"
    if tag == OBJECT:
        return f"<{value[OBJECT].rsplit('.', 1)[-1]} object>"
    if tag == FLOAT:
        return value[FLOAT]
    if tag == "list":
        return "[" + ", ".join(_show(item) for item in value) + "]"
    return repr(value)


def _preview(record: dict) -> str:
    if not record["shape"] or len(record["shape"]) == 1 and record["shape"][0] <= 4:
        try:
            return f"{decode_tensor(record).tolist()}, "
        except (TypeError, RuntimeError, ValueError):
            return ""
    return ""
