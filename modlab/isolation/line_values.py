"""What the names and calls on one line of a check's own code gave, in words, in either world.

When a check's own code fails on what the package returned (``p.requires_grad``
on a ``p`` that is None, ``list(root.named_parameters())`` on a walk that
returns None), the feedback says what each local name on the line held and
what each simple call on it (``root.named_parameters()``: a method of a local,
given constants and locals) gave, in the submission's world where the
exception stopped it, and in torch's at the same line: torch's worker runs
the scenario again under a line tracer and stops there. The calls are made
again to be described, after the scenario has already failed in the
submission's world (its answer is the exception, whatever they do), within a
short time limit. Only a value's kind is told (``None``, ``a list of 3``,
``a Parameter``), never its contents: it travels as plain text.
"""
from __future__ import annotations

import ast
import functools
import linecache
import signal
import sys
from collections.abc import Callable

MAX_SHOWN = 6
CALLS_TIME_S = 1.0  # all the calls of one line together, in the submission's world


def described(value) -> str:
    """A value's kind in a few words: ``None``, ``a list of 3``, ``a Parameter``."""
    if value is None:
        return "None"
    kind = type(value)
    if kind in (list, tuple, dict, set):  # exact builtins: len() runs no code of the submission's
        return f"a {kind.__name__} of {len(value)}"
    name = getattr(kind, "__name__", "object")
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


@functools.lru_cache(maxsize=64)
def _parsed(filename: str) -> ast.Module | None:
    """The file's syntax tree, from ``linecache``: a worker cannot open the graders folder,
    whose sources were kept there before (:func:`modlab.grading.loader.import_course_module`)."""
    try:
        return ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None


def line_expressions(filename: str, line: int) -> list[str]:
    """The local names and simple calls of the statement holding ``line`` that lie on that line, in order.

    A simple call is a method of a name, or a name, given constants and names only:
    ``root.named_parameters(prefix='model')``, not ``named_shapes(root.named_parameters())``.
    """
    tree = _parsed(filename)
    statements = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)
                  and node.lineno <= line <= (node.end_lineno or node.lineno)] if tree else []
    if not statements:
        return []
    statement = max(statements, key=lambda node: node.lineno)  # the innermost
    source = "".join(linecache.getlines(filename))
    found: list[str] = []
    for node in _in_order(statement):
        if getattr(node, "lineno", None) != line or isinstance(node, ast.stmt) and node is not statement:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) or _simple_call(node):
            text = ast.get_source_segment(source, node) or ast.unparse(node)  # as the line shows it
            if text not in found:
                found.append(text)
    return found


def _in_order(statement: ast.stmt):
    """The statement's expression nodes, a call's parts before the call (as Python evaluates them)."""
    for child in ast.iter_child_nodes(statement):
        if isinstance(child, (ast.stmt, ast.Lambda, ast.FunctionDef, ast.ClassDef)):
            continue
        yield from _in_order(child)
    yield statement


def _simple_call(node: ast.AST) -> bool:
    """A call of a name or of a name's method (``root.named_parameters(prefix='model')``), given
    constants, names and calls of such given constants only (``nn.Parameter(torch.ones(2))``)."""
    return isinstance(node, ast.Call) and _named(node.func) and all(
        _plain(argument) for argument in [*node.args, *(keyword.value for keyword in node.keywords)])


def _named(node: ast.AST) -> bool:
    """``name`` or ``name.attribute...``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _plain(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        return _named(node.func) and all(isinstance(a, ast.Constant) for a in [*node.args, *(k.value for k in node.keywords)])
    return isinstance(node, ast.Constant) or _named(node)


def described_in(frame, expressions: list[str], calls: bool) -> dict[str, str]:
    """Each expression's kind in ``frame``: a local name's value; with ``calls``, a call's result
    (or ``raised TypeError``), all the calls within :data:`CALLS_TIME_S`."""
    shown = {}
    with _time_limit(CALLS_TIME_S):
        for text in expressions:
            if len(shown) >= MAX_SHOWN:
                break
            if text.isidentifier():
                if text in frame.f_locals:
                    shown[text] = described(frame.f_locals[text])
            elif calls and _names_bound(text, frame):
                shown[text] = _call_described(text, frame)
    return shown


def _names_bound(text: str, frame) -> bool:
    """Whether the call's first name is a local (a package object the scenario holds), not a helper."""
    head = text.split("(", 1)[0].split(".", 1)[0]
    return head in frame.f_locals


def _call_described(text: str, frame) -> str:
    try:
        return described(eval(text, frame.f_globals, dict(frame.f_locals)))  # noqa: S307 - the scenario's own code
    except _OutOfTime:
        raise
    except Exception as exc:  # noqa: BLE001 - what the call does is what is described
        return f"raised {type(exc).__name__}"


class _OutOfTime(BaseException):
    """The calls of one line took longer than they may: the rest go undescribed."""


class _time_limit:
    """Raise :class:`_OutOfTime` in this thread after ``seconds`` (where SIGALRM exists), and swallow it."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __enter__(self):
        self.previous = signal.signal(signal.SIGALRM, self._expired) if hasattr(signal, "SIGALRM") else None
        if self.previous is not None:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    @staticmethod
    def _expired(signum, frame):
        raise _OutOfTime

    def __exit__(self, kind, exc, tb) -> bool:
        if self.previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return kind is _OutOfTime


class _Reached(Exception):
    """Raised by the tracer to stop the scenario at the line it waited for."""


def values_at(run: Callable[[], object], filename: str, line: int) -> dict[str, str]:
    """Run ``run()`` until it reaches ``filename:line``; the kinds of that line's names and calls there.

    Returns:
        ``{expression: kind}``; empty where the run never reaches that line.
    """
    seen: dict[str, str] = {}
    expressions = line_expressions(filename, line)

    def trace(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None  # other files' frames run untraced
        if event == "line" and frame.f_lineno == line:
            sys.settrace(None)
            seen.update(described_in(frame, expressions, calls=True))
            raise _Reached
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        run()
    except Exception:  # noqa: BLE001 - reached, or a run that failed before the line: either way, done
        pass
    finally:
        sys.settrace(previous)
    return seen
