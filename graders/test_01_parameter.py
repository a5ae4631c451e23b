"""Exercise 01: Parameter. Each scenario runs on torch.nn and on mynn; the
observations it returns must agree."""
import copy
import io

import torch

from modlab.grading import hints, scenario


@scenario(points=2, public=True)
def is_a_tensor_that_requires_grad(nn):
    """Parameter(data) is a Tensor subclass that requires grad"""
    p = nn.Parameter(torch.randn(2, 3))
    return [isinstance(p, torch.Tensor), type(p).__name__, p.requires_grad, p.is_leaf, p]


@scenario(points=2, public=True)
def shares_storage_with_data(nn):
    """Parameter(data) wraps the same storage, it does not copy"""
    data = torch.zeros(3)
    p = nn.Parameter(data)
    data[1] = 7.0
    return [p.data_ptr() == data.data_ptr(), p.detach()]


@scenario(points=1)
def requires_grad_false_is_kept(nn):
    """Parameter(data, requires_grad=False) does not require grad"""
    return [nn.Parameter(torch.ones(2), requires_grad=False).requires_grad,
            nn.Parameter(torch.ones(2), False).requires_grad]


@scenario(points=2)
def requires_grad_survives_no_grad(nn):
    """requires_grad is honoured even inside torch.no_grad()"""
    with torch.no_grad():
        p = nn.Parameter(torch.ones(2))
    return [p.requires_grad, p.is_leaf]


@scenario(points=1)
def default_is_empty(nn):
    """Parameter() holds an empty tensor"""
    return nn.Parameter()


@scenario(points=2, public=True, hint=hints.BARE_TENSOR)
def operations_return_plain_tensors(nn):
    """operations on a Parameter return plain Tensors"""
    p = nn.Parameter(torch.arange(4.0))
    results = [p * 2, p + p, p.sum(), p[1:], torch.relu(p), p.detach()]
    return [type(r).__name__ for r in results] + results


@scenario(points=1)
def gradients_flow(nn):
    """a Parameter receives gradients through backward()"""
    p = nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    (p * p).sum().backward()
    return p.grad


@scenario(points=1, public=True)
def repr_says_parameter_containing(nn):
    """repr() starts with 'Parameter containing:'"""
    return [repr(nn.Parameter(torch.ones(2))), repr(nn.Parameter(torch.zeros(1), requires_grad=False))]


@scenario(points=2)
def survives_deepcopy(nn):
    """copy.deepcopy gives a new Parameter over copied data"""
    p = nn.Parameter(torch.randn(3), requires_grad=False)
    twin = copy.deepcopy(p)
    return [type(twin).__name__, twin is p, twin.data_ptr() == p.data_ptr(), twin.requires_grad, twin]


@scenario(points=2)
def survives_save_and_load(nn):
    """torch.save / torch.load round-trips a Parameter"""
    buffer = io.BytesIO()
    torch.save(nn.Parameter(torch.randn(2, 2)), buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    return [type(loaded).__name__, loaded.requires_grad, loaded]
