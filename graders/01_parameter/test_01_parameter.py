"""Exercise 01: Parameter. Each scenario runs on torch.nn and on mynn; the
observations it returns must agree. Field names read as the expressions they
observe, so a difference says where: ``p.requires_grad``."""
import copy

import torch

from modlab.grading import scenario

from .misconceptions import (deepcopy_not_a_copy, default_data, new_returns_plain_tensor, no_grad_drops_requires_grad,
                             operations_keep_parameter, parameter_copies_data, pickle_loses_parameter, repr_prefix,
                             requires_grad_default, requires_grad_ignored)
from .views import (COPIES_ONE_OBJECT, EMPTY, FLAGS, KEYWORD_FALSE, LOADED_ONE_OBJECT, P_CLASS, P_REQUIRES_GRAD,
                    P_SHAPE, POSITIONAL_FALSE, REPR_FROZEN, REPR_TRAINED, RESULT_TYPES, SHARES_STORAGE, UNDER_NO_GRAD,
                    copied, loaded, round_trip)


@scenario(points=2, public=True, misconceptions=[new_returns_plain_tensor, requires_grad_default])
def is_a_tensor_that_requires_grad(nn):
    """Parameter(data) is a Tensor subclass that requires grad"""
    p = nn.Parameter(torch.randn(2, 3))
    return {P_CLASS: type(p).__name__, "isinstance(p, torch.Tensor)": isinstance(p, torch.Tensor),
            P_REQUIRES_GRAD: p.requires_grad, "p.is_leaf": p.is_leaf, "p": p}


@scenario(points=2, public=True, misconceptions=[parameter_copies_data, operations_keep_parameter])
def shares_storage_with_data(nn):
    """Parameter(data) wraps the same storage, it does not copy"""
    data = torch.zeros(3)
    p = nn.Parameter(data)
    data[1] = 7.0
    return {P_SHAPE: list(p.shape), SHARES_STORAGE: p.data_ptr() == data.data_ptr(), "p after data[1] = 7": p.detach()}


@scenario(points=1, public=True, misconceptions=[requires_grad_ignored])
def requires_grad_false_is_kept(nn):
    """Parameter(data, requires_grad=False) does not require grad"""
    return {KEYWORD_FALSE:
            nn.Parameter(torch.ones(2), requires_grad=False).requires_grad}


@scenario(points=1, misconceptions=[requires_grad_ignored])
def requires_grad_false_positionally(nn):
    """Parameter(data, False) does not require grad, and stays a leaf"""
    p = nn.Parameter(torch.ones(2), False)
    return {POSITIONAL_FALSE: p.requires_grad, "p.is_leaf": p.is_leaf}


@scenario(points=2, public=True, misconceptions=[no_grad_drops_requires_grad])
def requires_grad_survives_no_grad(nn):
    """requires_grad is honoured even inside torch.no_grad()"""
    outside = nn.Parameter(torch.ones(2))
    with torch.no_grad():
        p = nn.Parameter(torch.ones(2))
    return {P_REQUIRES_GRAD: outside.requires_grad, UNDER_NO_GRAD: p.requires_grad,
            "p.is_leaf": p.is_leaf}


@scenario(points=1, public=True, misconceptions=[default_data])
def default_is_empty(nn):
    """Parameter() holds an empty tensor"""
    return {EMPTY: nn.Parameter()}


@scenario(points=2, public=True, misconceptions=[operations_keep_parameter])
def operations_return_plain_tensors(nn):
    """operations on a Parameter return plain Tensors"""
    p = nn.Parameter(torch.arange(4.0))
    results = {"p * 2": p * 2, "p + p": p + p, "p.sum()": p.sum(), "p[1:]": p[1:], "torch.relu(p)": torch.relu(p),
               "p.detach()": p.detach()}
    return {P_CLASS: type(p).__name__,
            RESULT_TYPES: {expression: type(r).__name__ for expression, r in results.items()},
            "results": results}


@scenario(points=1, misconceptions=[requires_grad_default])
def gradients_flow(nn):
    """a Parameter receives gradients through backward()"""
    p = nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    if not p.requires_grad:
        return {P_REQUIRES_GRAD: False}
    (p * p).sum().backward()
    return {P_REQUIRES_GRAD: True, "p.grad": p.grad}


@scenario(points=1, public=True, misconceptions=[repr_prefix])
def repr_says_parameter_containing(nn):
    """repr() starts with 'Parameter containing:'"""
    trained, frozen = nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(1), requires_grad=False)
    return {P_CLASS: type(trained).__name__, P_SHAPE: list(trained.shape),
            FLAGS: [trained.requires_grad, frozen.requires_grad],
            REPR_TRAINED: repr(trained),
            REPR_FROZEN: repr(frozen)}


@scenario(points=1, public=True, misconceptions=[deepcopy_not_a_copy])
def deepcopy_is_a_new_parameter(nn):
    """copy.deepcopy gives a new Parameter over copied data"""
    p = nn.Parameter(torch.randn(3))
    return copied(p, copy.deepcopy(p))


@scenario(points=2, misconceptions=[deepcopy_not_a_copy])
def survives_deepcopy(nn):
    """copy.deepcopy keeps requires_grad=False and copies a Parameter once within one structure"""
    p = nn.Parameter(torch.randn(3), requires_grad=False)
    twins = copy.deepcopy([p, p])
    return {**copied(p, twins[0]), COPIES_ONE_OBJECT: twins[0] is twins[1]}


@scenario(points=1, public=True, misconceptions=[pickle_loses_parameter])
def survives_save_and_load(nn):
    """torch.save / torch.load round-trips a Parameter, requires_grad=False included"""
    p = nn.Parameter(torch.randn(2, 2), requires_grad=False)
    return loaded(p, round_trip(p))


@scenario(points=1, misconceptions=[pickle_loses_parameter])
def save_and_load_keeps_sharing(nn):
    """torch.save / torch.load of one Parameter held twice gives one Parameter, requiring grad"""
    p = nn.Parameter(torch.randn(3))
    first, second = round_trip([p, p])
    return {**loaded(p, first), LOADED_ONE_OBJECT: first is second}
