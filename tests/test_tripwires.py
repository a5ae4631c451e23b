"""The tripwires on torch.nn are installed once, in the zygote: a package's
worker finds them there and is not blamed for what the zygote called, and the
oracle's worker answers with torch.nn as it is."""
import json

import pytest

from modlab.engine import GRAFT, package_sources
from modlab.isolation.process import WorkerProcess
from modlab.isolation.launcher import start_method

# Its import calls torch.nn.Module's methods in the zygote, which preloads it.
GRADER = '''
import torch

from modlab.grading import scenario

BUILT_AT_IMPORT = torch.nn.Linear(2, 2)


@scenario()
def wrapped_methods(nn):
    """the methods of torch.nn.Module that are a tripwire's wrapper in this worker"""
    return sorted(name for name, member in vars(torch.nn.Module).items() if hasattr(member, "__wrapped__"))
'''


@pytest.fixture
def grader(tmp_path):
    path = tmp_path / "graders" / "98_tripwires" / "test_98_tripwires.py"  # a course's grader, as a course holds it
    path.parent.mkdir(parents=True)
    path.write_text(GRADER)
    return str(path)


def wrapped_in(world: dict, grader: str, course) -> tuple[list[str], list[str]]:
    """The wrapped methods one worker of ``world`` sees, and the tamper it reports."""
    worker = WorkerProcess(world, [grader], limits=course.limits if world["kind"] == "package" else None)
    try:
        answer = worker.ask({"op": "run", "scenario": f"{grader}::wrapped_methods", "arguments": {}}, 30)
    finally:
        worker.close()
    return json.loads(answer["observed"]), answer.get("tamper", [])


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_packages_are_watched_and_the_oracle_sees_torch_nn_as_it_is(course, grader, method, monkeypatch):
    monkeypatch.setenv("MODLAB_START_METHOD", method)
    exercise = course.exercise("01")
    package = {"kind": "package", "package": course.package, "own": list(exercise.files),
               "sources": package_sources(course, exercise, course.solutions, GRAFT)}
    first = WorkerProcess({"kind": "torch"}, course.grader_files()[:1])  # the zygote's tripwires, before GRADER's import
    first.ask({"op": "cuda"}, timeout=120)
    first.close()
    for world in (package, {"kind": "torch"}, package):  # in either order from one zygote
        wrapped, tamper = wrapped_in(world, grader, course)
        if world["kind"] == "package":
            assert {"__call__", "__setattr__", "parameters", "state_dict"} <= set(wrapped)
            assert tamper == []  # the zygote's Linear, built importing the grader, is not the package's
        else:
            assert wrapped == []
    assert start_method() == method
