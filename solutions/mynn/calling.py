"""Exercise 04: ``__call__``, hooks and modes.

``model(x)`` is not ``model.forward(x)``: calling a module runs its forward
pre-hooks, then ``forward``, then its forward hooks, and a hook may replace
what flows through. Tools that look inside a model (feature extraction,
profiling, pruning) live in hooks, so code that calls ``forward`` directly
silently switches them off. The rest of this file walks the tree from
exercise 03 to switch modes and reset or freeze gradients.
"""
import itertools


class RemovableHandle:
    """What ``register_forward_hook`` returns: ``handle.remove()`` unregisters the hook.

    Example::

        >>> handle = model.register_forward_hook(print_shape)
        >>> model(x)        # prints
        >>> handle.remove()
        >>> model(x)        # does not
    """

    _ids = itertools.count()  # one counter for every hook table: ids never repeat

    def __init__(self, hooks):
        """Reserve a fresh id in ``hooks`` (the dict the hook is stored in)."""
        self.hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self):
        """Unregister the hook; removing twice is harmless."""
        ### BEGIN SOLUTION
        self.hooks.pop(self.id, None)
        ### END SOLUTION

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class Calling:
    """Calling a module, its hooks, and the modes and gradients of its tree."""

    def forward(self, *args, **kwargs):
        """Define the computation of the module; every subclass overrides it.

        Call the module (``model(x)``), not ``forward``: the call runs the hooks.

        Raises:
            NotImplementedError: the subclass defines no ``forward``.
        """
        ### BEGIN SOLUTION
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')
        ### END SOLUTION

    def __call__(self, *args, **kwargs):
        """Run the forward pre-hooks, ``forward``, then the forward hooks.

        Each pre-hook is called as ``hook(module, args)`` with the positional
        arguments as a tuple; a result other than ``None`` replaces them (a
        single value is wrapped into a one-element tuple). Each forward hook is
        called as ``hook(module, args, output)``; a result other than ``None``
        replaces the output. Keyword arguments go to ``forward`` only.

        Returns:
            The output of ``forward``, as the hooks left it.

        Example::

            >>> model.register_forward_pre_hook(lambda m, args: args[0] * 2)
            >>> model(x)        # forward receives x * 2
        """
        ### BEGIN SOLUTION
        for hook in list(self._forward_pre_hooks.values()):
            replaced = hook(self, args)
            if replaced is not None:
                args = replaced if isinstance(replaced, tuple) else (replaced,)
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            replaced = hook(self, args, output)
            if replaced is not None:
                output = replaced
        return output
        ### END SOLUTION

    def register_forward_pre_hook(self, hook, *, prepend=False):
        """Register ``hook(module, args)``, called before every ``forward``.

        Args:
            hook: returns ``None`` to keep the input, or the new input (a
                tuple, or a single value that is wrapped into one).
            prepend: run it before the hooks already registered, not after.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.
        """
        ### BEGIN SOLUTION
        return _register(self._forward_pre_hooks, hook, prepend)
        ### END SOLUTION

    def register_forward_hook(self, hook, *, prepend=False):
        """Register ``hook(module, args, output)``, called after every ``forward``.

        Args:
            hook: returns ``None`` to keep the output, or a new output.
            prepend: run it before the hooks already registered, not after.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example::

            >>> seen = []
            >>> handle = model.encoder.register_forward_hook(lambda m, args, out: seen.append(out))
        """
        ### BEGIN SOLUTION
        return _register(self._forward_hooks, hook, prepend)
        ### END SOLUTION

    def train(self, mode=True):
        """Set this module and every module below it to training mode (or not).

        Args:
            mode: ``True`` for training, ``False`` for evaluation.

        Returns:
            Module: ``self``, so that ``model = Net().train()`` works.

        Raises:
            ValueError: ``mode`` is not a bool.
        """
        ### BEGIN SOLUTION
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self
        ### END SOLUTION

    def eval(self):
        """Set evaluation mode: the same as ``train(False)``.

        Returns:
            Module: ``self``.
        """
        ### BEGIN SOLUTION
        return self.train(False)
        ### END SOLUTION

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every parameter of the tree.

        Args:
            set_to_none: set ``.grad`` to ``None`` (frees memory) instead of
                filling it with zeros. Either way the next ``backward()``
                starts afresh.
        """
        ### BEGIN SOLUTION
        for parameter in self.parameters():
            if parameter.grad is None:
                continue
            if set_to_none:
                parameter.grad = None
            else:
                # A grad computed under create_graph has a history; cut it before zeroing in place.
                if parameter.grad.grad_fn is not None:
                    parameter.grad.detach_()
                else:
                    parameter.grad.requires_grad_(False)
                parameter.grad.zero_()
        ### END SOLUTION

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` on every parameter of the tree, in place
        (``False`` freezes them: autograd stops tracking them).

        Returns:
            Module: ``self``.

        Example::

            >>> model.encoder.requires_grad_(False)   # fine-tune only the rest
        """
        ### BEGIN SOLUTION
        for parameter in self.parameters():
            parameter.requires_grad_(requires_grad)
        return self
        ### END SOLUTION


def _register(hooks, hook, prepend):
    """Store ``hook`` in the table ``hooks`` under a new handle's id."""
    ### BEGIN SOLUTION
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle
    ### END SOLUTION
