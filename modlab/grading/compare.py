"""Compare two observations (plain data) and locate the first difference.

Runs on the trusted side only. Values that torch fixes exactly (names, order,
shapes, dtypes, initial weights under a seed) compare bit for bit; a scenario
that computes floats by a route a correct student may legitimately vary
passes a :class:`Tolerance`.

A difference is located in the observation's own names: a scenario returns
``{"parameters": ..., "buffers": ...}``, and a list of ``[name, value]`` pairs
(what ``named_parameters()`` yields) is compared name by name, so the place
reads ``parameters · 'decoder.weight' · dtype`` rather than ``[0][3][1]``.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import torch

from .observe import DICT, EXCEPTION, FLOAT, OBJECT, TENSOR, TUPLE, decode_tensor

TENSOR_FIELDS = ("class", "dtype", "shape", "device", "requires_grad")
KEY, NAME, INDEX, FIELD = "key", "name", "index", "field"


@dataclass(frozen=True)
class Tolerance:
    """``|actual - expected| <= atol + rtol * |expected|``, elementwise."""

    rtol: float = 1e-5
    atol: float = 1e-5


@dataclass(frozen=True)
class Step:
    """One step into an observation: a field of a dict (``KEY``), the value of a
    named pair (``NAME``), a position in a list (``INDEX``) or a tensor's
    attribute (``FIELD``)."""

    kind: str
    value: str | int

    def __str__(self) -> str:
        if self.kind == NAME:
            return shown_name(self.value)
        if self.kind == INDEX:
            return f"[{self.value}]"
        return str(self.value)


@dataclass(frozen=True)
class Difference:
    """Where two observations part, and what each world had there.

    Attributes:
        path: the steps from the observation's top to the place they part.
        expected: torch.nn's value there (encoded plain data).
        actual: the submission's value there.
        detail: what differs, when the values alone do not say (``missing
            `decoder.weight```, ``largest gap 0.3``).
        missing: names torch has there and the submission lacks.
        extra: names the submission has there and torch lacks (a name the
            submission has more often than torch counts once per repeat).
    """

    path: tuple[Step, ...]
    expected: object
    actual: object
    detail: str = ""
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """The path in the observation's names: ``parameters · 'decoder.weight' · dtype``."""
        return " · ".join(str(step) for step in self.path)

    @property
    def names(self) -> tuple[str, ...]:
        """The dict keys and pair names along the path, outermost first."""
        return tuple(step.value for step in self.path if step.kind in (KEY, NAME))


def compare(expected, actual, tolerance: Tolerance | None = None, path: tuple[Step, ...] = ()) -> Difference | None:
    """The first difference between torch's observation and the submission's, or None."""
    if _tag(expected) != _tag(actual):
        return Difference(path, expected, actual)
    tag = _tag(expected)
    if tag == TENSOR:
        return _compare_tensors(expected[TENSOR], actual[TENSOR], tolerance, path)
    if tag == EXCEPTION:
        same = expected[EXCEPTION]["type"] == actual[EXCEPTION]["type"]
        return None if same else Difference(path, expected, actual)
    if tag == DICT:
        return _compare_named(expected[DICT], actual[DICT], tolerance, path, KEY)
    if tag in (TUPLE, "list"):
        items_e, items_a = (expected[TUPLE], actual[TUPLE]) if tag == TUPLE else (expected, actual)
        if _named_or_empty(items_e) and _named_or_empty(items_a) and (items_e or items_a):
            return _compare_named(items_e, items_a, tolerance, path, NAME)
        return _compare_sequences(items_e, items_a, tolerance, path, expected, actual)
    if tag == "float" and tolerance is not None:
        close = abs(actual - expected) <= tolerance.atol + tolerance.rtol * abs(expected)
        return None if close else Difference(path, expected, actual)
    return None if expected == actual else Difference(path, expected, actual)


def is_named_list(items) -> bool:
    """Whether a list holds ``[name, value]`` pairs only (and at least one)."""
    return bool(items) and all(isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                               for item in items)


