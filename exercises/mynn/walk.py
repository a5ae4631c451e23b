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
        raise NotImplementedError("exercise 03: named_modules")

    def modules(self, remove_duplicate=True):
        """Yield every module of the tree, this one first: :meth:`named_modules` without names.

        Example::

            >>> sum(1 for _ in Module().modules())
            1
        """
        raise NotImplementedError("exercise 03: modules")

    def named_children(self):
        """Yield ``(name, module)`` for each direct child, skipping ``None``
        slots and any child already yielded under another name.

        Example::

            >>> net = Module()
            >>> net.encoder = Module()
            >>> [name for name, _ in net.named_children()]
            ['encoder']
        """
        raise NotImplementedError("exercise 03: named_children")

    def children(self):
        """Yield each direct child module: :meth:`named_children` without names."""
        raise NotImplementedError("exercise 03: children")

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
        raise NotImplementedError("exercise 03: named_parameters")

    def parameters(self, recurse=True):
        """Yield each parameter once: :meth:`named_parameters` without names.

        This is what an optimizer is given: ``SGD(model.parameters(), lr=0.1)``.
        """
        raise NotImplementedError("exercise 03: parameters")

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
        raise NotImplementedError("exercise 03: named_buffers")

    def buffers(self, recurse=True):
        """Yield each buffer once: :meth:`named_buffers` without names."""
        raise NotImplementedError("exercise 03: buffers")

    def _named_members(self, members_of, prefix, recurse, remove_duplicate):
        """Yield ``(dotted name, member)`` for ``members_of(module)`` over the walk.

        Args:
            members_of: a function from a module to its ``(name, member)`` pairs.
            prefix, recurse, remove_duplicate: as in :meth:`named_parameters`;
                ``remove_duplicate`` applies to the modules walked as well.
        """
        raise NotImplementedError("exercise 03: _named_members")


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
        raise NotImplementedError("exercise 03: get_submodule")

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
        raise NotImplementedError("exercise 03: set_submodule")

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
        raise NotImplementedError("exercise 03: get_parameter")

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
        raise NotImplementedError("exercise 03: get_buffer")

    def _owner_of(self, target):
        """``(module, name)`` for a dotted path: the submodule before the last
        dot, which must have an attribute ``name``.

        Raises:
            AttributeError: the module path is wrong, or ``name`` is missing.
        """
        raise NotImplementedError("exercise 03: _owner_of")


def _join(prefix, name):
    """``prefix.name``, or ``name`` alone at the top (no leading dot)."""
    raise NotImplementedError("exercise 03: _join")
