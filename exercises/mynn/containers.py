"""Exercise 05: containers, modules that hold modules.

A container is an ordinary ``Module`` whose children have no natural
attribute names. ``Sequential`` and ``ModuleList`` register theirs under
``"0"``, ``"1"``, ... and ``ModuleDict`` under the keys you give it. Every
operation only rearranges ``_modules``: that register is the container's
whole state, which is why a container's layers are seen by ``parameters()``,
``state_dict()`` and ``.to()`` while a plain Python list or dict of layers is
seen by none of them.

In the examples, ``Double`` is a small module whose ``forward`` returns ``2 * x``.
"""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

import torch

from ._given import described, is_tensor
from .module import Module
from .parameter import Parameter


class _ModuleSequence(Module):
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

    def pop(self, idx):
        """Remove the child (or the slice of children) at ``idx`` and return it.

        Args:
            idx: an integer position or a slice.

        Returns:
            The removed child; for a slice, a container of the removed children.

        Raises:
            IndexError: an integer ``idx`` out of range.

        Example::

            >>> layers = ModuleList([Module(), Sequential()])
            >>> type(layers.pop(-1)).__name__, len(layers)
            ('Sequential', 1)
        """
        raise NotImplementedError("exercise 05: pop")

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

    def extend(self, modules):
        """Append each module of an iterable, in order.

        Args:
            modules: an iterable of modules (a list, a generator, a container).

        Returns:
            ``self``.

        Raises:
            TypeError: ``modules`` is not iterable, or holds a non-Module.

        Example::

            >>> layers = ModuleList([Module()]).extend([Module(), Module()])
            >>> len(layers)
            3
        """
        raise NotImplementedError("exercise 05: extend")

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


class Sequential(_ModuleSequence):
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

    def __add__(self, other):
        """A new ``Sequential`` with this one's children, then ``other``'s.

        The children are shared, not copied.

        Raises:
            ValueError: ``other`` is not a Sequential.

        Example::

            >>> both = Sequential(Module()) + Sequential(Module())
            >>> list(both._modules)
            ['0', '1']
        """
        raise NotImplementedError("exercise 05: __add__")

    def __iadd__(self, other):
        """Append ``other``'s children to this Sequential, in place.

        Raises:
            ValueError: ``other`` is not a Sequential.

        Example::

            >>> model = Sequential(Module())
            >>> model += Sequential(Module())
            >>> len(model)
            2
        """
        raise NotImplementedError("exercise 05: __iadd__")

    def __mul__(self, times):
        """A new ``Sequential`` holding this one's children ``times`` times over,
        renumbered ``"0"``, ``"1"``, ... The children are shared, not copied.

        Args:
            times: a positive int.

        Raises:
            TypeError: ``times`` is not an int.
            ValueError: ``times`` is zero or negative.

        Example::

            >>> twice = Sequential(Double(), ReLU()) * 2
            >>> [type(m).__name__ for m in twice]
            ['Double', 'ReLU', 'Double', 'ReLU']
        """
        raise NotImplementedError("exercise 05: __mul__")

    def __rmul__(self, times):
        """``2 * model`` is ``model * 2``."""
        raise NotImplementedError("exercise 05: __rmul__")

    def __imul__(self, times):
        """Repeat this Sequential's children ``times`` times over, in place.

        As in torch, the children are looked up by their numbers ``"0"``,
        ``"1"``, ...: a Sequential built from an ``OrderedDict`` of named
        children raises ``KeyError``.

        Raises:
            TypeError: ``times`` is not an int.
            ValueError: ``times`` is zero or negative.

        Example::

            >>> model = Sequential(Double())
            >>> model *= 3
            >>> list(model._modules)
            ['0', '1', '2']
        """
        raise NotImplementedError("exercise 05: __imul__")

    def forward(self, input):
        """Feed ``input`` through each child in order, calling each one
        (``child(x)``, never ``child.forward(x)``) so that its hooks run.

        Returns:
            The last child's output; ``input`` itself when there are none.
        """
        raise NotImplementedError("exercise 05: forward")


class ModuleList(_ModuleSequence):
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

    def __add__(self, other):
        """A new ``ModuleList`` with this list's children, then those of
        ``other`` (any iterable of modules). The children are shared.

        Example::

            >>> both = ModuleList([Module()]) + [Module()]
            >>> type(both).__name__, len(both)
            ('ModuleList', 2)
        """
        raise NotImplementedError("exercise 05: __add__")

    def __iadd__(self, modules):
        """``layers += modules`` is ``layers.extend(modules)``.

        Example::

            >>> layers = ModuleList()
            >>> layers += [Module(), Module()]
            >>> len(layers)
            2
        """
        raise NotImplementedError("exercise 05: __iadd__")


