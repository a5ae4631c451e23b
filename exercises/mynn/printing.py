"""Exercise 08 (part 1): ``print(model)``.

``repr(model)`` is a walk over ``_modules``, like every other ``Module``
method: each child prints itself, indented under ``(name): ``, and each layer
adds its own settings through ``extra_repr``. A layer left out of the
registers is left out of the printout too, which makes ``print(model)`` the
quickest check that every layer was registered::

    Net(
      (body): Sequential(
        (0): Linear(in_features=2, out_features=4, bias=True)
        (1): ReLU()
      )
      (head): Linear(in_features=4, out_features=1, bias=True)
    )
"""


class Printing:
    """``__repr__`` for modules: the module tree, one child per line."""

    def _get_name(self):
        """Given: the name a module prints under, its class's name (``"Linear"``);
        a class may override it to print under another."""
        return type(self).__name__

    def extra_repr(self):
        """The module's own settings, printed inside its parentheses.

        Layers override it; the base module has nothing to add.

        Returns:
            A string, one line per setting group, or ``""`` for none.

        Example::

            >>> Linear(2, 3).extra_repr()
            'in_features=2, out_features=3, bias=True'
        """
        raise NotImplementedError("exercise 08: extra_repr")

    def __repr__(self):
        """The module tree: the name, then ``extra_repr``'s lines and one
        ``(name): child`` line per registered child, each indented by two
        spaces (a child's own lines too).

        A module with a one-line ``extra_repr`` and no children prints on one
        line; an empty ``None`` child slot prints as ``(name): None``. A
        class with ``_repr_folds_repeats = True`` (``ModuleList``) prints a
        run of equal children once: ``(1-2): 2 x Linear(...)``.

        Example::

            >>> print(Sequential(Linear(2, 4), ReLU()))
            Sequential(
              (0): Linear(in_features=2, out_features=4, bias=True)
              (1): ReLU()
            )
        """
        raise NotImplementedError("exercise 08: __repr__")


def _indent(text, spaces):
    """Indent every line of ``text`` but the first by ``spaces`` spaces; lines
    left blank stay empty."""
    raise NotImplementedError("exercise 08: _indent")


def _fold_repeats(children):
    """Given: merge runs of equal ``(name, text)`` children into ``("1-2", "2 x text")``,
    as torch prints a ``ModuleList`` of repeated layers."""
    runs = []  # [first name, last name, count, text]
    for name, text in children:
        if runs and runs[-1][3] == text:
            runs[-1][1] = name
            runs[-1][2] += 1
        else:
            runs.append([name, name, 1, text])
    return [(first, text) if count == 1 else (f"{first}-{last}", f"{count} x {text}")
            for first, last, count, text in runs]
