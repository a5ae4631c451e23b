"""What exercise 05's scenarios put in containers and observe of them: small tagged
leaves (``nn.Linear`` comes in exercise 08), views of a container's register, and the
workbench that applies random list operations to a Sequential or ModuleList."""
from __future__ import annotations

import functools

from modlab.grading import attempt
from modlab.grading.fields import Field

from ..shared.probes import ATTRIBUTES, MODULES

# The fields scenarios observe under and detectors read, each defined once here.
CONTAINER_TYPE = Field("type")
REGISTERED = Field("registered")
OPERATION = Field("operation")
LENGTHS = Field("len(model), len(named)")
IS_CHILD = Field(" is child ")  # "model[-1] is child 2": indexing finds that child (see is_child())
HOLDS = " holds "  # "model[1:3] holds children 1, 2": the children are those objects (see holding())
NO_MODULES = "<no _modules>"  # what contents() shows for a container with no _modules register
GET_SLICE = "get_slice"  # the random list operation that reads a slice


def holding(expression: str, what: str) -> str:
    """The name under which a scenario observes whether ``expression`` holds the objects ``what`` names."""
    return f"{expression}{HOLDS}{what}"


def is_child(expression: str, index: int) -> str:
    """The name under which a scenario observes whether ``expression`` is the child at ``index``."""
    return f"{expression}{IS_CHILD}{index}"


@functools.lru_cache(maxsize=None)
def tagged(nn):
    """A small leaf Module class of the world ``nn``: ``Tagged(t)(x) == 2 * x + t``.

    The tag is a plain attribute, so observations can say which leaf sits where.
    """

    class Tagged(nn.Module):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def forward(self, x):
            return 2 * x + self.tag

    return Tagged


def leaves(nn, *tags):
    return [tagged(nn)(tag) for tag in tags]


def label(module):
    """A leaf's tag, or a container's contents; None for an empty slot; what
    anything else is, by its class, for a value that is not a module."""
    if module is None:
        return None
    if hasattr(module, "tag"):
        return module.tag
    if not isinstance(getattr(module, ATTRIBUTES, {}).get(MODULES), dict):
        return f"<{type(module).__name__}>"
    return contents(module)


def contents(container):
    """A container as plain data: its class, and ``[name, label]`` per registered child."""
    registered = getattr(container, ATTRIBUTES, {}).get(MODULES)
    if not isinstance(registered, dict):
        return {CONTAINER_TYPE: type(container).__name__, REGISTERED: NO_MODULES}
    return {CONTAINER_TYPE: type(container).__name__, REGISTERED: [[name, label(child)] for name, child in registered.items()]}


def same(items, expected):
    """Which items are (by identity) the expected objects, pairwise."""
    items, expected = list(items), list(expected)
    return [len(items) == len(expected)] + [a is b for a, b in zip(items, expected)]


def dotted_parameters(module, prefix=""):
    """Parameter names read from the registers alone (the walk is exercise 03)."""
    names = [prefix + name for name in module._parameters]
    for name, child in module._modules.items():
        if child is not None:
            names += dotted_parameters(child, f"{prefix}{name}.")
    return names


class Workbench:
    """One container and the operations of a spec, applied with world ``nn``."""

    def __init__(self, nn, kind, size):
        self.nn, self.kind, self.made = nn, kind, 0
        first = self.fresh(size)
        self.container = nn.ModuleList(first) if kind == "ModuleList" else nn.Sequential(*first)

    def fresh(self, count):
        """New leaves, tagged 0, 1, 2, ... in the order they are made."""
        self.made += count
        return leaves(self.nn, *range(self.made - count, self.made))

    def batch(self, count):
        """``count`` new leaves in the container kind's own ``+`` operand: a Sequential, or a list."""
        made = self.fresh(count)
        return self.nn.Sequential(*made) if self.kind == "Sequential" else made

    def apply(self, name, *args):
        c = self.container
        if name == "append":
            return c.append(self.fresh(1)[0]) is c
        if name == "append_bad":
            return c.append(0)
        if name == "extend":
            return c.extend(self.fresh(args[0])) is c
        if name == "add":
            self.container = c + self.batch(args[0])
            return self.container is c
        if name == "iadd":
            self.container += self.batch(args[0])
            return self.container is c
        if name == "insert":
            index = args[0] if self.kind == "Sequential" else args[0] % (len(c) + 1)
            c.insert(index, self.fresh(1)[0])
            return None
        if name == "set":
            c[args[0]] = self.fresh(1)[0]
            return None
        if name == "del":
            del c[args[0]]
            return None
        if name == "del_slice":
            del c[slice(*args)]
            return None
        if name == "pop":
            return label(c.pop(args[0]))
        if name == "get":
            return label(c[args[0]])
        return contents(c[slice(*args)])


def holds_a_container(members):
    return any(member[0] in ("seq", "list", "dict") or member[0] == "module" and holds_a_container(member[1])
               for _, member in members)


def registered_tree(module):
    """``{"type": class, "registered": [[name, subtree], ...]}`` from the registers alone."""
    return {CONTAINER_TYPE: type(module).__name__,
            REGISTERED: [[name, None if child is None else registered_tree(child)]
                           for name, child in module._modules.items()]}


def every_module(module):
    """Every module reached through the registers, depth first, repeats kept."""
    found = [module]
    for child in module._modules.values():
        if child is not None:
            found += every_module(child)
    return found


def container_views(nn, container):
    """What indexing, iteration and slicing give, compared with the register."""
    registered = list(container._modules.values())
    if isinstance(container, nn.ModuleDict):
        return {"len": len(container), "list(d)": list(container), "list(d.keys())": list(container.keys()),
                "d.values() are the registered": same(container.values(), registered),
                "d[key] is the registered": [container[key] is child for key, child in container._modules.items()],
                "key in d": [key in container for key in ("a", "b", "c", "z")]}
    size = len(container)
    return {"len": size, "iterating gives the registered": same(container, registered),
            "c[i] is the registered, for i in -len..len-1": [container[i] is registered[i] for i in range(-size, size)],
            "c[::-1]": contents(container[::-1]), "c[1:]": contents(container[1:]),
            "c[len(c)]": attempt(lambda: label(container[size]))}
