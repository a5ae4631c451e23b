"""Exercise 02: registration with ``__setattr__``.

Every ``Module`` keeps three registers: ``_parameters``, ``_buffers`` and
``_modules``. Assigning to ``self`` routes the value into the right one, and
everything a model later does (training, saving, ``.to()``) reads only those
registers. A value that never passes through them is invisible to all of it.
"""
import torch

from ._given import is_module
from .parameter import Parameter


class _BufferMeta(type(torch.Tensor)):
    """Lets ``isinstance(t, Buffer)`` recognise the tensors ``Buffer(...)`` returns:
    plain tensors carrying the mark ``_is_buffer``."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, torch.Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(torch.Tensor, metaclass=_BufferMeta):
    """Given: a tensor that a ``Module`` registers as a buffer when assigned to it,
    like ``torch.nn.Buffer``.

    ``self.running_mean = Buffer(torch.zeros(3))`` is the same as
    ``self.register_buffer("running_mean", torch.zeros(3))``. A plain tensor
    assigned to a new name stays an ordinary attribute.

    Args:
        data: the tensor; it is detached (same storage, no history). ``None``
            gives an empty tensor.
        persistent: whether ``state_dict`` includes it (keyword only).

    Returns:
        A plain ``torch.Tensor`` marked as a buffer: ``isinstance(t, Buffer)``
        is true, and ``t.persistent`` holds the flag.

    Example::

        >>> m = Module()
        >>> m.cache = Buffer(torch.zeros(2), persistent=False)
        >>> list(m._buffers), m._non_persistent_buffers_set
        (['cache'], {'cache'})
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = torch.empty(0)
        tensor = data.detach().requires_grad_(data.requires_grad)
        tensor.persistent = persistent
        tensor._is_buffer = True
        return tensor


class Registration:
    """The registers of a ``Module`` and the attribute protocol that fills them."""

    # Given: True makes Module.__init__ hand its arguments on to the next class
    # of the method resolution order (a mixin listed after Module), as torch's
    # Module.call_super_init does.
    call_super_init = False

    def __init__(self, *args, **kwargs):
        """Create the empty registers, before any attribute is assigned.

        Creates ``_parameters``, ``_buffers`` and ``_modules`` (dicts, in
        assignment order) and ``_non_persistent_buffers_set`` (a set of buffer
        names left out of ``state_dict``), without going through
        ``__setattr__``: it needs the registers to exist already.

        Args:
            *args, **kwargs: accepted only when the class sets
                ``call_super_init = True``; they go to the next class's
                ``__init__`` (given code, after the registers).

        Raises:
            TypeError: arguments given while ``call_super_init`` is False.
        """
        ### BEGIN SOLUTION
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        ### END SOLUTION
        # Given: cooperative multiple inheritance, with torch's messages.
        if self.call_super_init:
            super().__init__(*args, **kwargs)
        elif kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        elif args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")

    def __setattr__(self, name, value):
        """Route an assignment ``self.name = value`` into the right register.

        * a ``Parameter`` goes to ``_parameters`` (via ``register_parameter``);
        * a ``Module`` goes to ``_modules``;
        * a ``Buffer`` goes to ``_buffers`` (via ``register_buffer``, with the
          buffer's own ``persistent`` flag);
        * a name already in ``_parameters``, ``_modules`` or ``_buffers`` keeps
          its register: ``None`` empties the slot, a tensor replaces a buffer
          (which stays persistent or not, as it was);
        * anything else is an ordinary attribute in ``__dict__``.
        A name moving to another register is first removed from the others,
        and replacing a registered value keeps its position.

        Raises:
            AttributeError: a Parameter or Module assigned before
                ``Module.__init__()`` ran (missing ``super().__init__()``).
            TypeError: a value that is not a Parameter (or None) assigned to a
                parameter name, not a Module (or None) to a module name, or
                not a tensor (or None) to a buffer name.
            KeyError: a ``Buffer`` assigned to a name that is already an
                ordinary attribute (as ``register_buffer`` raises).

        Example::

            >>> m = Module()
            >>> m.w = Parameter(torch.ones(2))     # registered
            >>> m.scale = torch.ones(1)            # a plain attribute
            >>> list(m._parameters)
            ['w']
        """
        ### BEGIN SOLUTION
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, self.__dict__, buffers, modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{torch.typename(value)}' as parameter '{name}' "
                    "(Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif is_module(value):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(name, self.__dict__, params, buffers, self._non_persistent_buffers_set)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{torch.typename(value)}' as child module '{name}' "
                    "(Module or None expected)"
                )
            modules[name] = value
        elif isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, torch.Tensor):
                raise TypeError(
                    f"cannot assign '{torch.typename(value)}' as buffer '{name}' "
                    "(Buffer, Tensor or None expected)"
                )
            persistent = value.persistent if isinstance(value, Buffer) else name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)
        ### END SOLUTION

    def __getattr__(self, name):
        """Find ``name`` in the registers (Python calls this only when the
        ordinary lookup failed).

        Raises:
            AttributeError: ``'Net' object has no attribute 'name'``.
        """
        ### BEGIN SOLUTION
        for register in ("_parameters", "_buffers", "_modules"):
            members = self.__dict__.get(register)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        ### END SOLUTION

    def __dir__(self):
        """The names ``dir(module)`` lists: the class's attributes, the
        instance's ``__dict__``, and every registered parameter, submodule and
        buffer, sorted; names starting with a digit (a container's ``"0"``) are
        left out, since they cannot be written as ``module.name``.

        Returns:
            list[str]: the sorted names (tab completion in Jupyter reads it).

        Example::

            >>> m = Module()
            >>> m.weight = Parameter(torch.ones(1))
            >>> "weight" in dir(m), "weight" in vars(m)
            (True, False)
        """
        ### BEGIN SOLUTION
        names = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers]
        return sorted(name for name in names if not name[0].isdigit())
        ### END SOLUTION

    def __delattr__(self, name):
        """Remove ``name`` from whichever register holds it, else from ``__dict__``."""
        ### BEGIN SOLUTION
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(self, name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{torch.typename(param)}' object to parameter '{name}' "
                "(Parameter or None required)"
            )
        if param is not None and param.grad_fn:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'")
        self._parameters[name] = param
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(self, name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, torch.Tensor):
            raise TypeError(
                f"cannot assign '{torch.typename(tensor)}' object to buffer '{name}' "
                "(Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        if module is not None and not is_module(module):
            raise TypeError(f"{torch.typename(module)} is not a Module subclass")
        _check_name(self, name, "module", self._modules)
        self._modules[name] = module
        ### END SOLUTION

    def register_module(self, name, module):
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)


def _remove_from(name, *registers):
    """Delete ``name`` from each register (dict or set) that holds it."""
    ### BEGIN SOLUTION
    for register in registers:
        if register is None or name not in register:
            continue
        if isinstance(register, set):
            register.discard(name)
        else:
            del register[name]
    ### END SOLUTION


def _check_name(module, name, kind, register):
    """Raise torch's error for a name that cannot be registered as ``kind``."""
    ### BEGIN SOLUTION
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {torch.typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\"")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")
    if hasattr(module, name) and name not in register:
        raise KeyError(f"attribute '{name}' already exists")
    ### END SOLUTION
