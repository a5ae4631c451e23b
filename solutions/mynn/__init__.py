"""mynn: a small nn.Module, rebuilt exercise by exercise.

Each name below comes from one exercise's file; ``course.yaml`` maps
exercises to files.
"""
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .layers import BatchNorm1d, Linear, MSELoss, ReLU
from .module import Module
from .parameter import Parameter
from .registration import Buffer

__all__ = [
    "BatchNorm1d",
    "Buffer",
    "Linear",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "ReLU",
    "Sequential",
]
