"""Observations: exact builtin types and their subclasses encode as they always have."""
import enum
from collections import OrderedDict

import pytest
import torch

from modlab.grading.observe import DICT, OBJECT, TENSOR, TUPLE, encode


class Colour(enum.IntEnum):
    RED = 3


class Name(str):
    pass


class Items(list):
    pass


def test_plain_values_and_their_subclasses_encode_alike():
    value = {"a": [1, True, None, "x", Colour.RED, Name("n")], 2: OrderedDict(b=Items([1.5])), "t": (0,)}
    encoded = encode(value)
    assert encoded == {DICT: [["a", [1, True, None, "x", 3, "n"]], ["2", {DICT: [["b", [1.5]]]}],
                              ["t", {TUPLE: [0]}]]}
    assert type(encoded[DICT][0][1][4]) is int  # an IntEnum becomes its int


def test_a_tensor_and_an_object_inside_plain_containers():
    encoded = encode([{"w": torch.ones(2)}, object()], own="torch.nn")
    assert encoded[0][DICT][0][1][TENSOR]["shape"] == [2]
    assert encoded[1] == {OBJECT: "builtins.object"}


@pytest.mark.parametrize("leaf", [1, "x", None, [], {}])
def test_a_value_past_50_levels_is_refused_whatever_its_type(leaf):
    nested = leaf
    for _ in range(51):
        nested = [nested]
    with pytest.raises(ValueError, match="deeper than 50"):
        encode(nested)
    for _ in range(50):
        leaf = [leaf]
    encode(leaf)  # 50 levels: fine
