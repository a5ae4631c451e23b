"""Exercise 05: containers, modules that hold modules.

A container is an ordinary ``Module`` whose children have no natural
attribute names. ``Sequential`` and ``ModuleList`` register theirs under
``"0"``, ``"1"``, ... and ``ModuleDict`` under the keys you give it. Every
operation only rearranges ``_modules``: that register is the container's
whole state, which is why a container's layers are seen by ``parameters()``,
``state_dict()`` and ``.to()`` while a plain Python list or dict of layers is
seen by none of them.

You write the core here: registering, positions and slices, renumbering,
the dict's order and checks. The rest of torch's API is given and built on
your core: ``extend``, ``pop``, ``+``, ``*`` and the other dict methods in
``container_extras.py``, which these classes inherit, and ``ParameterList``
and ``ParameterDict`` in ``parameter_containers.py``.

In the examples, ``Double`` is a small module whose ``forward`` returns ``2 * x``.
"""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from .container_extras import MappingMethods, ModuleListOperators, SequenceMethods, SequentialOperators, checked_pairs
from .module import Module


class _ModuleSequence(Module, SequenceMethods):
    """What ``Sequential`` and ``ModuleList`` share: children kept in order and
    reached by position, with their names renumbered ``"0"``, ``"1"``, ...
    after a deletion."""

    def __len__(self):
        """The number of children.

        Example::

            >>> len(ModuleList([Module(), Module()]))
            2
        """
        raise NotImplementedError("exercise 05: __len__")

    def __iter__(self):
        """Iterate over the children, in order.

        Example::

            >>> first, second = Sequential(Module(), Module())
        """
        raise NotImplementedError("exercise 05: __iter__")

    def _key_at(self, idx):
        """The ``_modules`` key of the child at position ``idx``.

        Args:
            idx: an integer position; negative counts from the end.

        Raises:
            TypeError: ``idx`` is not an integer.
            IndexError: ``idx`` is out of range.
        """
        raise NotImplementedError("exercise 05: _key_at")

    def __setitem__(self, idx, module):
        """Replace the child at position ``idx``; it keeps its name and place.

        Args:
            idx: an integer position; negative counts from the end.
            module: the new child.

        Raises:
            IndexError: ``idx`` is out of range.
            TypeError: ``module`` is not a Module.

        Example::

            >>> layers = ModuleList([Module(), Module()])
            >>> layers[-1] = Sequential()
            >>> [type(m).__name__ for m in layers]
            ['Module', 'Sequential']
        """
        raise NotImplementedError("exercise 05: __setitem__")

    def __delitem__(self, idx):
        """Remove the child at ``idx`` (an integer or a slice), then renumber
        the children ``"0"``, ``"1"``, ... so the names match positions again.

        Raises:
            IndexError: an integer ``idx`` out of range.

        Example::

            >>> layers = ModuleList([Module(), Module(), Module()])
            >>> del layers[0]
            >>> list(layers._modules)
            ['0', '1']
        """
        raise NotImplementedError("exercise 05: __delitem__")

    def _renumber(self):
        """Rename the children ``"0"``, ``"1"``, ... in their current order."""
        raise NotImplementedError("exercise 05: _renumber")

    def append(self, module):
        """Add ``module`` at the end, named after its position.

        Args:
            module: the child to add.

        Returns:
            ``self``, so calls can be chained.

        Raises:
            TypeError: ``module`` is not a Module.

        Example::

            >>> layers = ModuleList().append(Module()).append(Module())
            >>> list(layers._modules)
            ['0', '1']
        """
        raise NotImplementedError("exercise 05: append")

    def insert(self, index, module):
        """Insert ``module`` before position ``index``, shifting the later
        children one name up.

        Args:
            index: a position from ``-len(self)`` to ``len(self)``.
            module: the child to insert.

        Returns:
            ``self``.

        Raises:
            AssertionError: ``module`` is not a Module (as torch raises it).
            IndexError: ``index`` is out of range.

        Example::

            >>> seq = Sequential(Module()).insert(0, ModuleList())
            >>> [type(m).__name__ for m in seq]
            ['ModuleList', 'Module']
        """
        raise NotImplementedError("exercise 05: insert")


