"""One student kit per test session, written by `modlab release` from this
repository, for the tests of the student's side to copy."""
import atexit
import functools
import shutil
import tempfile
from pathlib import Path

import pytest

from modlab.course import load_course
from modlab.instructor.release import build_release

from conftest import ROOT


@functools.lru_cache(maxsize=None)
def released_kit() -> Path:
    """The kit, built once; read it, or copy it with :func:`kit_copy`."""
    pytest.importorskip("nbformat", reason="building the notebooks of a kit needs nbformat")
    folder = Path(tempfile.mkdtemp(prefix="modlab-kit-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    build_release(load_course(ROOT / "course.yaml"), folder / "kit")
    return folder / "kit"


def kit_copy(target: Path, reference: tuple[str, ...] = ()) -> Path:
    """A copy of the kit at ``target``, with the reference version of the
    ``reference`` files of the student package (``"*"``: all of them)."""
    shutil.copytree(released_kit(), target)
    course = load_course(target / "course.yaml")
    solutions = ROOT / "solutions" / course.package
    for source in solutions.glob("*.py"):
        if "*" in reference or source.name in reference:
            shutil.copy(source, target / course.package / source.name)
    return target
