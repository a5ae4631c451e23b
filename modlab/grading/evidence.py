"""Evidence: what a misconception detector may look at.

When a check fails, both observations (torch.nn's and the submission's) are
decoded into plain Python values a detector can read: dicts stay dicts,
tuples become tuples, a tensor becomes a :class:`TensorView`, an expected
exception a :class:`RaisedView`. A detector asks questions such as "where
torch holds a ``Parameter``, what does the submission hold?" with
:meth:`Evidence.pairs`, and looks at the first difference itself through
:attr:`Evidence.difference`.

Runs on the trusted side only; nothing here executes the submission's code.
"""
from __future__ import annotations

from dataclasses import dataclass

from .compare import INDEX, Difference, Tolerance, compare, is_named_list
from .fields import Field, require_field
from .observe import DICT, EXCEPTION, FLOAT, OBJECT, TENSOR, TUPLE, decode_tensor


@dataclass(frozen=True)
class TensorView:
    """A tensor as observed: its class, dtype, shape, device, requires_grad and values."""

    cls: str
    dtype: str
    shape: tuple[int, ...]
    device: str
    requires_grad: bool
    record: dict

    def tolist(self):
        return decode_tensor(self.record).tolist()


@dataclass(frozen=True)
class RaisedView:
    """An exception a scenario observed with ``attempt()``."""

    type: str
    message: str


@dataclass(frozen=True)
class ObjectView:
    """A value the encoder could only name by its type."""

    type: str


def decode(value):
    """An encoded observation as plain Python values (see the module docstring)."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if TENSOR in value:
        t = value[TENSOR]
        return TensorView(t["class"], t["dtype"], tuple(t["shape"]), t["device"], t["requires_grad"], t)
    if EXCEPTION in value:
        return RaisedView(value[EXCEPTION]["type"], value[EXCEPTION]["message"])
    if TUPLE in value:
        return tuple(decode(item) for item in value[TUPLE])
    if DICT in value:
        return {key: decode(item) for key, item in value[DICT]}
    if OBJECT in value:
        return ObjectView(value[OBJECT])
    if FLOAT in value:
        return float(value[FLOAT])
    return value


@dataclass
class Evidence:
    """A failed check, as a detector sees it.

    Attributes:
        torch: torch.nn's whole observation, decoded.
        yours: the submission's whole observation, decoded (None if it raised).
        difference: the first difference, if both observed something.
        raised: the submission's exception record, if the scenario raised.
        tolerance: the scenario's tolerance for computed floats (None: exact).
    """

    torch: object
    yours: object
    difference: Difference | None = None
    raised: dict | None = None
    tolerance: Tolerance | None = None

    @classmethod
    def of(cls, expected, actual, difference: Difference | None, raised: dict | None,
           tolerance: Tolerance | None = None) -> "Evidence":
        return cls(decode(expected), None if actual is None else decode(actual), difference, raised, tolerance)

    def agree(self, a, b) -> bool:
        """Whether two decoded values agree as the comparison would judge them (within the tolerance)."""
        if isinstance(a, TensorView) and isinstance(b, TensorView):
            return compare({TENSOR: a.record}, {TENSOR: b.record}, self.tolerance) is None
        if isinstance(a, float) and isinstance(b, float) and self.tolerance is not None:
            return compare(a, b, self.tolerance) is None
        return same(a, b)

    def first_step(self) -> "Evidence":
        """Within a history (an observation that is a list of steps), the step
        where the worlds first part: what came before it agrees, and what comes
        after may only repeat its consequences. Any other observation as it is."""
        d = self.difference
        if not (d and d.path and d.path[0].kind == INDEX and isinstance(self.torch, list)
                and isinstance(self.yours, list)):
            return self
        index = d.path[0].value
        inner = Difference(d.path[1:], d.expected, d.actual, d.detail, d.missing, d.extra)
        return Evidence(self.torch[index], self.yours[index], inner, self.raised, self.tolerance)

    @property
    def here(self) -> tuple[object, object]:
        """torch's and the submission's values where the observations part, decoded."""
        if self.difference is None:
            return None, None
        return decode(self.difference.expected), decode(self.difference.actual)

    @property
    def missing(self) -> tuple[str, ...]:
        return self.difference.missing if self.difference else ()

    @property
    def extra(self) -> tuple[str, ...]:
        return self.difference.extra if self.difference else ()

    def differs_under(self, *keys: Field) -> bool:
        """Whether the first difference lies under one of these fields."""
        keys = tuple(map(require_field, keys))
        return self.difference is not None and any(key in self.difference.names for key in keys)

    def pairs(self, key: Field) -> list[tuple[object, object]]:
        """Every ``(torch, yours)`` pair of values held under the field ``key``,
        at the same place in both observations (both worlds must have it).

        Raises:
            UndeclaredField: ``key`` is a plain string, not the scenarios' :class:`Field`.
        """
        key = require_field(key)
        return self.pairs_where(lambda name, value: name == key)

    def pairs_where(self, wanted) -> list[tuple[object, object]]:
        """Every ``(torch, yours)`` pair at the same place in both observations
        whose field name and torch value satisfy ``wanted(name, torch_value)``."""
        return [(t, y) for name, t, y in self.fields() if wanted(name, t)]

    def fields(self) -> list[tuple[str, object, object]]:
        """Every ``(field name, torch value, your value)`` at the same place in
        both observations, outermost first (the top and list items have the name ``""``)."""
        found: list = []
        _walk("", self.torch, self.yours, found)
        return found

    def dicts_holding(self, *keys: Field) -> list[tuple[dict, dict]]:
        """The ``(torch, yours)`` pairs of dicts that hold all of ``keys`` in torch's
        world, where the submission's is a dict too (the views a probe returns)."""
        keys = tuple(map(require_field, keys))
        return [(t, y) for t, y in self.pairs_where(lambda name, value: isinstance(value, dict)
                                                    and all(key in value for key in keys)) if isinstance(y, dict)]

    def differing(self, key: Field) -> list[tuple[object, object]]:
        """The pairs of :meth:`pairs` that differ."""
        return [(t, y) for t, y in self.pairs(key) if not same(t, y)]