class Sequential(_ModuleSequence, SequentialOperators):
    """A chain of modules: calling it feeds the input through each child in
    turn and returns the last child's output.

    Args:
        *args: the children, named ``"0"``, ``"1"``, ...; or a single
            ``OrderedDict`` mapping names to children.

    Raises:
        TypeError: a child that is not a Module (a plain ``dict`` is not
            accepted as names: only an ``OrderedDict`` is).
        KeyError: a name that ``add_module`` rejects.

    Example::

        >>> model = Sequential(Double(), Double())
        >>> model(torch.ones(1))
        tensor([4.])
        >>> named = Sequential(OrderedDict([("encode", Double()), ("decode", Double())]))
        >>> list(named._modules)
        ['encode', 'decode']
    """

    def __init__(self, *args):
        raise NotImplementedError("exercise 05: __init__")

    def __getitem__(self, idx):
        """The child at position ``idx``, or for a slice a new container of
        the same class holding those children under their current names.

        Raises:
            IndexError: an integer ``idx`` out of range.
            TypeError: ``idx`` is neither an integer nor a slice.

        Example::

            >>> model = Sequential(Module(), Module(), Module())
            >>> list(model[1:]._modules)      # names are kept, not renumbered
            ['1', '2']
        """
        raise NotImplementedError("exercise 05: __getitem__")

    def forward(self, input):
        """Feed ``input`` through each child in order, calling each one
        (``child(x)``, never ``child.forward(x)``) so that its hooks run.

        Returns:
            The last child's output; ``input`` itself when there are none.
        """
        raise NotImplementedError("exercise 05: forward")


class ModuleList(_ModuleSequence, ModuleListOperators):
    """A list of modules, registered as children ``"0"``, ``"1"``, ...

    Index it, iterate over it, append to it like a Python list; unlike a
    Python list, every layer in it is seen by ``parameters()``, ``.to()``
    and ``state_dict()``. It has no ``forward``: you decide how to call the
    layers.

    Args:
        modules: an iterable of modules to start with.

    Raises:
        TypeError: ``modules`` is not iterable, or holds a non-Module.

    Example::

        >>> class Tower(Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.blocks = ModuleList([Double() for _ in range(3)])
        ...     def forward(self, x):
        ...         for block in self.blocks:
        ...             x = block(x)
        ...         return x
        >>> list(Tower().blocks._modules)
        ['0', '1', '2']
    """

    # Given: print(ModuleList) folds runs of equal layers, as torch does
    # (printing itself is exercise 08).
    _repr_folds_repeats = True

    def __init__(self, modules=None):
        raise NotImplementedError("exercise 05: __init__")

    def __getitem__(self, idx):
        """The child at position ``idx``, or for a slice a new container of
        the same class holding those children renumbered from ``"0"``.

        Raises:
            IndexError: an integer ``idx`` out of range.
            TypeError: ``idx`` is neither an integer nor a slice.

        Example::

            >>> layers = ModuleList([Module(), Module(), Module()])
            >>> list(layers[1:]._modules)     # renumbered, unlike Sequential
            ['0', '1']
        """
        raise NotImplementedError("exercise 05: __getitem__")

class ModuleDict(Module, MappingMethods):
    """A dictionary of modules, each registered as a child under its key.

    Keys keep their insertion order. A key must be a name ``add_module``
    accepts: a non-empty string without ".".

    Args:
        modules: a mapping of names to modules (``dict``, ``OrderedDict``,
            another ``ModuleDict``) or an iterable of ``(name, module)`` pairs.

    Raises:
        TypeError: ``modules`` is not iterable, or a value is not a Module.
        ValueError: a pair that does not have exactly two items.

    Example::

        >>> heads = ModuleDict({"left": Double(), "right": Module()})
        >>> list(heads.keys()), "left" in heads
        (['left', 'right'], True)
    """

    def __init__(self, modules=None):
        raise NotImplementedError("exercise 05: __init__")

    def __getitem__(self, key):
        """The child registered under ``key``.

        Raises:
            KeyError: no child has that key.
        """
        raise NotImplementedError("exercise 05: __getitem__")

    def __setitem__(self, key, module):
        """Register ``module`` under ``key``; an existing key keeps its place.

        Raises:
            TypeError: ``key`` is not a string, or ``module`` not a Module.
            KeyError: ``key`` is empty, contains ".", or names an attribute.

        Example::

            >>> heads = ModuleDict()
            >>> heads["out"] = Module()
            >>> list(heads._modules)
            ['out']
        """
        raise NotImplementedError("exercise 05: __setitem__")

    def __delitem__(self, key):
        """Unregister the child under ``key``.

        Raises:
            KeyError: no child has that key.
        """
        raise NotImplementedError("exercise 05: __delitem__")

    def __iter__(self):
        """Iterate over the keys, in insertion order, as a dict does."""
        raise NotImplementedError("exercise 05: __iter__")

    def update(self, modules):
        """Register each ``(key, module)`` of a mapping or of an iterable of
        pairs, in its order; existing keys are overwritten in place.

        Args:
            modules: a mapping (``dict``, ``OrderedDict``, ``ModuleDict``) or
                an iterable of ``(key, module)`` pairs.

        Raises:
            TypeError: ``modules`` is not iterable, an element is not a pair,
                or a value is not a Module.
            ValueError: an element does not have exactly two items.

        Example::

            >>> heads = ModuleDict({"a": Module()})
            >>> heads.update([("b", Module()), ("a", Sequential())])
            >>> [(k, type(m).__name__) for k, m in heads.items()]
            [('a', 'Sequential'), ('b', 'Module')]
        """
        raise NotImplementedError("exercise 05: update")
