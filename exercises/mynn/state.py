"""Exercise 06: ``state_dict`` and strict loading.

A model's state is its registered tensors, named by their path in the module
tree: ``"encoder.0.weight"``. Nothing else is saved: not the code, not plain
attributes, not layers kept in a plain list. That is why a checkpoint is only
a dict of tensors, and why it loads into any model with the same names and
shapes, even one built with another library.

Loading copies values *into* the tensors the model already has. The
Parameter objects stay the same, so an optimizer that holds them keeps
training the model after a checkpoint is restored.

A checkpoint also remembers which version of each module's class saved it
(``state_dict()._metadata``), so that a class that changed its state can
still load old checkpoints: ``BatchNorm1d`` (version 2) fills in the
``num_batches_tracked`` a version-1 checkpoint lacks, in its own
``_load_from_state_dict``.
"""
import warnings
from collections import OrderedDict
from collections.abc import Mapping

import torch

from ._given import _IncompatibleKeys, defines
from .parameter import Parameter

# The key under which a module's get_extra_state() is saved: "<prefix>_extra_state".
EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class State:
    """Saving and restoring the registered tensors of a module tree.

    Given (``_given.StateHooks``): registering the state-dict hooks, which
    ``Module.__init__`` gives every module the tables for
    (``_state_dict_pre_hooks``, ``_state_dict_hooks``,
    ``_load_state_dict_pre_hooks``, ``_load_state_dict_post_hooks``), and the
    default ``get_extra_state`` / ``set_extra_state``, which a class overrides
    to save more than tensors (``defines(module, "get_extra_state")`` tells).
    """

    # Given: the version of the class's state layout, saved in each
    # checkpoint's metadata. A class that changes what it saves raises it and
    # migrates older checkpoints in its _load_from_state_dict.
    _version = 1

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Return the module's state: every parameter and persistent buffer, by name.

        Keys are dotted paths in torch's order: a module's own parameters,
        then its persistent buffers (then its extra state, see
        ``get_extra_state``), then each child's state, depth first. Empty
        (``None``) slots and non-persistent buffers are left out. A module
        registered under two names appears under both.

        The new dict carries ``_metadata``: an ``OrderedDict`` from each
        module's prefix without its dot (``""`` for the root, ``"encoder"``)
        to ``{"version": module._version}``. A ``destination`` without a
        ``_metadata`` attribute (a plain ``dict``) gets none.

        Hooks: each state-dict pre-hook runs as ``hook(module, prefix,
        keep_vars)`` before the module saves anything; after its children,
        each post-hook runs as ``hook(module, destination, prefix,
        local_metadata)``. A post-hook registered with the private
        ``_register_state_dict_hook`` may return a new destination; one
        registered with ``register_state_dict_post_hook`` must return ``None``.

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

        Raises:
            RuntimeError: a public post-hook returned something.

        Example::

            >>> class Line(Module):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.weight = Parameter(torch.ones(1))
            ...         self.register_buffer("steps", torch.zeros(1))
            >>> state = Line().state_dict(prefix="line.")
            >>> list(state), dict(state._metadata)
            (['line.weight', 'line.steps'], {'line': {'version': 1}})
        """
        raise NotImplementedError("exercise 06: state_dict")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own state (not its children's) into ``destination``:
        parameters, persistent buffers, then ``get_extra_state()`` under
        ``prefix + "_extra_state"`` if the class defines it."""
        raise NotImplementedError("exercise 06: _save_to_state_dict")

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy the values of ``state_dict`` into this module's parameters and buffers.

        Values are copied in place, without tracking gradients: every
        Parameter stays the same object (an optimizer holding it keeps
        working), and keeps its dtype and device, so a float64 checkpoint
        loads into a float32 model as float32. Every problem is collected
        before anything is raised, and the keys that do fit are copied.

        Each module of the tree loads its own keys with
        ``_load_from_state_dict``, given the metadata saved under its prefix
        (``{}`` when the checkpoint has none); a child sees only the keys
        under its own prefix. After a module and all its children have
        loaded, its load post-hooks run as ``hook(module, incompatible_keys)``
        and may edit the two lists in place.

        Args:
            state_dict: a mapping from names (as ``state_dict()`` makes them)
                to tensors; it is copied, never changed.
            strict: whether keys the model expects but ``state_dict`` lacks
                (missing), and keys the model has no place for (unexpected),
                are errors.
            assign: put the checkpoint's tensors themselves into the model
                instead of copying into the existing ones (a Parameter is
                wrapped into a new Parameter that keeps the old one's
                ``requires_grad``). Useful for a model built on the ``meta``
                device; an optimizer must then be built after the load.

        Returns:
            ``IncompatibleKeys(missing_keys, unexpected_keys)``, a named tuple
            of two lists (both empty after a successful strict load, which
            prints as ``<All keys matched successfully>``).

        Raises:
            TypeError: ``state_dict`` is not a mapping.
            RuntimeError: ``Error(s) in loading state_dict for Net:`` followed
                by one line per problem: missing and unexpected keys (strict
                only), and shape mismatches or non-tensor values (always).

        Example::

            >>> model.load_state_dict(torch.load("model.pt"))
            <All keys matched successfully>
            >>> model.load_state_dict({"weight": torch.ones(3)}, strict=False)
            _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        raise NotImplementedError("exercise 06: load_state_dict")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Load this module's own state (not its children's) from the keys under ``prefix``.

        The signature is torch's, so that a class can override it to migrate
        old checkpoints (look at ``local_metadata.get("version")``, fix up
        ``state_dict``, then call ``super()._load_from_state_dict``).

        In order: run the load pre-hooks as ``hook(state_dict, prefix,
        local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``;
        load each parameter and persistent buffer (a shape-``[1]`` value
        loads into a 0-dimensional tensor, as checkpoints from before torch
        0.4 need); hand the extra state to ``set_extra_state`` if the class
        defines it; then, with ``strict``, note the missing keys and the
        unexpected ones (a key under a child's prefix belongs to that child).

        Args:
            state_dict: the keys to load (a child's call sees only its own).
            prefix: this module's prefix, with its trailing dot.
            local_metadata: what ``state_dict()._metadata`` saved for this
                module (``{"version": 1}``), or ``{}``;
                ``"assign_to_params_buffers"`` in it asks for ``assign``.
            strict: whether to note missing and unexpected keys
                (``load_state_dict`` always passes ``True``).
            missing_keys, unexpected_keys, error_msgs: lists to append to,
                instead of raising, so that one load reports every problem.
        """
        raise NotImplementedError("exercise 06: _load_from_state_dict")


def _own_state(module):
    """A module's own parameters, then its persistent buffers, by name; no empty slots."""
    raise NotImplementedError("exercise 06: _own_state")


def _load_one(module, name, tensor, key, value, assign, error_msgs):
    """Load the checkpoint's ``value`` into ``module``'s ``tensor`` named ``name``:
    copied in place, or with ``assign`` put in its place; a problem is
    appended to ``error_msgs``."""
    raise NotImplementedError("exercise 06: _load_one")


def _assignable(tensor, value):
    """What ``assign=True`` puts in place of ``tensor``: ``value`` itself, as a
    Parameter with ``tensor``'s ``requires_grad`` if ``tensor`` is one."""
    raise NotImplementedError("exercise 06: _assignable")


def _load_tree(module, state_dict, prefix, metadata, assign, found):
    """Load ``module``, then each child from only the keys under its prefix,
    then run ``module``'s load post-hooks.

    Args:
        metadata: the checkpoint's ``_metadata``, or ``None``.
        assign: as in ``load_state_dict``.
        found: ``(missing_keys, unexpected_keys, error_msgs)``, the lists every
            module of the tree appends to.
    """
    raise NotImplementedError("exercise 06: _load_tree")


def _quoted(keys):
    """``"a", "b"``: keys as torch's error message lists them."""
    raise NotImplementedError("exercise 06: _quoted")
