"""The contract of comparison: what makes two observations differ, and how a difference is named.

For every field the comparison reads (a tensor's class, dtype, shape, device,
requires_grad and values, a gradient, an exception's type, the order of
names), an observation that differs from torch.nn's in that field alone is a
mismatch, and the difference names the field. Floats are equal only bit for
bit unless the scenario declares a tolerance, and then that tolerance, no
other, decides.
"""
import math

import pytest
import torch

from modlab.grading.compare import FIELD, Difference, Tolerance, compare
from modlab.grading.observe import EXCEPTION, Raised, TENSOR, encode


def observed(value):
    """A value as a worker of torch.nn's world observes it."""
    return encode(value, own="torch.nn")


def parted(torch_value, your_value, tolerance=None) -> Difference:
    difference = compare(observed(torch_value), observed(your_value), tolerance)
    assert difference is not None, "the comparison found no difference"
    return difference


def same(torch_value, your_value, tolerance=None) -> bool:
    return compare(observed(torch_value), observed(your_value), tolerance) is None


WEIGHT = torch.arange(6, dtype=torch.float32).reshape(2, 3)


def with_device(value, device: str) -> dict:
    """An observed tensor as a worker on ``device`` reports it (no GPU needed to make one)."""
    record = observed(value)
    record[TENSOR]["device"] = device
    return record


@pytest.mark.parametrize("field, theirs", [
    ("class", WEIGHT.clone()),                                 # a plain tensor where torch has a Parameter
    ("dtype", torch.nn.Parameter(WEIGHT.double())),
    ("shape", torch.nn.Parameter(WEIGHT.reshape(3, 2))),
    ("requires_grad", torch.nn.Parameter(WEIGHT.clone(), requires_grad=False)),
])
def test_a_tensor_differing_in_one_field_is_a_mismatch_that_names_the_field(field, theirs):
    difference = parted({"weight": torch.nn.Parameter(WEIGHT.clone())}, {"weight": theirs})
    assert difference.path[-1].kind == FIELD and difference.where == f"weight · {field}"


def test_a_tensor_on_another_device_is_a_mismatch_that_names_the_device():
    difference = compare({"$dict": [["out", observed(WEIGHT)]]}, {"$dict": [["out", with_device(WEIGHT, "cuda")]]})
    assert difference.where == "out · device" and (difference.expected, difference.actual) == ("cpu", "cuda")


def test_values_one_step_apart_differ_with_no_tolerance_declared():
    nudged = WEIGHT.clone()
    nudged[1, 2] = torch.nextafter(nudged[1, 2], torch.tensor(math.inf))
    difference = parted({"layer(x)": WEIGHT}, {"layer(x)": nudged})
    assert difference.where == "layer(x)" and difference.detail == "values differ"


def test_a_gradient_is_compared_like_any_tensor_and_a_missing_one_differs():
    grad = {"x.grad": torch.ones(3)}
    assert parted(grad, {"x.grad": torch.full((3,), 2.0)}).where == "x.grad"
    assert parted(grad, {"x.grad": None}).where == "x.grad"
    assert same(grad, {"x.grad": torch.ones(3)})


def test_an_exception_is_compared_by_its_type_not_its_message():
    expected = {"register_buffer('a.b')": Raised(KeyError("buffer name can't contain \".\""))}
    assert parted(expected, {"register_buffer('a.b')": Raised(TypeError("a.b"))}).where == "register_buffer('a.b')"
    assert same(expected, {"register_buffer('a.b')": Raised(KeyError("another message"))})
    assert parted(expected, {"register_buffer('a.b')": None}).actual is None  # no exception where torch raised


def test_names_in_another_order_differ_and_say_so():
    walk = [["encoder.weight", WEIGHT], ["decoder.weight", WEIGHT]]
    difference = parted({"root.named_parameters()": walk}, {"root.named_parameters()": walk[::-1]})
    assert difference.where == "root.named_parameters()"
    assert difference.detail == "same names in a different order"


def test_the_order_of_a_dicts_keys_is_part_of_what_it_observes():
    assert parted({"a": 1, "b": 2}, {"b": 2, "a": 1}).detail == "same names in a different order"


@pytest.mark.parametrize("torch_value, your_value", [(1, 1.0), (True, 1), (1, "1"), ((1, 2), [1, 2]), (None, 0)])
def test_values_equal_in_python_but_of_another_kind_differ(torch_value, your_value):
    assert parted({"value": torch_value}, {"value": your_value}).where == "value"


def test_python_floats_are_exact_unless_a_tolerance_is_declared():
    assert parted({"loss": 0.3}, {"loss": 0.1 + 0.2}).where == "loss"
    assert same({"loss": 0.3}, {"loss": 0.1 + 0.2}, Tolerance(rtol=0, atol=1e-12))


GAP = 1e-7  # far below the Tolerance() defaults (1e-5): a default applied anyway would hide it


@pytest.mark.parametrize("tolerance, passes", [
    (None, False),                             # undeclared: bit for bit
    (Tolerance(rtol=0, atol=1e-9), False),     # declared tighter than any default: still fails
    (Tolerance(rtol=0, atol=1e-6), True),      # declared wider than the gap
])
def test_the_declared_tolerance_and_no_other_decides(tolerance, passes):
    want = torch.zeros(4, dtype=torch.float64)
    got = want.clone()
    got[2] = GAP
    assert same({"out": want}, {"out": got}, tolerance) is passes


def test_a_wide_declared_tolerance_is_applied_as_declared():
    want = torch.tensor([1.0, 100.0])
    assert same({"out": want}, {"out": torch.tensor([1.0, 100.5])}, Tolerance(rtol=1e-2, atol=0))
    difference = parted({"out": want}, {"out": torch.tensor([1.5, 100.0])}, Tolerance(rtol=1e-2, atol=0))
    assert difference.detail == "largest gap 0.5"


def test_a_tolerance_never_loosens_integers():
    assert parted({"steps": torch.tensor([1, 2])}, {"steps": torch.tensor([1, 3])}, Tolerance(rtol=1, atol=10))
    assert parted({"count": 2}, {"count": 3}, Tolerance(rtol=1, atol=10)).where == "count"


def test_nan_matches_nan_and_inf_matches_inf_with_a_tolerance():
    want = torch.tensor([math.nan, math.inf, -math.inf, 1.0])
    close = torch.tensor([math.nan, math.inf, -math.inf, 1.0 + 1e-6])
    assert same({"out": want}, {"out": close}, Tolerance(rtol=1e-5, atol=1e-5))
    assert parted({"out": want}, {"out": torch.tensor([0.0, math.inf, -math.inf, 1.0])}, Tolerance())
    assert parted({"out": want}, {"out": torch.tensor([math.nan, -math.inf, -math.inf, 1.0])}, Tolerance())


def test_an_observation_that_is_the_same_has_no_difference():
    value = {"weight": torch.nn.Parameter(WEIGHT.clone()), "names": [["a", 1], ["b", (2.5, None)]],
             "raised": Raised(KeyError("x"))}
    assert same(value, value)
    assert compare(observed(value), observed(value), Tolerance()) is None


def test_a_raised_record_is_compared_as_an_exception():
    expected, actual = {EXCEPTION: {"type": "KeyError", "message": ""}}, {EXCEPTION: {"type": "KeyError", "message": "x"}}
    assert compare(expected, actual) is None
