"""Placeholder."""
from .module import Module


class Sequential(Module):
    pass


class ModuleList(Module):
    pass


class ModuleDict(Module):
    pass
