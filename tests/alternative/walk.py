"""Exercise 03 written unlike the reference: named_modules walks with an
explicit stack instead of recursion, members are deduplicated by id in a
dict, and dotted paths are followed with functools.reduce."""
import functools


class Walk:
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        seen = set() if memo is None else memo
        pending = [(prefix, self)]
        while pending:
            name, module = pending.pop()
            if module in seen:
                continue
            if remove_duplicate:
                seen.add(module)
            yield name, module
            children = [(_dotted(name, key), child) for key, child in module._modules.items() if child is not None]
            pending.extend(reversed(children))

    def modules(self, remove_duplicate=True):
        return (module for _, module in self.named_modules(remove_duplicate=remove_duplicate))

    def named_children(self):
        yielded = {}
        for name, module in self._modules.items():
            if module is not None and id(module) not in yielded:
                yielded[id(module)] = module
                yield name, module

    def children(self):
        return (module for _, module in self.named_children())

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return _tree_members(self, "_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        return (parameter for _, parameter in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return _tree_members(self, "_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        return (buffer for _, buffer in self.named_buffers(recurse=recurse))

    def get_submodule(self, target):
        return functools.reduce(_child_named, target.split("."), self) if target else self

    def set_submodule(self, target, module, strict=False):
        if not target:
            raise ValueError("Cannot set the submodule without a target name!")
        if not is_module(module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        *path, name = target.split(".")
        parent = self.get_submodule(".".join(path))
        if not hasattr(parent, name):
            if strict:
                raise AttributeError(f"{type(parent).__name__} has no attribute `{name}`")
        elif not is_module(getattr(parent, name)):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        module, name, value = _resolve(self, target)
        if isinstance(value, Parameter):
            return value
        raise AttributeError(f"`{name}` is not an nn.Parameter")

    def get_buffer(self, target):
        module, name, value = _resolve(self, target)
        if name in module._buffers:
            return value
        raise AttributeError(f"`{name}` is not a buffer")


def _dotted(prefix, name):
    return ".".join(part for part in (prefix, name) if part)


def _tree_members(root, register, prefix, recurse, remove_duplicate):
    """``(dotted name, member)`` of ``register`` over the tree, each object once if asked."""
    walked = root.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, root)]
    already = {}
    for module_prefix, module in walked:
        for name, member in getattr(module, register).items():
            if member is None or id(member) in already:
                continue
            if remove_duplicate:
                already[id(member)] = member
            yield _dotted(module_prefix, name), member


def _child_named(module, name):
    if not hasattr(module, name):
        raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
    child = getattr(module, name)
    if not is_module(child):
        raise AttributeError(f"`{name}` is not an nn.Module")
    return child


def _resolve(root, target):
    """``(module, name, value)`` for a dotted path to an attribute of a submodule."""
    path, _, name = target.rpartition(".")
    module = root.get_submodule(path)
    if not hasattr(module, name):
        raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
    return module, name, getattr(module, name)
