"""mynn: a small nn.Module, rebuilt exercise by exercise.

Each name below comes from one exercise's file (``course.yaml`` maps
exercises to files) or from a given file that no exercise lists.
"""
from .containers import ModuleDict, ModuleList, Sequential
from .layers import BatchNorm1d, Linear, MSELoss, ReLU
from .module import Module
from .parameter import Parameter
from .parameter_containers import ParameterDict, ParameterList
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
