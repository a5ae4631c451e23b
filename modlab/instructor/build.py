"""Build the student kit from the reference: ``solutions/`` → ``exercises/``.

Solution regions are marked as nbgrader marks them::

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        \"\"\"...docstring kept...\"\"\"
        ### BEGIN SOLUTION
        ...
        ### END SOLUTION

and become ``raise NotImplementedError("exercise 03: named_parameters")``,
so a stub keeps its real signature and docstring and says which task fills it.
"""
from __future__ import annotations

import re
from pathlib import Path

from modlab.course import Course, stub_statement

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")


class BuildError(ValueError):
    """A solution file whose regions cannot be turned into a stub."""


def strip_solutions(source: str, exercise_id: str, filename: str = "<source>") -> str:
    """Replace each solution region with a ``NotImplementedError`` naming its function.

    Raises:
        BuildError: unbalanced markers, or a region outside a function body.
    """
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    region_start = None
    for number, line in enumerate(lines, start=1):
        marker = line.strip()
        if marker == BEGIN:
            if region_start is not None:
                raise BuildError(f"{filename}:{number}: {BEGIN} inside another region")
            region_start = number
            indent = line[: len(line) - len(line.lstrip())]
            function = _enclosing_function(lines[: number - 1], indent, filename, number)
            out.append(f"{indent}{stub_statement(exercise_id, function)}\n")
        elif marker == END:
            if region_start is None:
                raise BuildError(f"{filename}:{number}: {END} without {BEGIN}")
            region_start = None
        elif region_start is None:
            out.append(line)
    if region_start is not None:
        raise BuildError(f"{filename}:{region_start}: {BEGIN} is never closed")
    return "".join(out)


def _enclosing_function(before: list[str], indent: str, filename: str, number: int) -> str:
    for line in reversed(before):
        found = DEF.match(line)
        if found and len(found.group(1)) < len(indent):
            return found.group(2)
    raise BuildError(f"{filename}:{number}: a solution region must sit inside a function body")


def stub_sources(course: Course) -> dict[str, str]:
    """The student package, ``{file name: text}``, generated from the reference."""
    stubs = {}
    for path in sorted(course.solutions.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        exercise = course.exercise_of_file(path.name)
        if exercise is not None:
            text = strip_solutions(text, exercise.id, str(path))
        elif BEGIN in text:
            raise BuildError(f"{path}: has solution regions but belongs to no exercise in course.yaml")
        stubs[path.name] = text
    return stubs


def build_exercises(course: Course, out: Path | None = None) -> list[Path]:
    """Write the stubs into ``exercises/<package>/`` (or ``out``); return the files written."""
    return write_generated(out or course.root / "exercises" / course.package, stub_sources(course))


def stale_exercises(course: Course) -> list[str]:
    """Files of ``exercises/`` that differ from what the build generates."""
    return stale_generated(course.root / "exercises" / course.package, stub_sources(course), "*.py")


def write_generated(target: Path, sources: dict[str, str]) -> list[Path]:
    """Write ``{file name: text}`` into ``target``, touching only files that changed."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in sources.items():
        path = target / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale_generated(target: Path, sources: dict[str, str], pattern: str) -> list[str]:
    """Files of ``target`` (matching ``pattern``) that are missing, differ from
    ``sources``, or are left over from an earlier build."""
    present = {path.name for path in target.glob(pattern)}
    stale = [name for name, text in sources.items()
             if not (target / name).is_file() or (target / name).read_text(encoding="utf-8") != text]
    return sorted(stale + sorted(present - sources.keys()))
