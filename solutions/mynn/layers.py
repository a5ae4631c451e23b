"""Placeholder."""
from .module import Module


class Linear(Module):
    pass


class ReLU(Module):
    pass


class BatchNorm1d(Module):
    pass


class MSELoss(Module):
    pass