def _walk(name, torch_value, yours_value, found: list) -> None:
    found.append((name, torch_value, yours_value))
    if isinstance(torch_value, dict) and isinstance(yours_value, dict):
        for key, item in torch_value.items():
            if key in yours_value:
                _walk(key, item, yours_value[key], found)
    elif isinstance(torch_value, (list, tuple)) and isinstance(yours_value, (list, tuple)):
        if is_named_list(list(torch_value)) and is_named_list(list(yours_value)):
            yours_by_name = {key: item for key, item in yours_value}
            for key, item in torch_value:
                if key in yours_by_name:
                    _walk(key, item, yours_by_name[key], found)
        else:
            for item_t, item_y in zip(torch_value, yours_value):
                _walk("", item_t, item_y, found)


def raised(value, *types: str) -> bool:
    """Whether an observed value is an exception (of one of ``types``, if given)."""
    return isinstance(value, RaisedView) and (not types or value.type in types)


def same(a, b) -> bool:
    """Equality of decoded values (tensors by their record)."""
    if isinstance(a, TensorView) and isinstance(b, TensorView):
        return a.record == b.record
    return a == b


def named(value) -> dict:
    """A named list (``[[name, value], ...]``) or dict as a dict; anything else as {}."""
    if isinstance(value, dict):
        return value
    if isinstance(value, (list, tuple)) and is_named_list(list(value)):
        return {name: item for name, item in value}
    return {}


def names(value) -> list[str]:
    """The names of a named list or dict, or a list of strings, in order (repeats kept)."""
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(item, str) for item in value):
            return list(value)
        if is_named_list(list(value)):
            return [name for name, _ in value]
    return []
