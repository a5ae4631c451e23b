"""The model doctor: find what looks registered in a model but is not.

A layer in a plain list, a trainable tensor that is not a Parameter: the model
runs, the loss even falls, but the optimizer never sees them, ``state_dict``
never saves them and ``.to()`` never moves them. This module looks for them in
any model instance, ``torch.nn`` or ``mynn`` alike (anything with the
``_parameters`` / ``_modules`` registers), and does the seed's counting check:
the parameters ``model.parameters()`` hands an optimizer against those the
model's layers hold, registered or not::

    >>> report = diagnose(RipenessNet())
    >>> report.registered, report.expected
    (50, 122)
    >>> report.findings[0].path, report.findings[0].holds
    ('extras[0]', 72)

It reads the registers and ``__dict__`` directly, so it does not depend on a
model's own walk being right; it runs no ``forward``, so a layer built inside
``forward`` is beyond what it can see.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

import torch

PROBLEM, NOTE = "problem", "note"
REGISTERS = ("_parameters", "_buffers", "_modules")
MAX_DEPTH = 4  # how deep the doctor looks into nested lists, tuples and dicts
FIX = ("hold layers in nn.ModuleList, nn.ModuleDict or nn.Sequential, trainable tensors in nn.Parameter, "
       "and state that should be saved and moved (but not trained) with register_buffer")


class LoadError(Exception):
    """The model named on the command line cannot be loaded or built."""


@dataclass(frozen=True)
class Finding:
    """Something a model holds outside its registers.

    Attributes:
        path: where it is, as code would reach it: ``extras[0]``, ``encoder.cache['k']``.
        what: a short description: ``Linear(in_features=8, out_features=8, bias=True)``.
        holds: the trainable numbers it holds that ``parameters()`` misses.
        problem: what goes wrong because of it.
        severity: ``"problem"`` (the exit status says so) or ``"note"``.
    """

    path: str
    what: str
    holds: int
    problem: str
    severity: str = PROBLEM


@dataclass
class Diagnosis:
    """What the doctor found in one model.

    Attributes:
        name: the model's class name.
        family: ``torch.nn`` or the package its class comes from (``mynn``).
        registered: the parameters ``model.parameters()`` gives an optimizer.
        expected: the parameters held by every module and trainable tensor
            the doctor can see, registered or not.
        findings: what is held outside the registers.
    """

    name: str
    family: str
    registered: int
    expected: int
    findings: list[Finding] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        """No problem found, and the two counts agree."""
        return self.registered == self.expected and not any(f.severity == PROBLEM for f in self.findings)


def is_module(value) -> bool:
    """A torch.nn.Module, or any object keeping the same registers (a mynn Module)."""
    if isinstance(value, torch.nn.Module):
        return True
    members = getattr(value, "__dict__", None)
    return isinstance(members, dict) and all(isinstance(members.get(name), dict) for name in REGISTERS)


def is_parameter(value) -> bool:
    """A torch.nn.Parameter, or a tensor subclass named Parameter (mynn's)."""
    return isinstance(value, torch.nn.Parameter) or (
        isinstance(value, torch.Tensor) and type(value).__name__ == "Parameter")


def diagnose(model) -> Diagnosis:
    """Examine one model instance.

    Args:
        model: a ``torch.nn.Module`` or a ``mynn`` ``Module``.

    Returns:
        The :class:`Diagnosis`.

    Raises:
        TypeError: ``model`` is not a module.
    """
    if not is_module(model):
        raise TypeError(f"expected a model (a torch.nn.Module, or a Module of your package), got {type(model).__name__}")
    examination = _Examination(model)
    return Diagnosis(
        name=type(model).__name__,
        family="torch.nn" if isinstance(model, torch.nn.Module) else type(model).__module__.split(".")[0],
        registered=sum(p.numel() for p in model.parameters()),
        expected=examination.expected,
        findings=examination.findings,
    )


class _Examination:
    """One walk over a model: the registered tree first, then everything its
    modules keep in ``__dict__``, following unregistered modules into their
    own subtrees."""

    def __init__(self, model):
        self.findings: list[Finding] = []
        self.seen_modules: set[int] = set()
        self.counted: set[int] = set()  # tensors already in a count
        self.registered_tensors: set[int] = set()  # what a module's registers hold
        registered = list(_registered_tree(model, ""))
        self.expected = self._enter(registered)
        for module, path in registered:
            self._look_inside(module, path)

    def _enter(self, tree) -> int:
        """Remember a tree's modules and registered tensors; count its parameters."""
        for module, _ in tree:
            self.seen_modules.add(id(module))
            for register in ("_parameters", "_buffers"):
                self.registered_tensors.update(id(t) for t in vars(module)[register].values() if t is not None)
        return sum(self._count(module) for module, _ in tree)

    def _count(self, module) -> int:
        """The numbers in one module's own parameters not counted before."""
        total = 0
        for tensor in vars(module)["_parameters"].values():
            if tensor is not None and id(tensor) not in self.counted:
                self.counted.add(id(tensor))
                total += tensor.numel()
        return total

    def _look_inside(self, module, path: str) -> None:
        for name, value in vars(module).items():
            if name not in REGISTERS:
                self._inspect(value, _join(path, name), container=None, depth=0)

    def _inspect(self, value, path: str, container: str | None, depth: int) -> None:
        if is_module(value):
            self._unregistered_module(value, path, container)
        elif isinstance(value, torch.Tensor):
            self._unregistered_tensor(value, path, container)
        elif isinstance(value, dict) and depth < MAX_DEPTH:
            for key, item in value.items():
                self._inspect(item, f"{path}[{key!r}]", "dict", depth + 1)
        elif isinstance(value, (list, tuple)) and depth < MAX_DEPTH:
            kind = "list" if isinstance(value, list) else "tuple"
            for index, item in enumerate(value):
                self._inspect(item, f"{path}[{index}]", kind, depth + 1)

    def _unregistered_module(self, module, path: str, container: str | None) -> None:
        if id(module) in self.seen_modules:
            return  # registered elsewhere, or found already: an alias, not a hidden layer
        subtree = list(_registered_tree(module, path))
        holds = self._enter(subtree)
        self.expected += holds
        where = f"in a plain {container}" if container else "set around __setattr__, not in _modules"
        self.findings.append(Finding(path, _describe_module(module), holds,
                                     f"module {where}: not trained, saved or moved"))
        for inner, inner_path in subtree:
            self._look_inside(inner, inner_path)

    def _unregistered_tensor(self, tensor, path: str, container: str | None) -> None:
        if id(tensor) in self.registered_tensors or id(tensor) in self.counted:
            return
        if is_parameter(tensor) or tensor.requires_grad:
            self.counted.add(id(tensor))
            self.expected += tensor.numel()
            if not is_parameter(tensor):
                where = "requires grad but is not a Parameter"
            else:
                where = f"Parameter in a plain {container}" if container else "Parameter set around __setattr__"
            self.findings.append(Finding(path, _describe_tensor(tensor), tensor.numel(),
                                         f"{where}: not trained, saved or moved"))
        elif container is None:
            self.findings.append(Finding(path, _describe_tensor(tensor), 0,
                                         "plain tensor: not saved, not moved by .to() (a buffer? a Parameter?)", NOTE))


def _registered_tree(module, path: str):
    """``(module, path)`` for ``module`` and every module registered below it, once each."""
    seen, stack = set(), [(module, path)]
    while stack:
        current, where = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current, where
        children = [(child, _join(where, name)) for name, child in vars(current)["_modules"].items() if child is not None]
        stack.extend(reversed(children))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _describe_module(module) -> str:
    """Its one-line repr, or its class name when the repr is long or broken."""
    try:
        text = repr(module)
    except Exception:  # a half-written __repr__ must not stop the diagnosis
        text = ""
    return text if text and "\n" not in text and len(text) <= 60 else f"{type(module).__name__}(...)"


def _describe_tensor(tensor) -> str:
    kind = "Parameter" if is_parameter(tensor) else "tensor"
    grad = ", requires_grad" if tensor.requires_grad else ""
    return f"{kind} {tuple(tensor.shape)} {str(tensor.dtype).removeprefix('torch.')}{grad}"


def format_report(diagnosis: Diagnosis, source: str = "") -> str:
    """The doctor's report: a table of findings, then the counting check."""
    origin = f" from {source}" if source else ""
    lines = [f"{diagnosis.name} ({diagnosis.family}){origin}", ""]
    if diagnosis.findings:
        rows = [("where", "found", "holds", "problem")]
        rows += [(f.path, f.what, str(f.holds) if f.severity == PROBLEM else "-",
                  f.problem if f.severity == PROBLEM else f"note: {f.problem}") for f in diagnosis.findings]
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        for row in rows:
            lines.append(f"  {row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}")
        lines.append("")
    else:
        lines.append("every module and trainable tensor it holds is registered")
    verdict = "ok" if diagnosis.registered == diagnosis.expected else "MISMATCH"
    lines.append(f"parameters: {diagnosis.registered} registered (what parameters() hands an optimizer), "
                 f"{diagnosis.expected} in the layers and trainable tensors the model holds: {verdict}")
    if not diagnosis.healthy:
        lines.append(f"fix: {FIX}")
    return "\n".join(lines)


def load_model(target: str):
    """Build the model a command-line target names.

    Args:
        target: ``path/to/file.py:NAME`` or ``package.module:NAME``, where
            ``NAME`` (dots allowed) is a model instance, or a class or function
            that builds one without arguments.

    Returns:
        The model instance.

    Raises:
        LoadError: the target is malformed, cannot be imported, names nothing,
            needs arguments, raises while building, or is not a model.
    """
    where, colon, name = target.rpartition(":")
    if not colon or not where or not name:
        raise LoadError(f"{target!r}: expected FILE.py:NAME or package.module:NAME")
    module = _import(where)
    found = module
    for part in name.split("."):
        if not hasattr(found, part):
            raise LoadError(f"{where} has no attribute {name!r}")
        found = getattr(found, part)
    if not is_module(found) and callable(found):
        found = _build(found, name)
    if not is_module(found):
        raise LoadError(f"{name} is a {type(found).__name__}, not a model (a torch.nn.Module, or a Module of your package)")
    return found


def _build(factory, name: str):
    try:
        needed = [p.name for p in inspect.signature(factory).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    except (TypeError, ValueError):
        needed = []
    if needed:
        raise LoadError(f"{name}() needs arguments ({', '.join(needed)}): name a function that builds the model")
    try:
        return factory()
    except Exception as exc:
        raise LoadError(f"building {name}() raised {type(exc).__name__}: {exc}") from None


def _import(where: str):
    """Import a file by path (inside its package if it has one), or a module by name."""
    path = Path(where)
    try:
        if path.suffix == ".py" or path.is_file():
            if not path.is_file():
                raise LoadError(f"{where}: no such file")
            return _import_file(path.resolve())
        sys.path.insert(0, str(Path.cwd()))
        return importlib.import_module(where)
    except LoadError:
        raise
    except Exception as exc:  # the user's code: say what broke, in one line
        raise LoadError(f"importing {where} raised {type(exc).__name__}: {exc}") from None


def _import_file(path: Path):
    """A file inside a package imports as ``package.module`` (relative imports
    work); a lone file as a module named after it, its folder on sys.path."""
    root, parts = path.parent, [path.stem]
    while (root / "__init__.py").is_file():
        parts.insert(0, root.name)
        root = root.parent
    sys.path.insert(0, str(root))
    if len(parts) > 1:
        return importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module
