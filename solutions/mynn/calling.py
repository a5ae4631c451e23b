"""Exercise 04: ``__call__``, hooks and modes.

``model(x)`` is not ``model.forward(x)``: calling a module runs its forward
pre-hooks, then ``forward``, then its forward hooks, and a hook may replace
what flows through. Tools that look inside a model (feature extraction,
profiling, pruning) live in hooks, so code that calls ``forward`` directly
silently switches them off. The rest of this file walks the tree from
exercise 03 to switch modes and reset or freeze gradients.
"""
import warnings
import weakref
from types import SimpleNamespace

from ._given import attach_to_inputs, attach_to_output, backward_hook


class RemovableHandle:
    """What ``register_forward_hook`` returns: ``handle.remove()`` unregisters the hook.

    Args:
        hooks_dict: the table the hook is stored in, under ``handle.id``.
        extra_dict: a table (or a list of tables) that marks the same id, such
            as ``_forward_hooks_with_kwargs``; ``remove()`` clears it too.

    The handle holds its tables by weak reference, as torch's does: a handle
    kept after its module is gone keeps nothing alive.

    Example::

        >>> handle = model.register_forward_hook(print_shape)
        >>> model(x)        # prints
        >>> handle.remove()
        >>> model(x)        # does not
        >>> with model.register_forward_hook(print_shape):
        ...     model(x)    # prints, and the hook is removed on leaving the block
    """

    next_id = 0  # one counter for every hook table: ids never repeat

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extra = [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict or [])
        self.extra_dict_ref = tuple(weakref.ref(table) for table in extra)

    def remove(self):
        """Unregister the hook from its table and from every extra table;
        removing twice, or after the module is gone, is harmless."""
        ### BEGIN SOLUTION
        for reference in (self.hooks_dict_ref, *self.extra_dict_ref):
            table = reference()
            if table is not None:
                table.pop(self.id, None)
        ### END SOLUTION

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


