"""Small, plausible bugs in the reference's solution regions: the code students write.

Each mutant changes one spot of one file between ``### BEGIN SOLUTION`` and
``### END SOLUTION``: a comparison turned round (``==`` for ``!=``, ``<`` for
``<=``, ``in`` for ``not in``), ``and`` for ``or``, a ``not`` dropped, ``+``
for ``-``, ``True`` for ``False``, a number one further from zero, ``break`` for
``continue``, or a statement removed. Used by ``bench/grader_strength.py``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from modlab.instructor.build import BEGIN, END

TURNED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
          ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
          ast.And: ast.Or, ast.Or: ast.And, ast.Add: ast.Sub, ast.Sub: ast.Add}
REMOVABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise, ast.If, ast.For)


@dataclass(frozen=True)
class Mutant:
    file: str
    line: int
    change: str  # what was changed, as "a == b -> (a != b)"
    text: str  # the whole mutated file

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def mutants_of(path: Path) -> list[Mutant]:
    """Every mutant of one reference file, in the order of its lines."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    inside = _solution_lines(lines)
    found = []
    for node in sorted(_nodes(ast.parse(source)), key=lambda node: (node.lineno, node.col_offset)):
        if node.lineno not in inside or node.end_lineno not in inside:
            continue
        for replacement in _replacements(node):
            text = _spliced(lines, node, replacement)
            if text != source:
                before = ast.get_source_segment(source, node).splitlines()[0]
                found.append(Mutant(path.name, node.lineno, f"{before} -> {replacement}", text))
    return found


def _solution_lines(lines: list[str]) -> set[int]:
    """Line numbers (from 1) strictly between a BEGIN and its END marker."""
    inside, within = set(), False
    for number, line in enumerate(lines, 1):
        marker = line.strip()
        if marker in (BEGIN, END):
            within = marker == BEGIN
        elif within:
            inside.add(number)
    return inside


def _nodes(tree: ast.AST):
    """Every node worth mutating; none inside f-strings, docstrings or annotations."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.JoinedStr, ast.arg)) or _is_docstring(node):
            skipped.update(id(child) for child in ast.walk(node))
        if _negative_number(node):  # -1 is mutated whole, so that its change reads "-1 -> -2"
            skipped.add(id(node.operand))
        if id(node) not in skipped and hasattr(node, "lineno"):
            yield node


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _negative_number(node: ast.AST) -> bool:
    return (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int)


def _replacements(node: ast.AST) -> list[str]:
    """Source texts that could stand in ``node``'s place."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in TURNED:
        return [_unparsed(node, ops=[TURNED[type(node.ops[0])]()])]
    if isinstance(node, (ast.BoolOp, ast.BinOp)) and type(node.op) in TURNED:
        return [_unparsed(node, op=TURNED[type(node.op)]())]
    if _negative_number(node):
        return [f"-{node.operand.value + 1}"]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [f"({ast.unparse(node.operand)})"]
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return [str(not node.value)]
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [str(node.value + 1)]
    if isinstance(node, (ast.Break, ast.Continue)):
        return ["continue" if isinstance(node, ast.Break) else "break"]
    if isinstance(node, REMOVABLE):
        return ["pass"]
    return []


def _unparsed(node: ast.AST, **changes) -> str:
    copy = type(node)(**{**{field: getattr(node, field) for field in node._fields}, **changes})
    return f"({ast.unparse(copy)})"


def _spliced(lines: list[str], node: ast.AST, replacement: str) -> str:
    """The file with ``node``'s text replaced (a removed statement keeps its indentation)."""
    first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]
    head, tail = first[:_column(first, node.col_offset)], last[_column(last, node.end_col_offset):]
    return "".join(lines[:node.lineno - 1]) + head + replacement + tail + "".join(lines[node.end_lineno:])


def _column(line: str, byte_offset: int) -> int:
    """ast's column offsets count UTF-8 bytes; slicing counts characters."""
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
