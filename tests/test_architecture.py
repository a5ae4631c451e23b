"""The layout's rules hold: imports run down the flow (import-linter's contracts in
pyproject.toml), no module takes part in an import cycle, every package says what it may import."""
import ast
import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import modlab

from conftest import ROOT

grimp = pytest.importorskip("grimp", reason="the import contracts need import-linter (pip install 'modlab[instructor]')")
LINT = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    if not LINT.is_file():
        pytest.skip("lint-imports is not installed beside this Python")
    return subprocess.run([str(LINT), "--no-cache", "--config", str(root / "pyproject.toml")], cwd=root,
                          capture_output=True, text=True, timeout=300)


def test_every_import_contract_is_kept():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_an_import_that_runs_up_breaks_the_contracts(tmp_path):
    """The contracts can fail: records (the contract at the bottom) importing the CLI breaks them."""
    shutil.copytree(ROOT / "modlab", tmp_path / "modlab", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with open(tmp_path / "modlab" / "records.py", "a") as records:
        records.write("\n\ndef _upward():\n    from modlab.cli import main  # noqa: F401\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "modlab.records -> modlab.cli" in done.stdout


def import_cycles(graph) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(group)

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_is_in_an_import_cycle():
    assert import_cycles(grimp.build_graph("modlab")) == []


def test_the_cycle_finder_finds_a_cycle():
    class Graph:
        modules = {"a", "b", "c"}
        edges = {"a": {"b"}, "b": {"c"}, "c": {"b"}}

        def find_modules_directly_imported_by(self, module):
            return self.edges[module]

    assert import_cycles(Graph()) == [{"b", "c"}]


def docstring(name: str) -> str:
    """A module's docstring, read without running it (``modlab.__main__`` would run the CLI)."""
    path = ROOT / Path(*name.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return ast.get_docstring(ast.parse(path.read_text())) or ""


def packages():
    return [name for _, name, is_package in pkgutil.walk_packages(modlab.__path__, "modlab.") if is_package]


@pytest.mark.parametrize("name", packages())
def test_every_package_says_what_it_holds(name):
    assert len(docstring(name).split()) >= 8, f"{name} needs a docstring saying what it owns"


def layers() -> list[str]:
    """Every module the layers contract of pyproject.toml places."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    return [f"modlab.{name.strip()}" for layer in config["layers"] for name in layer.split("|")]


@pytest.mark.parametrize("name", layers())
def test_every_layer_says_what_it_may_import(name):
    doc = docstring(name)
    assert "May import" in doc or "may import" in doc or "Imports nothing" in doc, name


LONGEST = 400  # lines a module of modlab/ may have before its docstring must say why it is one module


def test_a_long_module_says_why_it_is_one():
    long = [path.relative_to(ROOT) for path in sorted((ROOT / "modlab").rglob("*.py"))
            if len(path.read_text().splitlines()) > LONGEST
            and "longer than" not in (ast.get_docstring(ast.parse(path.read_text())) or "").lower()]
    assert long == [], f"split these by job, or say in the docstring why each is longer than {LONGEST} lines"