class Calling:
    """Calling a module, its hooks, and the modes and gradients of its tree.

    ``Module.__init__`` gives every module ``training = True`` and the hook
    tables (``OrderedDict``s from a handle's id to a hook, in the order they
    run): ``_forward_pre_hooks``, ``_forward_hooks``, and the tables that only
    mark ids, ``_forward_pre_hooks_with_kwargs``, ``_forward_hooks_with_kwargs``
    and ``_forward_hooks_always_called`` (given: ``_given.init_module_state``).
    Backward hooks are given too (``_given.BackwardHooks``).
    """

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
        single value is wrapped into a one-element tuple). A pre-hook
        registered ``with_kwargs=True`` is called as ``hook(module, args,
        kwargs)`` and returns ``None`` or a new ``(args, kwargs)`` pair.

        Each forward hook is called as ``hook(module, args, output)`` (or
        ``hook(module, args, kwargs, output)`` with ``with_kwargs=True``); a
        result other than ``None`` replaces the output. If a pre-hook,
        ``forward`` or a hook raises, every hook registered with
        ``always_call=True`` that has not run yet still runs (its own errors
        are only warned about), and then the first exception propagates.

        Backward hooks (given functions, imported above): ``backward_hook(self)``
        makes torch's helper before the pre-hooks; ``attach_to_inputs`` wraps
        the arguments just before ``forward``, ``attach_to_output`` the output
        after the forward hooks.

        Returns:
            The output of ``forward``, as the hooks left it.

        Raises:
            RuntimeError: a ``with_kwargs`` pre-hook returned something other
                than ``None`` or an ``(args, kwargs)`` pair.

        Example::

            >>> model.register_forward_pre_hook(lambda m, args: args[0] * 2)
            >>> model(x)        # forward receives x * 2
        """
        ### BEGIN SOLUTION
        # One call's arguments and result, as the hooks leave them: a failure
        # halfway still hands the always-called hooks what was there.
        call = SimpleNamespace(args=args, kwargs=kwargs, result=None, ran=set())
        try:
            backward = backward_hook(self)
            _run_forward_pre_hooks(self, call)
            call.args = attach_to_inputs(backward, call.args)
            call.result = self.forward(*call.args, **call.kwargs)
            _run_forward_hooks(self, call)
            return attach_to_output(backward, call.result)
        except Exception:
            _run_missed_always_called_hooks(self, call)
            raise
        ### END SOLUTION

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Register ``hook(module, args)``, called before every ``forward``.

        Args:
            hook: returns ``None`` to keep the input, or the new input (a
                tuple, or a single value that is wrapped into one).
            prepend: run it before the hooks already registered, not after.
            with_kwargs: call it as ``hook(module, args, kwargs)``; it returns
                ``None`` or a new ``(args, kwargs)`` pair.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook (and its
            ``with_kwargs`` mark).

        Example::

            >>> def scale(module, args, kwargs):
            ...     return args, {**kwargs, "offset": 1}
            >>> handle = model.register_forward_pre_hook(scale, with_kwargs=True)
        """
        ### BEGIN SOLUTION
        return _register(self._forward_pre_hooks, hook, prepend, [(self._forward_pre_hooks_with_kwargs, with_kwargs)])
        ### END SOLUTION

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Register ``hook(module, args, output)``, called after every ``forward``.

        Args:
            hook: returns ``None`` to keep the output, or a new output.
            prepend: run it before the hooks already registered, not after.
            with_kwargs: call it as ``hook(module, args, kwargs, output)``.
            always_call: run it even when a pre-hook, ``forward`` or another
                hook raises (its ``output`` is then whatever was computed so
                far, ``None`` if ``forward`` never returned).

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook and its marks.

        Example::

            >>> seen = []
            >>> handle = model.encoder.register_forward_hook(lambda m, args, out: seen.append(out))
        """
        ### BEGIN SOLUTION
        marks = [(self._forward_hooks_with_kwargs, with_kwargs), (self._forward_hooks_always_called, always_call)]
        return _register(self._forward_hooks, hook, prepend, marks)
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


def _register(hooks, hook, prepend, marks):
    """Store ``hook`` in the table ``hooks`` under a new handle's id.

    Args:
        hooks: the table (an ``OrderedDict``) the hook runs from.
        hook: the function.
        prepend: move it to the front of ``hooks``.
        marks: ``[(table, flag), ...]``: tables that mark an option; the id
            is marked in each table whose flag is set, and the handle clears
            them all on ``remove()``.

    Returns:
        RemovableHandle: the new handle.
    """
    ### BEGIN SOLUTION
    handle = RemovableHandle(hooks, extra_dict=[table for table, _ in marks])
    hooks[handle.id] = hook
    for table, flag in marks:
        if flag:
            table[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle
    ### END SOLUTION


def _run_forward_pre_hooks(module, call):
    """Run ``module``'s pre-hooks in order; each may replace ``call.args``
    (and, with kwargs, ``call.kwargs``)."""
    ### BEGIN SOLUTION
    for hook_id, hook in list(module._forward_pre_hooks.items()):
        if hook_id in module._forward_pre_hooks_with_kwargs:
            replaced = hook(module, call.args, call.kwargs)
            if replaced is None:
                continue
            if not (isinstance(replaced, tuple) and len(replaced) == 2):
                raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                   f"but got {replaced}.")
            call.args, call.kwargs = replaced
        else:
            replaced = hook(module, call.args)
            if replaced is not None:
                call.args = replaced if isinstance(replaced, tuple) else (replaced,)
    ### END SOLUTION


def _run_forward_hooks(module, call):
    """Run ``module``'s forward hooks in order; each may replace ``call.result``.
    Always-called hooks are noted in ``call.ran`` before they run."""
    ### BEGIN SOLUTION
    for hook_id, hook in list(module._forward_hooks.items()):
        if hook_id in module._forward_hooks_always_called:
            call.ran.add(hook_id)
        replaced = _call_forward_hook(module, hook_id, hook, call)
        if replaced is not None:
            call.result = replaced
    ### END SOLUTION


def _run_missed_always_called_hooks(module, call):
    """After a failure: run each always-called hook that has not run in this
    call; an exception it raises becomes a warning, so the first error wins."""
    ### BEGIN SOLUTION
    for hook_id, hook in list(module._forward_hooks.items()):
        if hook_id not in module._forward_hooks_always_called or hook_id in call.ran:
            continue
        try:
            replaced = _call_forward_hook(module, hook_id, hook, call)
        except Exception as error:  # the original failure is the one to report
            warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                          f"silenced as another error was raised in forward: {error}", stacklevel=3)
            continue
        if replaced is not None:
            call.result = replaced
    ### END SOLUTION


def _call_forward_hook(module, hook_id, hook, call):
    """Call one forward hook, with the keyword arguments if it asked for them."""
    ### BEGIN SOLUTION
    if hook_id in module._forward_hooks_with_kwargs:
        return hook(module, call.args, call.kwargs, call.result)
    return hook(module, call.args, call.result)
    ### END SOLUTION

