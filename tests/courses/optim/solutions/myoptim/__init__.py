"""myoptim: torch.optim.SGD, rebuilt."""
from .sgd import SGD

__all__ = ["SGD"]