class ModuleDict(Module):
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

    def __len__(self):
        """The number of children."""
        raise NotImplementedError("exercise 05: __len__")

    def __iter__(self):
        """Iterate over the keys, in insertion order, as a dict does."""
        raise NotImplementedError("exercise 05: __iter__")

    def __contains__(self, key):
        """Whether a child is registered under ``key``."""
        raise NotImplementedError("exercise 05: __contains__")

    def keys(self):
        """The keys, in order (a view of ``_modules``)."""
        raise NotImplementedError("exercise 05: keys")

    def values(self):
        """The children, in order (a view of ``_modules``)."""
        raise NotImplementedError("exercise 05: values")

    def items(self):
        """The ``(key, child)`` pairs, in order (a view of ``_modules``)."""
        raise NotImplementedError("exercise 05: items")

    def pop(self, key):
        """Unregister the child under ``key`` and return it.

        Raises:
            KeyError: no child has that key.

        Example::

            >>> heads = ModuleDict({"a": Module()})
            >>> type(heads.pop("a")).__name__, len(heads)
            ('Module', 0)
        """
        raise NotImplementedError("exercise 05: pop")

    def clear(self):
        """Unregister every child."""
        raise NotImplementedError("exercise 05: clear")

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


class ParameterList(Module):
    """A list of parameters, each registered under its position ``"0"``, ``"1"``, ...

    Index it, iterate over it, append to it like a Python list; every
    Parameter in it is seen by ``parameters()``, ``.to()`` and
    ``state_dict()``. A plain tensor added to it becomes a ``Parameter``; any
    other object is kept as an ordinary attribute under its position.

    Args:
        values: an iterable of parameters (or tensors, or other objects) to
            start with.

    Raises:
        TypeError: ``values`` is not iterable, or is a tensor (a tensor is
            never unpacked into its rows).

    Example::

        >>> weights = ParameterList([torch.zeros(2), Parameter(torch.ones(3))])
        >>> [name for name, _ in weights.named_parameters()]
        ['0', '1']
    """

    def __init__(self, values=None):
        raise NotImplementedError("exercise 05: __init__")

    def _position(self, idx):
        """The attribute name (``"0"``, ``"1"``, ...) of position ``idx``.

        Raises:
            TypeError: ``idx`` is not an integer.
            IndexError: ``idx`` is out of range.
        """
        raise NotImplementedError("exercise 05: _position")

    def __getitem__(self, idx):
        """The value at position ``idx``, or for a slice a new ``ParameterList``
        of those values (the same Parameter objects)."""
        raise NotImplementedError("exercise 05: __getitem__")

    def __setitem__(self, idx, value):
        """Put ``value`` at position ``idx``; a plain tensor is wrapped into a
        ``Parameter``. Every addition goes through here.

        Raises:
            IndexError: ``idx`` is out of range.
        """
        raise NotImplementedError("exercise 05: __setitem__")

    def __len__(self):
        """The number of values."""
        raise NotImplementedError("exercise 05: __len__")

    def __iter__(self):
        """Iterate over the values, in order."""
        raise NotImplementedError("exercise 05: __iter__")

    def __iadd__(self, values):
        """``weights += values`` is ``weights.extend(values)``."""
        raise NotImplementedError("exercise 05: __iadd__")

    def append(self, value):
        """Add ``value`` at the end.

        Returns:
            ``self``.
        """
        raise NotImplementedError("exercise 05: append")

    def extend(self, values):
        """Append each value of an iterable, in order.

        Returns:
            ``self``.

        Raises:
            TypeError: ``values`` is not iterable, or is a tensor.
        """
        raise NotImplementedError("exercise 05: extend")

    def extra_repr(self):
        """Given: one line per value, as torch prints it
        (``(0): Parameter containing: [torch.float32 of size 2x3]``)."""
        return "\n".join(f"  ({position}): {described(value, value.dtype if is_tensor(value) else None)}"
                         for position, value in enumerate(self))

    def __call__(self, *args, **kwargs):
        """Given: a ParameterList holds parameters; it is not a layer."""
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dictionary of parameters, each registered under its key.

    Keys keep their insertion order (``_keys``), and each value is the
    attribute named after its key: a Parameter is registered, a plain tensor
    becomes a Parameter, any other object is an ordinary attribute.

    Args:
        parameters: a mapping or an iterable of ``(key, value)`` pairs, as
            :meth:`update` takes.

    Example::

        >>> scales = ParameterDict({"left": torch.ones(1), "right": torch.zeros(1)})
        >>> [name for name, _ in scales.named_parameters()]
        ['left', 'right']
    """

    def __init__(self, parameters=None):
        raise NotImplementedError("exercise 05: __init__")

    def __getitem__(self, key):
        """The value under ``key``.

        Raises:
            TypeError: ``key`` is not a string.
            AttributeError: no value has that key (as torch raises it).
        """
        raise NotImplementedError("exercise 05: __getitem__")

    def __setitem__(self, key, value):
        """Put ``value`` under ``key``; a plain tensor is wrapped into a
        ``Parameter``. Every addition goes through here.

        Raises:
            TypeError: ``key`` is not a string.
        """
        raise NotImplementedError("exercise 05: __setitem__")

    def __delitem__(self, key):
        """Remove the value under ``key``.

        Raises:
            KeyError: no value has that key.
        """
        raise NotImplementedError("exercise 05: __delitem__")

    def __len__(self):
        """The number of keys."""
        raise NotImplementedError("exercise 05: __len__")

    def __iter__(self):
        """Iterate over the keys, in insertion order."""
        raise NotImplementedError("exercise 05: __iter__")

    def __contains__(self, key):
        """Whether a value is stored under ``key``."""
        raise NotImplementedError("exercise 05: __contains__")

    def keys(self):
        """The keys, in order."""
        raise NotImplementedError("exercise 05: keys")

    def items(self):
        """The ``(key, value)`` pairs, in order."""
        raise NotImplementedError("exercise 05: items")

    def values(self):
        """The values, in order."""
        raise NotImplementedError("exercise 05: values")

    def update(self, parameters):
        """Store each ``(key, value)`` of ``parameters``.

        An ``OrderedDict`` or ``ParameterDict`` is taken in its order, any
        other mapping (a plain ``dict``) in sorted key order, as torch does;
        an iterable of pairs in its order.

        Raises:
            TypeError: ``parameters`` is not iterable, or an element is not
                iterable.
            ValueError: an element does not have exactly two items.
        """
        raise NotImplementedError("exercise 05: update")

    # Given: the rest of a dict's methods, built on the ones above.

    def __reversed__(self):
        """Iterate over the keys, last first."""
        return reversed(self._keys)

    def copy(self):
        """A new ParameterDict holding the same values (not copies of them)."""
        return ParameterDict(OrderedDict((key, self[key]) for key in self._keys))

    def get(self, key, default=None):
        """The value under ``key``, or ``default`` when there is none."""
        return self[key] if key in self else default

    def setdefault(self, key, default=None):
        """The value under ``key``, after storing ``default`` there if there was none."""
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key):
        """Remove the value under ``key`` and return it."""
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Remove and return the last ``(key, value)`` pair.

        Raises:
            KeyError: the dict is empty.
        """
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self):
        """Remove every value."""
        for key in list(self._keys):
            del self[key]

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with ``default`` under each of ``keys``."""
        return ParameterDict((key, default) for key in keys)

    def __or__(self, other):
        """``a | b``: a copy of ``a`` updated with ``b``."""
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        """``b | a`` when only ``a`` is a ParameterDict."""
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        """``a |= b``: ``a.update(b)``."""
        self.update(other)
        return self

    def extra_repr(self):
        """Given: one line per value, as torch prints it
        (``(key): Parameter containing: [torch.FloatTensor of size 2]``)."""
        return "\n".join(f"  ({key}): {described(value, torch.typename(value) if is_tensor(value) else None)}"
                         for key, value in self.items())

    def __call__(self, input):
        """Given: a ParameterDict holds parameters; it is not a layer."""
        raise RuntimeError("ParameterDict should not be called.")


def _checked_pairs(container, pairs):
    """Yield each ``(key, value)`` of ``pairs`` after torch's checks that it is one.

    Args:
        container: the class name the messages start with (``"ModuleDict"``).
        pairs: an iterable of two-item iterables.

    Raises:
        TypeError: an element is not iterable.
        ValueError: an element does not have exactly two items.
    """
    raise NotImplementedError("exercise 05: _checked_pairs")


def _attribute_for(key):
    """The attribute a ParameterDict keeps ``key``'s value in: the key itself,
    so that ``named_parameters()`` names it by its key."""
    raise NotImplementedError("exercise 05: _attribute_for")


def _require_repeat_count(sequential, times):
    """``Sequential * times`` takes only a positive int."""
    raise NotImplementedError("exercise 05: _require_repeat_count")


def _require_sequential(other):
    """``+`` and ``+=`` on a Sequential take only another Sequential."""
    raise NotImplementedError("exercise 05: _require_sequential")