def _named_or_empty(items) -> bool:
    return not items or is_named_list(items)


def _compare_named(pairs_e: list, pairs_a: list, tolerance, path, kind: str) -> Difference | None:
    """Names first (which, how often, in what order: the difference then shows
    the names alone), then each value by its name."""
    names_e = [name for name, _ in pairs_e]
    names_a = [name for name, _ in pairs_a]
    if names_e != names_a:
        missing, extra = _multiset_gaps(names_e, names_a)
        return Difference(path, names_e, names_a, _names_detail(missing, extra), tuple(missing), tuple(extra))
    for (name, item_e), (_, item_a) in zip(pairs_e, pairs_a):
        found = compare(item_e, item_a, tolerance, path + (Step(kind, name),))
        if found:
            return found
    return None


def _compare_sequences(items_e: list, items_a: list, tolerance, path, whole_e, whole_a) -> Difference | None:
    if len(items_e) != len(items_a):
        if _all_strings(items_e, items_a):
            missing, extra = _multiset_gaps(items_e, items_a)
            return Difference(path, whole_e, whole_a, _names_detail(missing, extra), tuple(missing), tuple(extra))
        return Difference(path, whole_e, whole_a, f"{len(items_e)} items vs {len(items_a)}")
    for index, (item_e, item_a) in enumerate(zip(items_e, items_a)):
        found = compare(item_e, item_a, tolerance, path + (Step(INDEX, index),))
        if found:
            return found
    return None


def _compare_tensors(expected: dict, actual: dict, tolerance, path) -> Difference | None:
    for field in TENSOR_FIELDS:
        if expected[field] != actual[field]:
            return Difference(path + (Step(FIELD, field),), expected[field], actual[field])
    if expected["data"] == actual["data"]:
        return None
    if tolerance is not None and expected["dtype"] in _FLOATING:
        want, got = decode_tensor(expected).double(), decode_tensor(actual).double()
        gap = (got - want).abs()
        # An infinity is matched only by itself: relative to it, any gap would do.
        allowed = torch.where(want.isfinite(), tolerance.atol + tolerance.rtol * want.abs(), 0.0)
        # Equal values pass whatever the gap says: an infinity's gap to itself is NaN.
        equal = (got == want) | (torch.isnan(want) & torch.isnan(got))
        if bool(((gap <= allowed) | equal).all()):
            return None
        return Difference(path, {TENSOR: expected}, {TENSOR: actual}, f"largest gap {gap.nan_to_num(0).max().item():.3g}")
    return Difference(path, {TENSOR: expected}, {TENSOR: actual}, "values differ")


_FLOATING = {"float16", "bfloat16", "float32", "float64"}


def _tag(value) -> str:
    if isinstance(value, dict):
        for tag in (TENSOR, EXCEPTION, TUPLE, DICT, OBJECT, FLOAT):
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


def _multiset_gaps(expected: list, actual: list) -> tuple[list, list]:
    """Names torch has more often than the submission, and the other way round."""
    want, got = Counter(expected), Counter(actual)
    missing = [name for name in dict.fromkeys(expected) for _ in range(want[name] - got[name])]
    extra = [name for name in dict.fromkeys(actual) for _ in range(got[name] - want[name])]
    return missing, extra


def _names_detail(missing: list, extra: list) -> str:
    parts = []
    if missing:
        parts.append("missing " + ", ".join(_quoted(k) for k in missing[:5]))
    if extra:
        parts.append("extra " + ", ".join(_quoted(k) for k in extra[:5]))
    return "; ".join(parts) or "same names in a different order"


# The empty name is the walk's start itself (named_modules() yields the module as ``""``).
ROOT_NAME = "the root itself ('')"


def shown_name(name) -> str:
    """A name as a place in an observation reads: quoted, the empty one said in words."""
    return ROOT_NAME if name == "" else repr(name)


def _quoted(name) -> str:
    return ROOT_NAME if name == "" else f"`{name}`"


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
    if tag == EXCEPTION:
        return f"raised {value[EXCEPTION]['type']}"
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
