"""The worker: the one module that runs a graded package's code.

It runs in its own process, started by :mod:`modlab.runner.process`, and
serves one "world": either ``torch.nn`` itself (the trusted oracle) or a
``mynn`` package assembled in memory from source texts. For every request it
runs a scenario body with that world as ``nn`` and answers with the plain-data
observation of :mod:`modlab.grading.observe`. Requests and answers are JSON
bytes; nothing is pickled in either direction.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import json
import os
import random
import sys
import traceback

import torch

from modlab.grading import observe
from modlab.grading.scenario import REGISTRY


class SourcePackage(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import a package from ``{relative path: source text}`` held in memory.

    The graded package never lies on a path Python searches, so nothing the
    submission leaves beside its files (a ``pytest.py``, a ``conftest.py``)
    is ever imported in its place.
    """

    def __init__(self, package: str, sources: dict[str, str]):
        self.package = package
        self.sources = sources

    def _relpath(self, fullname: str) -> str | None:
        if fullname == self.package:
            return "__init__.py"
        head, _, tail = fullname.partition(".")
        if head == self.package and "." not in tail and f"{tail}.py" in self.sources:
            return f"{tail}.py"
        return None

    def find_spec(self, fullname, path=None, target=None):
        relpath = self._relpath(fullname)
        if relpath is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=relpath == "__init__.py")

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        relpath = self._relpath(module.__name__)
        filename = f"{self.package}/{relpath}"
        module.__file__ = filename
        exec(compile(self.sources[relpath], filename, "exec"), module.__dict__)


def load_world(world: dict):
    """The ``nn`` the scenarios of this process receive."""
    if world["kind"] == "torch":
        return torch.nn
    package = world["package"]
    sys.meta_path.insert(0, SourcePackage(package, world["sources"]))
    return importlib.import_module(package)


def failure(exc: BaseException, package: str | None) -> dict:
    """An exception as plain data, with the package file and line it came from."""
    record = {"type": type(exc).__name__, "message": str(exc)[:500]}
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename:
        frames.append(traceback.FrameSummary(exc.filename, exc.lineno or 0, "<module>"))
    ours = [f for f in frames if package and f.filename.startswith(f"{package}/")]
    if ours:
        record["file"] = ours[-1].filename.split("/", 1)[1]
        record["line"] = ours[-1].lineno
    return record


def run_request(nn, request: dict) -> dict:
    """Run one scenario body and observe what it returns."""
    scenario = REGISTRY[request["scenario"]]
    torch.manual_seed(request.get("seed", 0))
    random.seed(request.get("seed", 0))
    return {"observation": observe.encode(scenario.body(nn, **request["arguments"]))}


def answer(request: dict, nn, package: str | None) -> dict:
    if request["op"] == "cuda":
        return {"cuda": torch.cuda.is_available(), "name": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    try:
        return run_request(nn, request)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt are the submission's too
        return {"raised": failure(exc, package)}


def serve(connection, world: dict, grader_files: list[str]) -> None:
    """Worker entry point: load the world, then answer requests until EOF."""
    quiet = os.open(os.devnull, os.O_RDWR)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    _import_graders(grader_files)
    package = world.get("package")
    try:
        nn = load_world(world)
    except BaseException as exc:
        connection.send_bytes(json.dumps({"loaded": False, "error": failure(exc, package)}).encode())
        return
    connection.send_bytes(json.dumps({"loaded": True}).encode())
    while True:
        try:
            request = json.loads(connection.recv_bytes())
        except EOFError:
            return
        connection.send_bytes(json.dumps(answer(request, nn, package)).encode())


def _import_graders(grader_files: list[str]) -> None:
    """Under ``spawn`` the registry starts empty: import the graders again."""
    from modlab.grading.loader import import_grader

    for path in grader_files:
        import_grader(path)
