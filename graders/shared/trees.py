"""Random module trees, drawn as plain data and built identically in both worlds.

A spec is JSON-able data (lists, strings, numbers, booleans), so it travels
to the worker processes as it is and reads well in feedback. Hypothesis draws
it in the trusted process; a scenario body builds it with its own ``nn``::

    @scenario(specs=module_trees())
    def names_match(nn, spec):
        return {"root.named_parameters()": named_tensors(build_tree(nn, spec).named_parameters())}

The root is a plain ``nn.Module`` whose members are a list of
``[name, member]`` pairs (a list, not a dict: pairs keep their order through
any JSON round trip). A member is one of::

    ["param", shape, requires_grad]         a Parameter of torch.randn(shape)
    ["buffer", shape, dtype, persistent]    "float32" (randn) or "int64" (randint)
    ["none", "param" | "buffer" | "module"] an empty slot
    ["tied", "a.weight"]                    a Parameter built earlier, registered again
    ["leaf", n_in, n_out, bias]             a Linear-like Module (weight, bias)
    ["module", [[name, member], ...]]       a plain Module with its own members
    ["shared", "a.b"]                       a Module built earlier, registered again
    ["seq" | "list", [child, ...]]          Sequential / ModuleList (containers=True)
    ["dict", [[key, child], ...]]           ModuleDict (containers=True)

Paths name things by where they were first built, with dots, as torch would.
Random values come from torch's RNG: the worker seeds it before each body, and
building in the same order gives the same values in both worlds.
"""
from __future__ import annotations

import functools

from hypothesis import strategies as st
import torch

# One draw per choice keeps the choice sequence short, and Hypothesis shrinks
# a short sequence quickly. Names are not in alphabetical order, so a walk that
# sorts by name cannot pass by luck.
NAMES = ("c", "a", "d", "b", "e")
SHAPES = st.sampled_from([[], [1], [2], [3], [2, 3], [3, 1]])
SIZES = st.sampled_from([[1, 1], [2, 3], [3, 2], [2, 2], [1, 3]])  # a leaf's (n_in, n_out)
DTYPES = ("float32", "int64")
YES_OR_NO = st.sampled_from([True, False])  # shrinks toward True: the common case
CONTAINERS = ("seq", "list", "dict")


def module_trees(containers: bool = False, max_depth: int = 4, max_members: int = 4, budget: int = 16):
    """A Hypothesis strategy for tree specs (see the module docstring).

    Args:
        containers: also draw Sequential, ModuleList and ModuleDict (exercise 05 on).
        max_depth: the deepest level a module sits at below the root (at most 4):
            with 1, the root holds only leaves, parameters and buffers.
        max_members: the most members one module or container holds.
        budget: the most members in the whole tree, to keep specs small.

    Returns:
        A strategy of specs; shared modules and tied parameters only point at
        things built earlier, and never at a module's own ancestors.
    """

    @st.composite
    def trees(draw):
        drawing = _Drawing(draw, containers, min(max_depth, 4), max_members, budget)
        return drawing.members(path="", depth=0)

    return trees()


class _Drawing:
    """One spec being drawn: what exists so far, so links only point backwards."""

    def __init__(self, draw, containers, max_depth, max_members, budget):
        self.draw, self.containers, self.max_depth, self.max_members = draw, containers, max_depth, max_members
        self.budget = budget
        self.modules: list[str] = []     # finished modules, safe to share
        self.parameters: list[str] = []  # parameters, safe to tie

    def names(self, numbered: bool = False) -> list[str]:
        """Names for the members of one module: "0", "1"... in a Sequential or ModuleList."""
        count = self.draw(st.integers(0, min(self.max_members, self.budget, len(NAMES))))
        self.budget -= count
        return [str(i) for i in range(count)] if numbered else list(NAMES[:count])

    def members(self, path: str, depth: int) -> list:
        return [[name, self.member(_join(path, name), depth)] for name in self.names()]

    def member(self, path: str, depth: int) -> list:
        kinds = ["param", "buffer", "none", "leaf"]
        kinds += ["tied", "tied"] if self.parameters else []  # twice: links are what walks get wrong
        kinds += self._module_kinds(depth)
        kind = self.draw(_sampled(tuple(kinds)))
        if kind == "param":
            self.parameters.append(path)
            return ["param", self.draw(SHAPES), self.draw(YES_OR_NO)]
        if kind == "buffer":
            return ["buffer", self.draw(SHAPES), self.draw(_sampled(DTYPES)), self.draw(YES_OR_NO)]
        if kind == "none":
            return ["none", self.draw(_sampled(("param", "buffer", "module")))]
        if kind == "tied":
            return ["tied", self.draw(st.sampled_from(self.parameters))]
        return self.module(kind, path, depth)

    def module(self, kind: str, path: str, depth: int) -> list:
        """A member that is a Module: leaf, plain module, shared one, or container."""
        if kind == "shared":
            return ["shared", self.draw(st.sampled_from(self.modules))]
        if kind == "leaf":
            bias = self.draw(YES_OR_NO)
            self.parameters += [f"{path}.weight"] + ([f"{path}.bias"] if bias else [])
            made = ["leaf", *self.draw(SIZES), bias]
        elif kind == "module":
            made = ["module", self.members(path, depth + 1)]
        elif kind == "dict":
            made = ["dict", [[key, self.child(_join(path, key), depth + 1)] for key in self.names()]]
        else:
            made = [kind, [self.child(_join(path, i), depth + 1) for i in self.names(numbered=True)]]
        self.modules.append(path)
        return made

    def child(self, path: str, depth: int) -> list:
        kinds = ["leaf"] + self._module_kinds(depth)
        return self.module(self.draw(_sampled(tuple(kinds))), path, depth)

    def _module_kinds(self, depth: int) -> list[str]:
        kinds = ["shared", "shared"] if self.modules else []
        if depth + 1 < self.max_depth:  # its own members would sit one level deeper
            kinds += ["module"] + (list(CONTAINERS) if self.containers else [])
        return kinds


