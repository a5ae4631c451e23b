"""Exercise 03: the recursive walk.

Everything a model does with "all its parameters" (the optimizer, saving,
``.to()``, ``zero_grad``) starts from one walk over the registers of
exercise 02: a module's own members first, in the order they were assigned,
then each child's, depth first, with dotted names (``encoder.weight``). A
tensor or module reachable twice (tied weights, a shared layer) is yielded
once, where the walk meets it first. ``get_submodule`` and its siblings go
the other way: from a dotted name to the object it names.
"""
from ._given import is_module
from .parameter import Parameter


class Walk:
    """Iterators over a module's parameters, buffers and submodules."""

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yield ``(name, module)`` for this module and every module below it.

        The module itself comes first (named ``prefix``), then each child's
        subtree in registration order, depth first. Empty (``None``) slots
        are skipped.

        Args:
            memo: a set of modules already yielded, shared by the recursive
                calls (``None``: start a new one). Modules in it are skipped,
                with everything below them.
            prefix: the name of this module; children get ``prefix.name``.
            remove_duplicate: yield a module reachable under several names
                only once (the first); ``False`` yields it under each name.

        Yields:
            (str, Module): the dotted name and the module.

        Example::

            >>> shared = Module()
            >>> net = Module()
            >>> net.a, net.b = shared, shared
            >>> [name for name, _ in net.named_modules()]
            ['', 'a']
        """
        ### BEGIN SOLUTION
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, _join(prefix, name), remove_duplicate)
        ### END SOLUTION

    def modules(self, remove_duplicate=True):
        """Yield every module of the tree, this one first: :meth:`named_modules` without names.

        Example::

            >>> sum(1 for _ in Module().modules())
            1
        """
        ### BEGIN SOLUTION
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module
        ### END SOLUTION

    def named_children(self):
        """Yield ``(name, module)`` for each direct child, skipping ``None``
        slots and any child already yielded under another name.

        Example::

            >>> net = Module()
            >>> net.encoder = Module()
            >>> [name for name, _ in net.named_children()]
            ['encoder']
        """
        ### BEGIN SOLUTION
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module
        ### END SOLUTION

    def children(self):
        """Yield each direct child module: :meth:`named_children` without names."""
        ### BEGIN SOLUTION
        for _, module in self.named_children():
            yield module
        ### END SOLUTION

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(name, parameter)`` for this module's parameters and, with
        ``recurse``, those of every submodule.

        Own parameters come first, in assignment order, then each submodule's
        in :meth:`named_modules` order. ``None`` slots are skipped.

        Args:
            prefix: prepended to every name, with a dot.
            recurse: also walk the submodules; ``False`` yields only this
                module's direct parameters.
            remove_duplicate: yield a parameter reachable under several names
                (tied weights, shared modules) only once, under the first.

        Yields:
            (str, Parameter): the dotted name and the parameter itself (not a copy).

        Example::

            >>> net = Module()
            >>> net.scale = Parameter(torch.ones(1))
            >>> net.body = Module()
            >>> net.body.weight = Parameter(torch.ones(2, 2))
            >>> [name for name, _ in net.named_parameters()]
            ['scale', 'body.weight']
        """
        ### BEGIN SOLUTION
        yield from self._named_members(lambda module: module._parameters.items(), prefix, recurse, remove_duplicate)
        ### END SOLUTION

    def parameters(self, recurse=True):
        """Yield each parameter once: :meth:`named_parameters` without names.

        This is what an optimizer is given: ``SGD(model.parameters(), lr=0.1)``.
        """
        ### BEGIN SOLUTION
        for _, parameter in self.named_parameters(recurse=recurse):
            yield parameter
        ### END SOLUTION

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(name, buffer)`` like :meth:`named_parameters` does for parameters.

        Persistent and non-persistent buffers alike are yielded; ``None``
        slots are skipped.

        Example::

            >>> net = Module()
            >>> net.register_buffer("running_mean", torch.zeros(3))
            >>> [name for name, _ in net.named_buffers(prefix="bn")]
            ['bn.running_mean']
        """
        ### BEGIN SOLUTION
        yield from self._named_members(lambda module: module._buffers.items(), prefix, recurse, remove_duplicate)
        ### END SOLUTION

    def buffers(self, recurse=True):
        """Yield each buffer once: :meth:`named_buffers` without names."""
        ### BEGIN SOLUTION
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer
        ### END SOLUTION

    def _named_members(self, members_of, prefix, recurse, remove_duplicate):
        """Yield ``(dotted name, member)`` for ``members_of(module)`` over the walk.

        Args:
            members_of: a function from a module to its ``(name, member)`` pairs.
            prefix, recurse, remove_duplicate: as in :meth:`named_parameters`;
                ``remove_duplicate`` applies to the modules walked as well.
        """
        ### BEGIN SOLUTION
        seen = set()  # tensors hash by identity, so this remembers objects, not values
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, member in members_of(module):
                if member is None or member in seen:
                    continue
                if remove_duplicate:
                    seen.add(member)
                yield _join(module_prefix, name), member
        ### END SOLUTION


    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` (``"encoder.0"``).

        Follows one attribute per name, so it costs the depth of the path, not
        a walk of the whole tree.

        Args:
            target: dotted names from this module; ``""`` is the module itself.

        Returns:
            Module: the submodule.

        Raises:
            AttributeError: a name along the path is missing (``Net has no
                attribute `decoder```) or is not a Module (```weight` is not an
                nn.Module``).

        Example::

            >>> net = Module()
            >>> net.encoder = Module()
            >>> net.get_submodule("encoder") is net.encoder
            True
        """
        ### BEGIN SOLUTION
        module = self
        if target == "":
            return module
        for name in target.split("."):
            if not hasattr(module, name):
                raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
            module = getattr(module, name)
            if not is_module(module):
                raise AttributeError(f"`{name}` is not an nn.Module")
        return module
        ### END SOLUTION

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at the dotted path ``target``, replacing what is there.

        The parent (everything before the last dot) must exist; the last name
        is assigned with ``setattr``, so the new submodule is registered.

        Args:
            target: a non-empty dotted path (``"encoder.linear"``).
            module: the Module to put there.
            strict: only replace an existing attribute; never add one.

        Raises:
            ValueError: ``target`` is empty, or ``module`` is not a Module.
            AttributeError: the parent path does not resolve to modules, the
                last name exists but is not a Module, or (``strict``) the
                last name does not exist.

        Example::

            >>> net = Module()
            >>> net.set_submodule("head", Module())
            >>> list(net._modules)
            ['head']
        """
        ### BEGIN SOLUTION
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not is_module(module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        exists = hasattr(parent, name)
        if strict and not exists:
            raise AttributeError(f"{type(parent).__name__} has no attribute `{name}`")
        if exists and not is_module(getattr(parent, name)):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)
        ### END SOLUTION

    def get_parameter(self, target):
        """The parameter at the dotted path ``target`` (``"encoder.weight"``).

        Raises:
            AttributeError: the path is wrong, or ends in something that is
                not a Parameter.

        Example::

            >>> net = Module()
            >>> net.scale = Parameter(torch.ones(1))
            >>> net.get_parameter("scale") is net.scale
            True
        """
        ### BEGIN SOLUTION
        module, name = self._owner_of(target)
        value = getattr(module, name)
        if not isinstance(value, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return value
        ### END SOLUTION

    def get_buffer(self, target):
        """The buffer at the dotted path ``target`` (``"bn.running_mean"``).

        Raises:
            AttributeError: the path is wrong, or ends in something that is
                not a registered buffer.

        Example::

            >>> net = Module()
            >>> net.register_buffer("steps", torch.zeros(1))
            >>> net.get_buffer("steps") is net.steps
            True
        """
        ### BEGIN SOLUTION
        module, name = self._owner_of(target)
        value = getattr(module, name)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return value
        ### END SOLUTION

    def _owner_of(self, target):
        """``(module, name)`` for a dotted path: the submodule before the last
        dot, which must have an attribute ``name``.

        Raises:
            AttributeError: the module path is wrong, or ``name`` is missing.
        """
        ### BEGIN SOLUTION
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        return module, name
        ### END SOLUTION


def _join(prefix, name):
    """``prefix.name``, or ``name`` alone at the top (no leading dot)."""
    ### BEGIN SOLUTION
    return f"{prefix}.{name}" if prefix else name
    ### END SOLUTION
