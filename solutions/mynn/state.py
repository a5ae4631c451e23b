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
        ### BEGIN SOLUTION
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            returned = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if returned is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif returned is not None:
                destination = returned
        return destination
        ### END SOLUTION

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own state (not its children's) into ``destination``:
        parameters, persistent buffers, then ``get_extra_state()`` under
        ``prefix + "_extra_state"`` if the class defines it."""
        ### BEGIN SOLUTION
        for name, tensor in _own_state(self).items():
            destination[prefix + name] = tensor if keep_vars else tensor.detach()
        if defines(self, "get_extra_state"):
            destination[prefix + EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)  # a copy that _load_from_state_dict may change
        if metadata is not None:
            state_dict._metadata = metadata
        missing, unexpected, errors = [], [], []
        _load_tree(self, state_dict, "", metadata, assign, (missing, unexpected, errors))
        if strict:
            if unexpected:
                errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
            if missing:
                errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        own = _own_state(self)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, tensor in own.items():
            key = prefix + name
            if key in state_dict:
                _load_one(self, name, tensor, key, state_dict[key], assign, error_msgs)
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + EXTRA_STATE_KEY_SUFFIX
        if defines(self, "set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
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


def _load_one(module, name, tensor, key, value, assign, error_msgs):
    """Load the checkpoint's ``value`` into ``module``'s ``tensor`` named ``name``:
    copied in place, or with ``assign`` put in its place; a problem is
    appended to ``error_msgs``."""
    ### BEGIN SOLUTION
    if not torch.overrides.is_tensor_like(value):
        error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                          f"Tensor-like object from checkpoint but received {type(value)}")
        return
    if tensor.dim() == 0 and value.shape == (1,):
        value = value[0]  # checkpoints from before torch 0.4 saved scalars with shape [1]
    if value.shape != tensor.shape:
        error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                          f"checkpoint, the shape in current model is {tensor.shape}.")
        return
    if tensor.is_meta and not value.is_meta and not assign:
        warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                      "parameter in the current model, which is a no-op. (Did you mean to pass "
                      "`assign=True` to assign items in the state dictionary to their corresponding "
                      "key in the module instead of copying them in place?)", stacklevel=4)
    try:
        with torch.no_grad():
            if assign:
                setattr(module, name, _assignable(tensor, value))
            else:
                # In place and untracked: the Parameter object, its dtype and
                # its device stay; only the numbers change.
                tensor.copy_(value)
    except Exception as error:  # reported with the others, as torch does
        error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                          f"{tensor.size()} and whose dimensions in the checkpoint are {value.size()}, "
                          f"an exception occurred : {error.args}.")
    ### END SOLUTION


def _assignable(tensor, value):
    """What ``assign=True`` puts in place of ``tensor``: ``value`` itself, as a
    Parameter with ``tensor``'s ``requires_grad`` if ``tensor`` is one."""
    ### BEGIN SOLUTION
    if not isinstance(tensor, Parameter):
        return value
    if isinstance(value, Parameter):
        return value.requires_grad_(tensor.requires_grad)
    return Parameter(value, requires_grad=tensor.requires_grad)
    ### END SOLUTION


def _load_tree(module, state_dict, prefix, metadata, assign, found):
    """Load ``module``, then each child from only the keys under its prefix,
    then run ``module``'s load post-hooks.

    Args:
        metadata: the checkpoint's ``_metadata``, or ``None``.
        assign: as in ``load_state_dict``.
        found: ``(missing_keys, unexpected_keys, error_msgs)``, the lists every
            module of the tree appends to.
    """
    ### BEGIN SOLUTION
    local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
    if assign:
        # As torch does, this marks the checkpoint's own metadata dict.
        local_metadata["assign_to_params_buffers"] = assign
    module._load_from_state_dict(state_dict, prefix, local_metadata, True, *found)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            own_keys = {key: value for key, value in state_dict.items() if key.startswith(child_prefix)}
            _load_tree(child, own_keys, child_prefix, metadata, assign, found)
    incompatible = _IncompatibleKeys(found[0], found[1])
    for hook in module._load_state_dict_post_hooks.values():
        if hook(module, incompatible) is not None:
            raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not expected "
                                 "to return new values, if incompatible_keys need to be modified, it should be "
                                 "done inplace.")
    ### END SOLUTION


def _quoted(keys):
    """``"a", "b"``: keys as torch's error message lists them."""
    ### BEGIN SOLUTION
    return ", ".join(f'"{key}"' for key in keys)
    ### END SOLUTION
