"""What the ported PyTorch tests share: the two implementations they run
against, and small stand-ins for the parts of PyTorch's own test harness
(``torch.testing._internal``) their bodies use.

Every test takes the fixture ``nn``: once ``torch.nn``, once the reference
``solutions/mynn``. A test that is deliberately out of the course's scope
carries ``@out_of_scope("reason")``: it still runs on both, must pass on
``torch.nn``, and must fail on ``mynn`` (a strict xfail, so it is noticed the
day mynn grows the feature).

The helpers below are adapted from PyTorch (BSD-3-Clause, see
``LICENSE-PyTorch``).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
# The reference is imported under its own name, so that it never meets a
# ``mynn`` that another test (or a student's kit) put on sys.path.
REFERENCE = "mynn_reference"
# Another package to test in the reference's place (the alternative
# implementations of tests/test_alternative_implementations.py); trusted code only.
PACKAGE_VARIABLE = "MODLAB_UPSTREAM_PACKAGE"


def reference_package():
    """The trusted reference ``solutions/mynn`` (or the package ``$MODLAB_UPSTREAM_PACKAGE``
    names), imported once as ``mynn_reference``."""
    if REFERENCE not in sys.modules:
        folder = Path(os.environ.get(PACKAGE_VARIABLE, ROOT / "solutions" / "mynn"))
        spec = importlib.util.spec_from_file_location(REFERENCE, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[REFERENCE] = package
        spec.loader.exec_module(package)
    return sys.modules[REFERENCE]


IMPLEMENTATIONS = {"torch": lambda: torch.nn, "mynn": reference_package}


@pytest.fixture(params=list(IMPLEMENTATIONS))
def nn(request):
    """``torch.nn``, then the reference ``mynn``: the ``nn`` every ported test uses."""
    return IMPLEMENTATIONS[request.param]()


def out_of_scope(reason: str):
    """Run on both implementations; on ``mynn`` the test must fail, for ``reason``."""
    mynn = pytest.param("mynn", marks=pytest.mark.xfail(strict=True, reason=reason))
    return pytest.mark.parametrize("nn", ["torch", mynn], indirect=True)


def out_of_scope_here(request, nn, reason: str):
    """Inside a test with other parameters: on ``mynn`` this case must fail, for ``reason``."""
    if nn is not torch.nn:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


# -- PyTorch's TestCase.assertEqual, for what these tests compare ------------------

SEQUENCE_CLASSES = {"Sequential", "ModuleList", "ParameterList"}
MAPPING_CLASSES = {"ModuleDict", "ParameterDict"}


def _is_container(value, names) -> bool:
    return any(cls.__name__ in names for cls in type(value).__mro__)


def _as_sequence(value):
    if isinstance(value, (list, tuple)) or _is_container(value, SEQUENCE_CLASSES):
        return list(value)
    return None


def _as_mapping(value):
    if isinstance(value, Mapping) or _is_container(value, MAPPING_CLASSES):
        return {key: value[key] for key in value.keys()}
    return None


def assert_equal(actual, expected, *, rtol=None, atol=None):
    """Equal as ``torch.testing._internal.common_utils.TestCase.assertEqual`` sees it.

    Tensors are compared closely (same dtype and shape, NaNs equal); Python
    numbers against one-element tensors by value; lists, tuples and the
    sequence containers (``Sequential``, ``ModuleList``, ``ParameterList`` of
    either implementation) item by item; mappings (``dict``, ``ModuleDict``,
    ``ParameterDict``) key by key; anything else, modules included, with ``==``.
    """
    if isinstance(actual, torch.Tensor) or isinstance(expected, torch.Tensor):
        both_tensors = isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)
        actual, expected = (torch.as_tensor(x) for x in (actual, expected))
        tolerances = {} if rtol is None and atol is None else {"rtol": rtol, "atol": atol}
        torch.testing.assert_close(actual, expected, equal_nan=True, check_device=False,
                                   check_dtype=both_tensors, **tolerances)
        return
    sequences = _as_sequence(actual), _as_sequence(expected)
    if None not in sequences:
        assert len(sequences[0]) == len(sequences[1]), (actual, expected)
        for left, right in zip(*sequences):
            assert_equal(left, right, rtol=rtol, atol=atol)
        return
    mappings = _as_mapping(actual), _as_mapping(expected)
    if None not in mappings:
        assert set(mappings[0]) == set(mappings[1]), (list(mappings[0]), list(mappings[1]))
        for key, value in mappings[0].items():
            assert_equal(value, mappings[1][key], rtol=rtol, atol=atol)
        return
    assert actual == expected, (actual, expected)


def assert_not_equal(actual, expected):
    """The opposite of :func:`assert_equal` (``TestCase.assertNotEqual``)."""
    try:
        assert_equal(actual, expected)
    except AssertionError:
        return
    raise AssertionError(f"{actual!r} equals {expected!r}")


# -- torch.testing._internal.common_nn ------------------------------------------

def create_basic_net(nn):
    """``_create_basic_net``: a layer, a net holding it, and a Sequential of the net twice."""

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer_dummy_param = nn.Parameter(torch.empty(3, 5))
            self.layer_dummy_buf = nn.Buffer(torch.zeros(1, 3, 3, 7))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = nn.Parameter(torch.empty(3, 5))
            self.dummy_buf = nn.Buffer(torch.zeros(7, 3, 3, 1))

    l = Layer()  # noqa: E741 (upstream's name)
    n = Net()
    s = nn.Sequential(n, n)
    return l, n, s


def check_module_empty_input(module, inp, check_size=True, inference=False):
    """``_test_module_empty_input``: an empty batch passes through, with zero gradients."""
    if not inference:
        inp.requires_grad_(True)
    out = module(inp)
    if not inference:
        gO = torch.rand_like(out)
        out.backward(gO)
    if check_size:
        assert out.size() == inp.size()
    if not inference:
        for p in module.parameters():
            if p.requires_grad:
                assert_equal(p.grad, torch.zeros_like(p.grad))
        assert_equal(inp.grad, torch.zeros_like(inp))


def sigmoid_module(nn):
    """``nn.Sigmoid``, which mynn does not have, written on the implementation's Module."""

    class Sigmoid(nn.Module):
        def forward(self, input):
            return torch.sigmoid(input)

    return Sigmoid()
