"""Lesson notebooks: ``lessons/NN_slug.md`` → ``exercises/NN_slug.ipynb``.

A lesson is kept as plain Markdown, so it reads well in review and in a diff.
Every fenced ``python`` block becomes a code cell; the text between blocks
becomes a Markdown cell. Two things are generated rather than written by hand,
so they can never drift from the course:

* the title, from ``course.yaml``;
* the task, at the line ``<!-- modlab: task -->``: every function the student
  fills in, with its exact signature and the first line of its docstring,
  read from the generated stubs;

and the last cell always runs the exercise's public checks.

The first code cell loads :mod:`modlab.student.lesson`, and every cell that
runs the student's package carries the ``raises-exception`` tag: on the
stubs, such a cell says in one line which function is still to write, and
"Run All" (JupyterLab, nbclient, nbgrader) goes on to the next cell.
"""
from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

from modlab.course import Course, Exercise
from modlab.instructor.build import BuildError, stale_generated, stub_sources, write_generated

TASK_MARKER = "<!-- modlab: task -->"
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$\n?", re.MULTILINE | re.DOTALL)
KERNEL = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

CHECK_INTRO = """\
## Check your work

The cell below runs this exercise's public checks on the `{package}/` package next to this
notebook, with this notebook's Python, in fresh processes: it always sees your latest edits
(no kernel restart needed). The same checks run from a terminal as `modlab check {id}`."""

CHECK_CELL = """\
import sys
!"{{sys.executable}}" -m modlab check {id}"""

SETUP_CELL = """\
# A cell that reaches a part of {package} you have not written yet says which, in one line.
%load_ext modlab.student.lesson"""
# Jupyter's tag for a cell that may raise: running all cells goes on past it.
MAY_RAISE = "raises-exception"


def lesson_path(course: Course, exercise: Exercise) -> Path:
    return course.root / "lessons" / f"{exercise.name}.md"


def notebook_name(exercise: Exercise) -> str:
    return f"{exercise.name}.ipynb"


def split_cells(text: str) -> list[tuple[str, str]]:
    """A lesson's ``(kind, source)`` pairs: ``code`` for fenced python blocks,
    ``markdown`` for the text between them (blank runs dropped)."""
    cells = []
    position = 0
    for block in FENCE.finditer(text):
        cells.append(("markdown", text[position:block.start()]))
        cells.append(("code", block.group(1)))
        position = block.end()
    cells.append(("markdown", text[position:]))
    return [(kind, source.strip("\n")) for kind, source in cells if source.strip()]


def task_markdown(course: Course, exercise: Exercise) -> str:
    """The functions the student fills in, grouped by file and class."""
    stubs = stub_sources(course)
    lines = ["## Your task", "",
             f"Fill in each body below; right now each raises "
             f"`NotImplementedError(\"exercise {exercise.id}: ...\")`. The docstrings in the files say more: "
             f"arguments, return values, the exceptions torch raises, an example."]
    for name in exercise.files:
        signatures = stub_signatures(stubs[name], exercise.id)
        if signatures:
            lines += ["", f"In `{course.package}/{name}`:", "", "```python", *signatures, "```"]
    return "\n".join(lines)


def stub_signatures(source: str, exercise_id: str) -> list[str]:
    """Signature lines of the functions whose stub raises this exercise's
    ``NotImplementedError``, inside their classes, each with its docstring's
    first line."""
    lines: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            methods = [m for m in node.body if _is_stub(m, exercise_id)]
            if methods:
                bases = ", ".join(ast.unparse(b) for b in node.bases)
                lines.append(f"class {node.name}({bases}):" if bases else f"class {node.name}:")
                for method in methods:
                    # __init__ is documented by its class, as in PyTorch
                    fallback = ast.get_docstring(node) if method.name == "__init__" else None
                    lines += _signature(method, "    ", fallback) + [""]
        elif _is_stub(node, exercise_id):
            lines += _signature(node, "") + [""]
    return lines[:-1]


def _is_stub(node: ast.AST, exercise_id: str) -> bool:
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    wanted = f"exercise {exercise_id}:"
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith(wanted)
               for stmt in node.body if isinstance(stmt, ast.Raise) for n in ast.walk(stmt))


def _signature(function: ast.FunctionDef, indent: str, fallback: str | None = None) -> list[str]:
    returns = f" -> {ast.unparse(function.returns)}" if function.returns else ""
    lines = [f"{indent}@{ast.unparse(d)}" for d in function.decorator_list]
    lines.append(f"{indent}def {function.name}({ast.unparse(function.args)}){returns}:")
    doc = ast.get_docstring(function) or fallback or ""
    summary = " ".join(doc.strip().split("\n\n")[0].split())
    body = indent + "    "
    lines.append(textwrap.fill(f'"""{summary}"""', 96, initial_indent=body, subsequent_indent=body)
                 if summary else body + "...")
    return lines


def build_notebook(course: Course, exercise: Exercise):
    """The lesson notebook of one exercise, as an ``nbformat`` node.

    Raises:
        BuildError: the lesson is missing, or has no single task marker.
    """
    from nbformat import v4

    path = lesson_path(course, exercise)
    if not path.is_file():
        raise BuildError(f"{path}: missing: every exercise needs a lesson")
    text = path.read_text(encoding="utf-8")
    if text.count(TASK_MARKER) != 1:
        raise BuildError(f"{path}: needs exactly one {TASK_MARKER} line saying where the task goes")
    before, after = text.split(TASK_MARKER)
    cells = [("markdown", f"# Exercise {exercise.id} · {exercise.title}"),
             ("code", SETUP_CELL.format(package=course.package)), *split_cells(before),
             ("markdown", task_markdown(course, exercise)), *split_cells(after)]
    cells += [("markdown", CHECK_INTRO.format(package=course.package, id=exercise.id)),
              ("code", CHECK_CELL.format(id=exercise.id))]
    notebook = v4.new_notebook(metadata={"kernelspec": KERNEL, "language_info": {"name": "python"}})
    new = {"markdown": v4.new_markdown_cell, "code": v4.new_code_cell}
    # Fixed cell ids keep the generated file identical from build to build.
    notebook.cells = [new[kind](source, id=f"ex{exercise.id}-{index:02d}")
                      for index, (kind, source) in enumerate(cells)]
    for cell in notebook.cells[2:-1]:
        if cell.cell_type == "code" and runs_package(cell.source, course.package):
            cell.metadata["tags"] = [MAY_RAISE]
    return notebook


def runs_package(source: str, package: str) -> bool:
    """Whether a lesson's code cell uses the student's package (and so meets its stubs)."""
    return re.search(rf"\b{re.escape(package)}\b", source) is not None


def notebook_sources(course: Course) -> dict[str, str]:
    """Every lesson notebook, ``{file name: JSON text}``."""
    import nbformat

    sources = {}
    for exercise in course.exercises:
        # writes() validates the notebook against the nbformat schema
        sources[notebook_name(exercise)] = nbformat.writes(build_notebook(course, exercise)).rstrip("\n") + "\n"
    return sources


def build_notebooks(course: Course, out: Path | None = None) -> list[Path]:
    """Write the notebooks into ``exercises/`` (or ``out``); return the files written."""
    return write_generated(out or course.root / "exercises", notebook_sources(course))


def stale_notebooks(course: Course) -> list[str]:
    """Notebooks of ``exercises/`` that differ from what the build generates."""
    return stale_generated(course.root / "exercises", notebook_sources(course), "*.ipynb")
