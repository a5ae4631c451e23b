"""Delegating to torch.nn: subclassing torch.nn.Parameter."""
import torch


class Parameter(torch.nn.Parameter):
    """torch's own Parameter under mynn's name."""
