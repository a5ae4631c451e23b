"""``modlab gradescope build``: the ``autograder.zip`` Gradescope builds its image from.

The zip holds, at its root, what Gradescope runs and what grading reads, and nothing else::

    setup.sh, run_autograder     the two scripts (:mod:`.scripts`)
    requirements.txt             the pinned versions setup.sh installs (from constraints.txt)
    constraints.txt              the course's pins, which setup.sh also applies to their dependencies
    course.yaml                  the course: exercises, points, limits
    graders/                     the course's grading modules but the scenarios of exercises not graded
    solutions/mynn/*.py          the reference, which each exercise is grafted into
    modlab/                      the grading side of modlab and the one command run_autograder calls

Gradescope keeps the zip from students, so it holds hidden graders and the
reference on purpose; it holds no lesson, notebook, starter code, test, bench,
document or instructor tool, and no scenario of an exercise it does not grade.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

from modlab import kit
from modlab.course import Course
from modlab.pins import FILE as CONSTRAINTS
from modlab.pins import canonical, read_pins
import modlab

from .scripts import Settings, run_autograder, setup_sh

# The modules of modlab that grading on Gradescope runs: `modlab gradescope run`, and what the
# kit's checks need of the engine and below (kit.PACKAGES, kept with the engine's imports)
# without the student's own tools. The project's tests run the zip, so a module missing here fails them.
STUDENT_ONLY = ("student", "kit", "pins")
GRADING_MODULES = ("__init__", "commands/__init__", "commands/program", "commands/gradescope",
                   "instructor/__init__", "instructor/gradescope/__init__", "instructor/gradescope/autograder",
                   "instructor/gradescope/upload", *(name for name in kit.PACKAGES if name not in STUDENT_ONLY))
# The zip's `python -m modlab` is `modlab gradescope run`: the one command it has.
AUTOGRADER_MAIN = '''"""``python -m modlab`` in Gradescope's image: ``modlab gradescope run``, which run_autograder calls."""
import sys

from modlab.commands import program

sys.argv[1:1] = ["gradescope", "run"]  # this process's own command line: the command may relaunch it
sys.exit(program.run(None, ["gradescope"], "Grade a Gradescope submission."))
'''
EXECUTABLE, PLAIN = 0o100755, 0o100644
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # every entry's time: the same course gives the same zip


class BundleError(ValueError):
    """The zip cannot be built: an exercise without a grader, a requirement without a pin."""


def autograder_files(course: Course, settings: Settings) -> dict[str, bytes]:
    """Every file of the zip, ``{path in the zip: content}``, the scripts first.

    Raises:
        BundleError: a graded exercise has no grader file, or ``constraints.txt``
            pins no version of something grading needs.

    Example::

        list(autograder_files(course, Settings(exercises=("10",))))[:3]   # ['setup.sh', 'run_autograder', ...]
    """
    files = {"setup.sh": setup_sh(settings).encode(), "run_autograder": run_autograder(settings).encode(),
             "requirements.txt": requirements(course).encode(),
             CONSTRAINTS: (course.root / CONSTRAINTS).read_bytes(),
             "course.yaml": (course.root / "course.yaml").read_bytes()}
    files.update(_graders(course, settings.exercises))
    files.update({f"solutions/{course.package}/{path.name}": path.read_bytes()
                  for path in sorted(course.solutions.glob("*.py"))})
    files.update(_grading_modules())
    return files


def requirements(course: Course) -> str:
    """``requirements.txt``: ``name==version`` for each package grading imports, pinned by ``constraints.txt``.

    Raises:
        BundleError: ``constraints.txt`` pins no version of one of them.
    """
    pins = read_pins(course.root / CONSTRAINTS)
    unpinned = [name for name in kit.REQUIRES if canonical(name) not in pins]
    if unpinned:
        raise BundleError(f"{CONSTRAINTS} pins no version of {', '.join(unpinned)}: pin it, since Gradescope's "
                          f"image installs pinned versions only")
    return ("# What grading imports, at the versions this course grades with: written by\n"
            f"# `modlab gradescope build` from the course's {CONSTRAINTS}; setup.sh installs them.\n"
            + "".join(f"{name}=={pins[canonical(name)]}\n" for name in kit.REQUIRES))


def write_zip(files: dict[str, bytes], out: Path) -> None:
    """Write ``files`` as a zip at ``out``: whole or not at all (written beside it, then renamed).

    The scripts are executable; every entry has the same time, so the same files give the same zip.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.{os.getpid()}.part")
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in files.items():
                entry = zipfile.ZipInfo(name, date_time=ZIP_TIME)
                entry.external_attr = (EXECUTABLE if name in ("setup.sh", "run_autograder") else PLAIN) << 16
                archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)


def _graders(course: Course, exercise_ids: tuple[str, ...]) -> dict[str, bytes]:
    """The modules of ``graders/`` but the scenarios of exercises the zip does not grade (nothing imports
    them; the rest is the course's misconception catalog, tried on every failure, and what it imports, so
    the feedback is ``modlab grade``'s). Never the pytest plugin's ``conftest.py``, which grading does not
    use, nor anything but modules (``variants.yaml`` and ``student_bugs.yaml``, the labelled and the blind buggy
    submissions, and ``measured.yaml``, what grading them measured, are the project's test data)."""
    graded = [course.exercise(i) for i in exercise_ids] if exercise_ids else list(course.exercises)
    missing = [str(course.grader_file(e).relative_to(course.root)) for e in graded if not course.grader_file(e).is_file()]
    if missing:
        raise BundleError(f"no grader for {', '.join(missing)}: there is nothing to grade that exercise with")
    left_out = {course.grader_file(e) for e in course.exercises if e not in graded} | {course.graders / "conftest.py"}
    return {path.relative_to(course.root).as_posix(): path.read_bytes()
            for path in sorted(course.graders.rglob("*.py")) if path not in left_out and "__pycache__" not in path.parts}


def _grading_modules() -> dict[str, bytes]:
    """:data:`GRADING_MODULES`' sources, under ``modlab/``, and the zip's own ``__main__.py``."""
    source = Path(modlab.__file__).parent
    files = {}
    for name in GRADING_MODULES:
        paths = sorted((source / name).rglob("*.py")) if (source / name).is_dir() else [source / f"{name}.py"]
        files.update({f"modlab/{path.relative_to(source).as_posix()}": path.read_bytes() for path in paths
                      if "__pycache__" not in path.parts})
    files["modlab/__main__.py"] = AUTOGRADER_MAIN.encode()
    return files
