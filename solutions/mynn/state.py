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
        ### BEGIN SOLUTION
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination
        ### END SOLUTION

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own state (not its children's) into ``destination``."""
        ### BEGIN SOLUTION
        for name, tensor in _own_state(self).items():
            destination[prefix + name] = tensor if keep_vars else tensor.detach()
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        _load_tree(self, state_dict, "", missing, unexpected, errors)
        if strict:
            if unexpected:
                errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
            if missing:
                errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return IncompatibleKeys(missing, unexpected)
        ### END SOLUTION

    def _load_from_state_dict(self, state_dict, prefix, missing_keys, unexpected_keys, error_msgs):
        """Load this module's own state (not its children's) from the keys under ``prefix``.

        Appends to ``missing_keys``, ``unexpected_keys`` and ``error_msgs``
        instead of raising, so that one load reports every problem at once.
        """
        ### BEGIN SOLUTION
        own = _own_state(self)
        for name, tensor in own.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, torch.Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(value)}")
            elif value.shape != tensor.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {tensor.shape}.")
            else:
                # In place and untracked: the Parameter object, its dtype and
                # its device stay; only the numbers change.
                with torch.no_grad():
                    tensor.copy_(value)
        for key in state_dict:
            if key.startswith(prefix):
                head, dot, _ = key[len(prefix):].partition(".")
                # "child.x" belongs to the child if there is one; "x" must be ours.
                if head not in (self._modules if dot else own):
                    unexpected_keys.append(key)
        ### END SOLUTION


def _own_state(module):
    """A module's own parameters, then its persistent buffers, by name; no empty slots."""
    ### BEGIN SOLUTION
    state = {name: p for name, p in module._parameters.items() if p is not None}
    for name, buffer in module._buffers.items():
        if buffer is not None and name not in module._non_persistent_buffers_set:
            state[name] = buffer
    return state
    ### END SOLUTION


def _load_tree(module, state_dict, prefix, missing_keys, unexpected_keys, error_msgs):
    """Load ``module`` and then, depth first, every child under its own prefix."""
    ### BEGIN SOLUTION
    module._load_from_state_dict(state_dict, prefix, missing_keys, unexpected_keys, error_msgs)
    for name, child in module._modules.items():
        if child is not None:
            _load_tree(child, state_dict, prefix + name + ".", missing_keys, unexpected_keys, error_msgs)
    ### END SOLUTION


def _quoted(keys):
    """``"a", "b"``: keys as torch's error message lists them."""
    ### BEGIN SOLUTION
    return ", ".join(f'"{key}"' for key in keys)
    ### END SOLUTION
