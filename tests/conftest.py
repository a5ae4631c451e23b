"""Shared fixtures for the project's own tests."""
import gc
import os
import signal
from pathlib import Path

import pytest

from modlab.course import load_course

ROOT = Path(__file__).resolve().parent.parent

# The second course's graders are a course's content, graded by tests/test_second_course.py: not tests.
collect_ignore_glob = ["courses/*"]

# A check at a terminal (pytest -s) would leave a check server behind; tests/test_check_server.py asks for one.
os.environ["MODLAB_CHECK_SERVER"] = "0"
# The suite runs more processes than cores (workers, kernels, zygotes, servers), and torch's
# thread pool in each spins while it waits for the others: a capstone notebook took 18 s of CPU
# beside the suite and 6 s alone. One thread each, as the zygote gives every worker; set before
# anything here imports torch, and inherited by all this process starts.
os.environ.setdefault("OMP_NUM_THREADS", "1")


def as_in_a_terminal() -> None:
    """A child's ``preexec_fn``: Ctrl-C (SIGINT) interrupts it, as it does a command run
    in a terminal, even where this test run was started in the background by a
    non-interactive shell, which ignores SIGINT for it and all it starts."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def course_module(relative: str):
    """A module of the course's grading content (``shared/trees.py``), imported as grading imports it."""
    from modlab.grading.loader import import_course_module

    return import_course_module(ROOT / "graders", relative)


@pytest.hookimpl(optionalhook=True)  # pytest -p no:xdist (bench/suite.py's serial run) knows no such hook
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: a worker per core this process may use (psutil, where installed, would count
    physical cores only). Not one more: the suite's tests spend their time in subprocesses that
    keep the cores busy, and a third worker on two cores only made them contend (bench/README.md)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    """Run in parallel (``make test``: pytest-xdist, ``--dist loadgroup``) without making any set-up twice.

    A module's tests that share a set-up (a fixture of module or session scope
    defined in that module, such as a graded class or executed notebooks) go to
    one worker, as one group: otherwise each worker would make it again. And the
    slow tests come first, so that the long groups start at once and the short
    tests fill the cores around them.
    """
    for item, group in zip(items, shared_set_up_groups(items)):
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: otherwise as collected


def shared_set_up_groups(items) -> list[str]:
    """Each test's group: its module and the first of the set-ups it shares with others, by
    name, where tests that share any set-up are one group; "" for a test that shares none."""
    joined: dict[str, str] = {}  # a set-up's name: a set-up of its group (union-find)

    def root(name: str) -> str:
        while joined[name] != name:
            name = joined[name]
        return name

    shared = [module_set_ups(item) for item in items]
    for names in shared:
        for name in names:
            joined.setdefault(name, name)
        for name in names[1:]:
            joined[root(name)] = root(names[0])
    return [min(root(name) for name in names) if names else "" for names in shared]


def module_set_ups(item) -> list[str]:
    """The set-ups of module or session scope, defined in the item's own module, that it uses:
    ``module::fixture`` names."""
    module = item.nodeid.split("::")[0]
    return sorted(f"{module}::{name}" for name, definitions in item._fixtureinfo.name2fixturedefs.items()
                  if definitions[-1].scope in ("module", "session") and definitions[-1].baseid == module)


def pytest_collection_finish(session):
    """Freeze what collection loaded (torch, Hypothesis, every test item), so that the
    collector's full passes during the run, and its last ones at exit, leave it alone."""
    gc.freeze()


@pytest.fixture(scope="session")
def course():
    return load_course(ROOT / "course.yaml")


@pytest.fixture
def make_submission(tmp_path, course):
    """A submission folder: the stubs, with chosen files replaced.

    ``make_submission({"walk.py": text})`` returns the folder holding ``mynn/``.
    """
    def make(files: dict[str, str], base: Path | None = None) -> Path:
        package = tmp_path / "submission" / course.package
        package.mkdir(parents=True, exist_ok=True)
        for source in (base or ROOT / "exercises" / course.package).glob("*.py"):
            (package / source.name).write_text(source.read_text())
        for name, text in files.items():
            (package / name).write_text(text)
        return package.parent

    return make
