"""Import grader files by path, so their scenarios register themselves."""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

from modlab.course import Course, Exercise

from .scenario import Scenario, scenarios_of


def import_grader(path: str | Path) -> None:
    """Import one grader file (once per process)."""
    path = Path(path).resolve()
    # Two courses may both have graders/test_01_parameter.py: name modules by their path.
    name = f"modlab_graders.{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def load_scenarios(course: Course, exercise: Exercise, public_only: bool = False) -> list[Scenario]:
    """The scenarios of one exercise, importing its grader file if needed."""
    path = course.grader_file(exercise)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no grader file for exercise {exercise.id}")
    import_grader(path)
    return scenarios_of(str(path.resolve()), public_only)
