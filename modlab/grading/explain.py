"""What a submission's exception means, from the facts the worker recorded.

When a scenario raises in the submission's world, the feedback does not
guess a misconception from the scenario: it explains the exception itself,
and only with what the exception record shows (as facts; the words are
:mod:`modlab.formats.feedback`'s):

- a stub still raising ``NotImplementedError("exercise 03: named_parameters")``;
- a name the student's file uses that the reference package lacks, when the
  exercise is graded on top of the reference (``graft``): the student kept a
  helper in another exercise's file, which grading replaces;
- an exception raised inside another exercise's file: in a graft, the
  course's own file, called from the student's; in a local check of the whole
  package, the student's own earlier exercise;
- the check's own code failing on what the submission returned.
"""
from __future__ import annotations

import ast
import functools
import linecache
import re
from dataclasses import dataclass, field
from pathlib import Path

from modlab.course import stub_of

QUOTED_NAME = re.compile(r"(?:attribute|name) '([A-Za-z_][A-Za-z0-9_]*)'")
PACKAGE_LACKS = re.compile(r"module '[\w.]+' has no attribute '([A-Za-z_][A-Za-z0-9_]*)'")  # the check asked the package
MISSING_NAME_ERRORS = ("AttributeError", "NameError", "ImportError")


@dataclass(frozen=True)
class Graded:
    """What was graded, as an explanation needs it.

    Attributes:
        exercise: the graded exercise's id.
        own: the files that are the submission's (the rest are the reference's
            in a graft).
        graft: whether the other files are the course's reference.
        exercise_of_file: maps a package file (``losses.py``) to its exercise id.
        reference_sources: the reference package's files, ``{file: text}``.
        root: the course's folder, from which a scenario's file is shown.
    """

    exercise: str
    own: tuple[str, ...]
    graft: bool
    exercise_of_file: dict[str, str] = field(default_factory=dict)
    reference_sources: dict[str, str] = field(default_factory=dict)
    root: str = ""  # the course's folder: a scenario's file is shown from there


def explain_raised(raised: dict, graded: Graded) -> dict | None:
    """What one exception means, as facts (``{"kind": ..., ...}``, rendered by
    :mod:`modlab.formats.feedback`), or None when the facts say no more than the
    exception itself (type, message, file and line).

    Kinds: ``stub`` (``function``, ``file``, and the stub's ``exercise`` when it is
    not the graded one), ``scenario`` (the check's own code failed on what the
    package returned; where known its ``file``, ``line`` and ``code``, what the names
    on that line held there (``yours``: ``{name: kind}``; the grading side adds
    torch's, ``torch``) and the line that ``made`` each), ``package-lacks``
    (``name``: the check asked the package for a name it does not have), ``missing-name`` (``name``, ``file``, ``line``, ``own``,
    ``exercise``), ``earlier-exercise`` and ``inside-reference`` (where it was
    raised, the exercise that file belongs to, and the student's own frame).
    """
    stub = stub_of(raised)
    if stub:
        exercise, function = stub
        return {"kind": "stub", "function": function, "file": raised.get("file", ""),
                "exercise": "" if exercise == graded.exercise else exercise}
    if raised.get("by") == "scenario":
        lacking = PACKAGE_LACKS.match(raised.get("message", "")) if raised.get("type") == "AttributeError" else None
        return {"kind": "package-lacks", "name": lacking.group(1)} if lacking else _scenario_line(raised, graded)
    return _missing_name(raised, graded) or _foreign_file(raised, graded)