def build_tree(nn, spec: list):
    """Build the module tree ``spec`` describes with the world ``nn``.

    Uses only registration (exercise 02) and, where the spec has them, the
    containers (exercise 05): never the walk being graded.

    Args:
        nn: ``torch.nn`` or the graded ``mynn``.
        spec: a spec from :func:`module_trees`.

    Returns:
        The root module.
    """
    built: dict[str, object] = {}
    root = nn.Module()
    _fill(nn, root, spec, "", built)
    return root


def _fill(nn, module, members: list, path: str, built: dict) -> None:
    for name, member in members:
        here = _join(path, name)
        kind = member[0]
        if kind == "param":
            _, shape, requires_grad = member
            built[here] = nn.Parameter(torch.randn(shape), requires_grad=requires_grad)
            module.register_parameter(name, built[here])
        elif kind == "tied":
            module.register_parameter(name, built[member[1]])
        elif kind == "buffer":
            _, shape, dtype, persistent = member
            value = torch.randn(shape) if dtype == "float32" else torch.randint(0, 10, shape)
            module.register_buffer(name, value, persistent=persistent)
        elif kind == "none":
            register = {"param": module.register_parameter, "buffer": module.register_buffer,
                        "module": module.add_module}[member[1]]
            register(name, None)
        else:
            module.add_module(name, _make(nn, member, here, built))


def _make(nn, member: list, path: str, built: dict):
    kind = member[0]
    if kind == "shared":
        return built[member[1]]
    if kind == "leaf":
        made = leaf_class(nn)(*member[1:])
        built[f"{path}.weight"], built[f"{path}.bias"] = made.weight, made.bias
    elif kind == "module":
        made = nn.Module()
        _fill(nn, made, member[1], path, built)
    elif kind == "dict":
        made = nn.ModuleDict({key: _make(nn, child, _join(path, key), built) for key, child in member[1]})
    else:
        children = [_make(nn, child, _join(path, str(i)), built) for i, child in enumerate(member[1])]
        made = nn.Sequential(*children) if kind == "seq" else nn.ModuleList(children)
    built[path] = made
    return made


@functools.lru_cache(maxsize=None)
def leaf_class(nn):
    """A small Linear-like Module class of the world ``nn`` (``nn.Linear`` is exercise 08)."""

    class Leaf(nn.Module):
        def __init__(self, n_in: int, n_out: int, bias: bool = True):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(n_out, n_in))
            if bias:
                self.bias = nn.Parameter(torch.randn(n_out))
            else:
                self.register_parameter("bias", None)

        def forward(self, x):
            return torch.nn.functional.linear(x, self.weight, self.bias)

    return Leaf


@functools.lru_cache(maxsize=None)
def _sampled(options: tuple):
    """``st.sampled_from(options)``, made once per tuple of options. Hypothesis checks a strategy
    the first time it draws from it: a tree's few kinds of choices, made afresh for each of its
    dozens of draws, made drawing a tree a fifth slower (integers are cached by Hypothesis itself)."""
    return st.sampled_from(options)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def lookup(root, dotted: str):
    """What is registered under a dotted name, read from the registers alone
    (not through the walk being graded); None where nothing is."""
    *path, last = dotted.split(".")
    module = root
    for name in path:
        module = module._modules.get(name)
        if module is None:
            return None
    for register in (module._parameters, module._buffers, module._modules):
        if last in register:
            return register[last]
    return None


