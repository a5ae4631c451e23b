"""Exercise 02: registration with ``__setattr__``.

Every ``Module`` keeps three registers: ``_parameters``, ``_buffers`` and
``_modules``. Assigning to ``self`` routes the value into the right one, and
everything a model later does (training, saving, ``.to()``) reads only those
registers. A value that never passes through them is invisible to all of it.
"""
from collections import OrderedDict

import torch

from .parameter import Parameter


class Registration:
    """The registers of a ``Module`` and the attribute protocol that fills them."""

    def __init__(self):
        """Create the empty registers, before any attribute is assigned.

        Creates ``_parameters``, ``_buffers`` and ``_modules`` (dicts, in
        assignment order) and ``_non_persistent_buffers_set`` (a set of buffer
        names left out of ``state_dict``), without going through
        ``__setattr__``: it needs the registers to exist already.
        """
        raise NotImplementedError("exercise 02: __init__")
        # Given: the mode flag and the hook tables that exercise 04 uses.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())

    def __setattr__(self, name, value):
        """Route an assignment ``self.name = value`` into the right register.

        * a ``Parameter`` goes to ``_parameters`` (via ``register_parameter``);
        * a ``Module`` goes to ``_modules``;
        * a name already in ``_parameters``, ``_modules`` or ``_buffers`` keeps
          its register: ``None`` empties the slot, a tensor replaces a buffer;
        * anything else is an ordinary attribute in ``__dict__``.
        A name moving to another register is first removed from the others,
        and replacing a registered value keeps its position.

        Raises:
            AttributeError: a Parameter or Module assigned before
                ``Module.__init__()`` ran (missing ``super().__init__()``).
            TypeError: a value that is not a Parameter (or None) assigned to a
                parameter name, or not a Module (or None) to a module name.

        Example::

            >>> m = Module()
            >>> m.w = Parameter(torch.ones(2))     # registered
            >>> m.scale = torch.ones(1)            # a plain attribute
            >>> list(m._parameters)
            ['w']
        """
        raise NotImplementedError("exercise 02: __setattr__")

    def __getattr__(self, name):
        """Find ``name`` in the registers (Python calls this only when the
        ordinary lookup failed).

        Raises:
            AttributeError: ``'Net' object has no attribute 'name'``.
        """
        raise NotImplementedError("exercise 02: __getattr__")

    def __delattr__(self, name):
        """Remove ``name`` from whichever register holds it, else from ``__dict__``."""
        raise NotImplementedError("exercise 02: __delattr__")

    def register_parameter(self, name, param):
        """Add a parameter (or an empty ``None`` slot) under ``name``.

        Args:
            name: the attribute name; no dots, not empty, not an existing
                non-parameter attribute.
            param: a ``Parameter``, or ``None`` to keep an empty slot.

        Raises:
            AttributeError: called before ``Module.__init__()``.
            TypeError: ``name`` is not a string, or ``param`` is neither a
                Parameter nor None.
            KeyError: ``name`` contains ".", is empty, or is already an
                attribute of another kind.
            ValueError: ``param`` is not a leaf (it was computed from
                other tensors).

        Example::

            >>> m = Module()
            >>> m.register_parameter("bias", None)    # slot kept, value None
        """
        raise NotImplementedError("exercise 02: register_parameter")

    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer: a tensor that is state but not trained (running means).

        Args:
            name: the attribute name (same rules as ``register_parameter``).
            tensor: a tensor, or ``None`` for an empty slot.
            persistent: whether ``state_dict`` includes it.

        Raises:
            AttributeError: called before ``Module.__init__()``.
            TypeError: ``name`` is not a string or ``tensor`` is not a tensor.
            KeyError: a bad or already used name.

        Example::

            >>> m = Module()
            >>> m.register_buffer("running_mean", torch.zeros(3))
            >>> m.register_buffer("cache", torch.zeros(3), persistent=False)
        """
        raise NotImplementedError("exercise 02: register_buffer")

    def add_module(self, name, module):
        """Add a child module (or an empty ``None`` slot) under ``name``.

        Containers use it to register children under names like ``"0"``,
        which could never be written as ``self.0 = ...``.

        Raises:
            TypeError: ``module`` is neither a Module nor None, or ``name``
                is not a string.
            KeyError: ``name`` contains ".", is empty, or is already an
                attribute of another kind.
        """
        raise NotImplementedError("exercise 02: add_module")

    def register_module(self, name, module):
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)


def _is_module(value):
    # Module is assembled in module.py from this mixin and the others, so it
    # can only be looked up once everything is imported.
    from .module import Module

    return isinstance(value, Module)


def _remove_from(name, *registers):
    """Delete ``name`` from each register (dict or set) that holds it."""
    raise NotImplementedError("exercise 02: _remove_from")


def _check_name(module, name, kind, register):
    """Raise torch's error for a name that cannot be registered as ``kind``."""
    raise NotImplementedError("exercise 02: _check_name")