def _scenario_line(raised: dict, graded: Graded) -> dict:
    """The check's own code failed on what the package returned: where, and the line's code
    (which names the call of the package that returned it), when the worker said where."""
    facts = {"kind": "scenario"}
    path = raised.get("scenario_file")
    code = linecache.getline(path, raised.get("scenario_line", 0)).strip() if path else ""
    if code:
        shown = Path(path)
        if graded.root and shown.is_relative_to(graded.root):
            shown = shown.relative_to(graded.root)
        facts.update(file=shown.as_posix(), line=raised["scenario_line"], code=code)
        if raised.get("scenario_values"):
            facts["yours"] = dict(raised["scenario_values"])
            names = tuple(name for name in facts["yours"] if name.isidentifier())
            facts["made"] = _assignments(path, raised["scenario_line"], names)
    return facts


def _assignments(path: str, line: int, names: tuple[str, ...]) -> dict[str, dict]:
    """For each name, the last line before ``line``, in the function holding it, that assigns it:
    ``{name: {"line": n, "code": text}}`` (the call of the package that made it)."""
    function = _function_at(path, line)
    made = {}
    for node in ast.walk(function) if function else ():
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)) and node.lineno < line:
            targets = [t for target in _targets(node) for t in ast.walk(target) if isinstance(t, ast.Name)]
            for target in targets:
                if target.id in names and node.lineno > made.get(target.id, {}).get("line", 0):
                    made[target.id] = {"line": node.lineno, "code": linecache.getline(path, node.lineno).strip()}
    return made


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, ast.With):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return [node.target]


@functools.lru_cache(maxsize=64)
def _parsed(path: str) -> ast.Module | None:
    try:
        return ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None


def _function_at(path: str, line: int) -> ast.AST | None:
    """The innermost function of the file whose lines hold ``line``."""
    tree = _parsed(path)
    holding = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               and node.lineno <= line <= (node.end_lineno or node.lineno)] if tree else []
    return max(holding, key=lambda node: node.lineno, default=None)


def _missing_name(raised: dict, graded: Graded) -> dict | None:
    """A name the student's own file uses that the reference package does not provide."""
    if not graded.graft or raised.get("type") not in MISSING_NAME_ERRORS:
        return None
    name = raised.get("name") or _quoted_name(raised.get("message", ""))
    own_frame = _innermost(raised, graded.own)
    if not name or own_frame is None or _defined_in(name, graded.reference_sources):
        return None
    return {"kind": "missing-name", "name": name, "file": own_frame[0], "line": own_frame[1],
            "own": list(graded.own), "exercise": graded.exercise}


def _foreign_file(raised: dict, graded: Graded) -> dict | None:
    """Raised inside another exercise's file: the student's own in a local check
    of the whole package, the course's reference in a graft."""
    file = raised.get("file", "")
    origin = graded.exercise_of_file.get(file, "")
    if not graded.graft:
        if origin and origin != graded.exercise:
            return {"kind": "earlier-exercise", "file": file, "line": raised.get("line"), "exercise": origin}
        return None
    own_frame = _innermost(raised, graded.own)
    if not file or file in graded.own or own_frame is None:
        return None
    return {"kind": "inside-reference", "file": file, "line": raised.get("line"), "exercise": origin,
            "own_file": own_frame[0], "own_line": own_frame[1]}


def _innermost(raised: dict, files: tuple[str, ...]) -> tuple[str, int] | None:
    """The innermost frame of the exception in one of ``files``, as (file, line)."""
    for file, line, _ in reversed(raised.get("frames", [])):
        if file in files:
            return file, line
    return None


def _quoted_name(message: str) -> str:
    found = QUOTED_NAME.search(message)
    return found.group(1) if found else ""


def _defined_in(name: str, sources: dict[str, str]) -> bool:
    """Whether any reference file defines or assigns ``name``, or names it in a string
    (``object.__setattr__(self, "_modules", {})``), a plain text test: a false "defined"
    only withholds an explanation, it never gives a wrong one."""
    pattern = re.compile(rf"(def|class)\s+{re.escape(name)}\b|\b{re.escape(name)}\s*=[^=]|import .*\b{re.escape(name)}\b"
                         rf"|(?P<quote>[\"']){re.escape(name)}(?P=quote)")
    return any(pattern.search(text) for text in sources.values())
