"""A correct implementation written unlike the reference scores full marks:
the graders check behaviour, not the reference's shape.

Each file in ``tests/alternative/`` holds what a student writes for one
exercise file, written another way than the reference: other helpers,
iterative walks instead of recursion, other data structures. ``as_student_file``
fills it into the stub the way a student does: the body of each function of
the alternative replaces the ``raise NotImplementedError(...)`` line of the
stub's function of the same name, given code around it stays, and new helpers
are added. A stub function the alternative does not write stays a stub, which
also proves that no given code leans on the reference's own helpers.
"""
import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from modlab.engine import GradeOptions, grade_exercise
from modlab.formats.feedback import feedback_line
from modlab.instructor.variants import reference_package
from modlab.records import FAILED

from conftest import ROOT

ALTERNATIVES = Path(__file__).parent / "alternative"
STUB_LINE = 'raise NotImplementedError("exercise '


def _definitions(tree):
    """``{qualified name: node}`` for the module's functions and its classes' methods."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            found[node.name] = node
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found[f"{node.name}.{item.name}"] = item
    return found


def _body(lines, function):
    """A function's statements without its docstring, dedented."""
    statements = function.body
    if isinstance(statements[0], ast.Expr) and isinstance(getattr(statements[0], "value", None), ast.Constant):
        statements = statements[1:]
    return textwrap.dedent("".join(lines[statements[0].lineno - 1:function.end_lineno]))


def _source(lines, node):
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "".join(lines[start - 1:node.end_lineno])


def as_student_file(stub: str, alternative: str) -> str:
    """The stub with the alternative's functions filled in, as a student fills it.

    Raises:
        ValueError: the alternative writes a function the stub gives (no stub line to fill).
    """
    stub_lines = stub.splitlines(keepends=True)
    alt_lines = alternative.splitlines(keepends=True)
    stubs, alt_tree = _definitions(ast.parse(stub)), ast.parse(alternative)
    edits, appended, imports = [], [], []  # edits: (stub line index, replacement text)
    for node in alt_tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(_source(alt_lines, node))
        elif isinstance(node, ast.ClassDef) and node.name in stubs:
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    _fill(f"{node.name}.{item.name}", item, stubs, stub_lines, alt_lines, edits, appended, node)
        elif isinstance(node, ast.FunctionDef) and node.name in stubs:
            _fill(node.name, node, stubs, stub_lines, alt_lines, edits, appended, None)
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # skip the docstring
            appended.append((len(stub_lines), "\n\n" + _source(alt_lines, node)))
    # From the bottom up, so that indices stay valid; additions at one place keep their order.
    numbered = [(index, order, text) for order, (index, text) in enumerate(edits + appended)]
    for index, _, text in sorted(numbered, reverse=True):
        if index < len(stub_lines) and STUB_LINE in stub_lines[index]:
            stub_lines[index] = text
        else:
            stub_lines.insert(index, text)
    first_code = next(n for n in ast.parse(stub).body if not isinstance(n, ast.Expr)).lineno - 1
    return "".join(stub_lines[:first_code] + imports + stub_lines[first_code:])


def _fill(name, function, stubs, stub_lines, alt_lines, edits, appended, owner):
    if name not in stubs:  # a helper of the alternative's own: a new method at the end of its class
        target = stubs[owner.name]
        appended.append((target.end_lineno, "\n" + textwrap.indent(textwrap.dedent(_source(alt_lines, function)), "    ")))
        return
    target = stubs[name]
    for index in range(target.lineno - 1, target.end_lineno):
        if STUB_LINE in stub_lines[index]:
            indent = stub_lines[index][:len(stub_lines[index]) - len(stub_lines[index].lstrip())]
            edits.append((index, textwrap.indent(_body(alt_lines, function), indent)))
            return
    raise ValueError(f"{name} is given code in the stub: an alternative fills only what the student writes")


def test_a_filled_in_stub_keeps_the_given_code_around_the_students_lines():
    stub = ('"""Doc."""\nimport torch\n\n\nclass Net:\n    def f(self):\n        """Given before."""\n'
            '        x = 1\n        raise NotImplementedError("exercise 02: f")\n        return x\n\n'
            '    def given(self):\n        return 2\n')
    alternative = ('import math\n\n\nclass Net:\n    def f(self):\n        """Docs are not copied."""\n'
                   '        x = math.floor(2.5)\n\n    def _mine(self):\n        return 3\n')
    filled = as_student_file(stub, alternative)
    namespace = {}
    exec(compile(filled, "filled", "exec"), namespace)
    net = namespace["Net"]()
    assert (net.f(), net.given(), net._mine()) == (2, 2, 3)
    assert "Docs are not copied" not in filled and "Given before." in filled
    with pytest.raises(ValueError, match="given code"):
        as_student_file(stub, "class Net:\n    def given(self):\n        return 5\n")


@pytest.mark.parametrize("path", sorted(ALTERNATIVES.glob("*.py")), ids=lambda p: p.stem)
def test_an_alternative_implementation_scores_full_marks(course, tmp_path, path):
    exercise = next(e for e in course.exercises if path.name in e.files)
    stub = (ROOT / "exercises" / course.package / path.name).read_text()
    text = as_student_file(stub, path.read_text())
    package = reference_package(course, tmp_path, {path.name: text})
    result = grade_exercise(course, exercise, package, GradeOptions(device="cpu"))
    failures = [f"{t.name}: {feedback_line(t)}" for t in result.tests if t.outcome == FAILED]
    assert failures == [], f"{path.name} written another way loses points"
    assert result.score == pytest.approx(result.max_score)


def test_the_alternatives_pass_pytorchs_own_tests_too(course, tmp_path):
    """Full marks mean something only if the alternatives are right: together
    in one package, they pass the ported PyTorch suite as the reference does."""
    files = {path.name: as_student_file((ROOT / "exercises" / course.package / path.name).read_text(),
                                        path.read_text()) for path in ALTERNATIVES.glob("*.py")}
    package = reference_package(course, tmp_path, files)
    environment = {**os.environ, "MODLAB_UPSTREAM_PACKAGE": str(package)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "mynn",
                          str(ROOT / "tests" / "upstream")], env=environment, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]  # a failure, or a strict xfail that passed
    assert " passed" in run.stdout


def test_every_exercise_file_issue_15_changed_has_an_alternative():
    written = {path.name for path in ALTERNATIVES.glob("*.py")}
    assert {"registration.py", "walk.py", "calling.py", "containers.py", "state.py", "layers.py"} <= written