def tree_code(spec: list) -> str:
    """The code that builds a spec's tree, as a student would write it: how a failing
    tree reads in feedback (``@scenario(specs=..., shown=tree_code)``).

    Example::

        tree_code([["c", ["leaf", 1, 1, True]], ["a", ["shared", "c"]]])
        # 'root = nn.Module(); root.c = Leaf(1, 1); root.a = root.c'
    """
    lines = ["root = nn.Module()"]
    _members_code(spec, "root", lines)
    return "; ".join(lines)


def _members_code(members: list, owner: str, lines: list) -> None:
    for name, member in members:
        kind, here = member[0], f"{owner}.{name}"
        if kind == "param":
            frozen = "" if member[2] else ", requires_grad=False"
            lines.append(f"{here} = nn.Parameter(torch.randn({member[1]}){frozen})")
        elif kind == "buffer":
            value = f"torch.randn({member[1]})" if member[2] == "float32" else f"torch.randint(0, 10, {member[1]})"
            lines.append(f"{owner}.register_buffer({name!r}, {value}" + ("" if member[3] else ", persistent=False") + ")")
        elif kind == "none":
            register = {"param": "register_parameter", "buffer": "register_buffer", "module": "add_module"}[member[1]]
            lines.append(f"{owner}.{register}({name!r}, None)")
        elif kind in ("tied", "shared"):
            lines.append(f"{here} = {_path_code(member[1], lines)}")
        else:
            lines.append(f"{here} = {_module_code(member, here, lines)}")


def _module_code(member: list, here: str, lines: list) -> str:
    """The expression of a module member; a plain module's members go into ``lines`` first,
    and so do a container's children where something inside it shares an earlier child again."""
    kind = member[0]
    if kind == "leaf":
        return f"Leaf({member[1]}, {member[2]}" + ("" if member[3] else ", bias=False") + ")"
    if kind == "shared":
        return _path_code(member[1], lines)
    if kind == "module":
        variable = here.replace(".", "_")
        lines.append(f"{variable} = nn.Module()")
        _members_code(member[1], variable, lines)
        return variable
    keyed = member[1] if kind == "dict" else list(enumerate(member[1]))
    container = {"dict": "ModuleDict", "seq": "Sequential", "list": "ModuleList"}[kind]
    own = here.replace(".", "_").removeprefix("root_").replace("_", ".") + "."  # names hold no "_" (NAMES)
    if any(path.startswith(own) for path in _shared_within(member)):
        variable = here.replace(".", "_")
        lines.append(f"{variable} = nn.{container}()")
        for key, child in keyed:
            code = _module_code(child, f"{here}.{key}", lines)
            lines.append(f"{variable}[{key!r}] = {code}" if kind == "dict" else f"{variable}.append({code})")
        return variable
    codes = [(key, _module_code(child, f"{here}.{key}", lines)) for key, child in keyed]
    children = ", ".join(f"{key!r}: {code}" if kind == "dict" else code for key, code in codes)
    opening, closing = {"dict": ("{", "}"), "seq": ("", ""), "list": ("[", "]")}[kind]
    return f"nn.{container}({opening}{children}{closing})"


def _shared_within(member: list):
    """The dotted names that the shared modules and tied parameters anywhere inside a member point to."""
    if member[0] in ("shared", "tied"):
        yield member[1]
    elif member[0] in ("module", "dict"):
        for _, child in member[1]:
            yield from _shared_within(child)
    elif member[0] in ("seq", "list"):
        for child in member[1]:
            yield from _shared_within(child)


def _path_code(dotted: str, lines: list) -> str:
    """Python that reaches the member at ``dotted`` from the code so far: from root where
    its top module is assigned there, else through the deepest module held in a variable
    (still being built), indexing where a name is a position."""
    names = dotted.split(".")
    assigned = any(line.startswith(f"root.{names[0]} = ") for line in lines)
    for cut in range(0 if assigned else len(names), 0, -1):
        variable = "root_" + "_".join(names[:cut])
        if any(line.startswith(f"{variable} = ") for line in lines):
            base, rest = variable, names[cut:]
            break
    else:
        base, rest = "root", names
    return base + "".join(f"[{name}]" if name.isdigit() else f".{name}" for name in rest)
