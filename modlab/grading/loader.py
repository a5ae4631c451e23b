"""Import a course's grading content: its graders, and the modules they share, as packages.

A course keeps its grading content under ``graders/`` (see :class:`modlab.course.Course`):
one folder per exercise (``graders/10_losses/``: the scenarios in ``test_03_walk.py``,
the models and views they share, the exercise's misconception catalog) and
``graders/shared/`` for what several exercises use. Their modules import each
other relatively (``from .views import ...``, ``from ..shared.trees import ...``),
so the graders folder is imported as a package of its own, named after its
path: two courses, each with a ``graders/10_losses/``, never meet.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import linecache
import os
import sys
from pathlib import Path
from types import ModuleType

from modlab.course import Course, Exercise

from .catalog import course_catalog
from .fields import unobserved_fields
from .scenario import Scenario, scenarios_of

CATALOG_MODULE = "misconceptions"  # each folder's catalog entries: imported with the course
COURSE_PACKAGE = "modlab_course_"  # what the name of every graders folder imported starts with


def package_name(graders: Path) -> str:
    """The name a graders folder is imported under: unique to its path."""
    return f"{COURSE_PACKAGE}{hashlib.sha1(str(Path(graders).resolve()).encode()).hexdigest()[:10]}"


def import_course_module(graders: Path, relative: str):
    """Import a module of a graders folder by its path there (``shared/trees.py``), once per process.

    Raises:
        ImportError: the file does not exist, or the module raised while importing.
    """
    graders = Path(graders).resolve()
    _package(package_name(graders), graders)
    parts = Path(relative).with_suffix("").parts
    name = package_name(graders)
    for part in parts[:-1]:
        name = f"{name}.{part}"
        _package(name, graders.joinpath(*name.split(".")[1:]))
    if f"{name}.{parts[-1]}" in sys.modules:
        return sys.modules[f"{name}.{parts[-1]}"]
    module = importlib.import_module(f"{name}.{parts[-1]}")
    _keep_sources(package_name(graders))
    return module


def _keep_sources(package: str) -> None:
    """Read the source of every module of the course's package into ``linecache`` now: a worker,
    forked from here, cannot read the graders folder, and the feedback on a check's own failing
    line reads that line there (:mod:`modlab.isolation.line_values`)."""
    for name, module in list(sys.modules.items()):
        if name.startswith(f"{package}.") and getattr(module, "__file__", None):
            linecache.getlines(module.__file__)


def _package(name: str, folder: Path) -> None:
    """Make ``folder`` importable as the package ``name`` (with or without an ``__init__.py``)."""
    if name in sys.modules:
        return
    init = folder / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
    else:  # a folder without __init__.py: a package all the same, with nothing to run
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if spec.loader is not None:
        spec.loader.exec_module(module)


WORKER_IMPORTS = "WORKER_IMPORTS"  # a grader's names of modules its scenarios import slowly on first use
_imported_graders: dict[str, ModuleType] = {}  # grader files imported here, and so in every worker forked from here


def import_grader(path: str | Path) -> ModuleType:
    """Import one grader file (once per process), with the course's catalog first: its module."""
    # Asked again for every worker, in the zygote and in the worker: resolving the
    # paths of the grader and its catalog again cost each some 40 ms of CPU.
    asked = os.path.abspath(path)
    if asked not in _imported_graders:
        path = Path(path).resolve()
        graders = path.parent.parent
        load_catalog(graders)
        _imported_graders[asked] = import_course_module(graders, f"{path.parent.name}/{path.name}")
    return _imported_graders[asked]


def import_grader_for_workers(path: str | Path) -> None:
    """Import a grader file, and the modules its ``WORKER_IMPORTS`` names, where workers come from.

    Those are the modules its scenarios import on first use, slowly: torch.optim's first
    optimizer imports torch._dynamo, over a second of CPU. Imported once where workers are
    forked (or in a spawned worker), they cost no scenario its time limit; the grading side,
    which imports the grader too but runs no scenario, never pays for them.
    """
    for name in getattr(import_grader(path), WORKER_IMPORTS, ()):
        importlib.import_module(name)


def load_catalog(graders: Path) -> None:
    """Import every catalog module of a graders folder (``*/misconceptions.py``), once per process,
    so that entries tried on every exception are known whichever exercise is graded."""
    for path in sorted(Path(graders).glob(f"*/{CATALOG_MODULE}.py")):
        import_course_module(graders, f"{path.parent.name}/{path.name}")


def load_scenarios(course: Course, exercise: Exercise, public_only: bool = False) -> list[Scenario]:
    """The scenarios of one exercise, importing its grader file if needed.

    Raises:
        FileNotFoundError: the exercise has no grader file.
        ValueError: a misconception its scenarios list reads a field none of them observes.
    """
    path = course.grader_file(exercise)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no grader file for exercise {exercise.id}")
    import_grader(path)
    return scenarios_of(str(path.resolve()), public_only)


_checked: set[Path] = set()


def load_course_scenarios(course: Course) -> list[Scenario]:
    """Every scenario of the course, its whole catalog loaded and checked (once a process):
    what grading a class, building and releasing load.

    Raises:
        FileNotFoundError: an exercise has no grader file.
        ValueError: a detector reads a field that none of the scenarios listing it observes
            (:func:`~.fields.unobserved_fields`): a course whose grader and detector drifted apart.
    """
    scenarios = [s for exercise in course.exercises for s in load_scenarios(course, exercise)]
    graders = course.graders.resolve()
    if graders not in _checked:
        raising = [entry for entry in course_catalog(graders) if entry.on_raise]
        problems = unobserved_fields(scenarios, graders, raising)
        if problems:
            raise ValueError(f"{course.graders}: " + "; ".join(problems))
        _checked.add(graders)
    return scenarios
