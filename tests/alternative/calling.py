"""Exercise 04 written unlike the reference: __call__ keeps the call's state
in a nested function's closure (as torch's _call_impl does) instead of a
namespace and helper functions, the hook registrations share a helper of
their own, and the tree methods loop with filter()."""


class RemovableHandle:
    def remove(self):
        tables = [self.hooks_dict_ref()] + [reference() for reference in self.extra_dict_ref]
        for table in [t for t in tables if t is not None and self.id in t]:
            del table[self.id]


class Calling:
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        result = None
        already_ran = set()

        def run():
            nonlocal args, kwargs, result
            backward = backward_hook(self)
            for hook_id, hook in tuple(self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    new = hook(self, args, kwargs)
                    if new is not None:
                        if not isinstance(new, tuple) or len(new) != 2:
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {new}.")
                        args, kwargs = new
                    continue
                new = hook(self, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
            args = attach_to_inputs(backward, args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in tuple(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    already_ran.add(hook_id)
                new = _hook_result(self, hook_id, hook, args, kwargs, result)
                result = result if new is None else new
            return attach_to_output(backward, result)

        try:
            return run()
        except Exception:
            for hook_id, hook in tuple(self._forward_hooks.items()):
                if hook_id not in self._forward_hooks_always_called or hook_id in already_ran:
                    continue
                try:
                    new = _hook_result(self, hook_id, hook, args, kwargs, result)
                except Exception as error:
                    warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                  f"silenced as another error was raised in forward: {error}", stacklevel=2)
                else:
                    result = result if new is None else new
            raise

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return _new_hook(self._forward_pre_hooks, hook, prepend, {"with_kwargs": with_kwargs},
                         {"with_kwargs": self._forward_pre_hooks_with_kwargs})

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        return _new_hook(self._forward_hooks, hook, prepend, {"with_kwargs": with_kwargs, "always_call": always_call},
                         {"with_kwargs": self._forward_hooks_with_kwargs,
                          "always_call": self._forward_hooks_always_called})

    def train(self, mode=True):
        if type(mode) is not bool:
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self):
        return self.train(mode=False)

    def zero_grad(self, set_to_none=True):
        for parameter in filter(lambda p: p.grad is not None, self.parameters()):
            if set_to_none:
                parameter.grad = None
                continue
            grad = parameter.grad
            if grad.grad_fn is None:
                grad.requires_grad_(False)
            else:
                grad.detach_()
            grad.zero_()

    def requires_grad_(self, requires_grad=True):
        for parameter in self.parameters():
            parameter.requires_grad = requires_grad
        return self


def _new_hook(hooks, hook, prepend, options, marks):
    """Register ``hook`` in ``hooks``; each option that is on is marked in its table."""
    handle = RemovableHandle(hooks, extra_dict=list(marks.values()))
    hooks[handle.id] = hook
    for option, table in marks.items():
        if options[option]:
            table[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _hook_result(module, hook_id, hook, args, kwargs, result):
    if hook_id in module._forward_hooks_with_kwargs:
        return hook(module, args, kwargs, result)
    return hook(module, args, result)
