"""Exercise 06: ``state_dict`` and strict loading.

A model's state is its registered tensors, named by their path in the module
tree: ``"encoder.0.weight"``. Nothing else is saved: not the code, not plain
attributes, not layers kept in a plain list. That is why a checkpoint is only
a dict of tensors, and why it loads into any model with the same names and
shapes, even one built with another library.

Loading copies values *into* the tensors the model already has. The
Parameter objects stay the same, so an optimizer that holds them keeps
training the model after a checkpoint is restored.
"""
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import torch

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
IncompatibleKeys.__doc__ = """What ``load_state_dict`` found out of place: keys the model
expected but the state dict lacked, and keys the model has no place for."""


class State:
    """Saving and restoring the registered tensors of a module tree."""

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Return the module's state: every parameter and persistent buffer, by name.

        Keys are dotted paths in torch's order: a module's own parameters,
        then its persistent buffers, then each child's state, depth first.
        Empty (``None``) slots and non-persistent buffers are left out. A
        module registered under two names appears under both.

        Args:
            destination: a dict to fill and return; by default a new
                ``OrderedDict``.
            prefix: prepended to every key (``"encoder."``).
            keep_vars: return the Parameters and buffers themselves instead
                of detached tensors.

        Returns:
            The dict of tensors. Without ``keep_vars`` each value is detached
            (``requires_grad=False``) but shares storage with the model, so
            it changes when the model trains: clone it to keep a snapshot.

        Example::

            >>> class Line(Module):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.weight = Parameter(torch.ones(1))
            ...         self.register_buffer("steps", torch.zeros(1))
            >>> list(Line().state_dict(prefix="line."))
            ['line.weight', 'line.steps']
        """
        raise NotImplementedError("exercise 06: state_dict")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own state (not its children's) into ``destination``."""
        raise NotImplementedError("exercise 06: _save_to_state_dict")

    def load_state_dict(self, state_dict, strict=True):
        """Copy the values of ``state_dict`` into this module's parameters and buffers.

        Values are copied in place, without tracking gradients: every
        Parameter stays the same object (an optimizer holding it keeps
        working), and keeps its dtype and device, so a float64 checkpoint
        loads into a float32 model as float32. Every problem is collected
        before anything is raised, and the keys that do fit are copied.

        Args:
            state_dict: a mapping from names (as ``state_dict()`` makes them)
                to tensors.
            strict: whether keys the model expects but ``state_dict`` lacks
                (missing), and keys the model has no place for (unexpected),
                are errors.

        Returns:
            ``IncompatibleKeys(missing_keys, unexpected_keys)``, a named tuple
            of two lists (both empty after a successful strict load).

        Raises:
            TypeError: ``state_dict`` is not a mapping.
            RuntimeError: ``Error(s) in loading state_dict for Net:`` followed
                by one line per problem: missing and unexpected keys (strict
                only), and shape mismatches or non-tensor values (always).

        Example::

            >>> model.load_state_dict(torch.load("model.pt"))
            IncompatibleKeys(missing_keys=[], unexpected_keys=[])
            >>> model.load_state_dict({"weight": torch.ones(3)}, strict=False)
            IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        raise NotImplementedError("exercise 06: load_state_dict")

    def _load_from_state_dict(self, state_dict, prefix, missing_keys, unexpected_keys, error_msgs):
        """Load this module's own state (not its children's) from the keys under ``prefix``.

        Appends to ``missing_keys``, ``unexpected_keys`` and ``error_msgs``
        instead of raising, so that one load reports every problem at once.
        """
        raise NotImplementedError("exercise 06: _load_from_state_dict")


def _own_state(module):
    """A module's own parameters, then its persistent buffers, by name; no empty slots."""
    raise NotImplementedError("exercise 06: _own_state")


def _load_tree(module, state_dict, prefix, missing_keys, unexpected_keys, error_msgs):
    """Load ``module`` and then, depth first, every child under its own prefix."""
    raise NotImplementedError("exercise 06: _load_tree")


def _quoted(keys):
    """``"a", "b"``: keys as torch's error message lists them."""
    raise NotImplementedError("exercise 06: _quoted")
