"""Where a student's package folder is: the one answer every reader of submissions uses.

A student's files for an exercise lie in one of these places, tried in order::

    FOLDER/mynn/losses.py                  the package in the folder (a kit, a class's student folder)
    FOLDER/losses.py                       the folder is the package, or the files lie beside a notebook
    FOLDER/10_losses/mynn/losses.py          nbgrader: one assignment folder per exercise,
    FOLDER/10_losses/losses.py               its files in mynn/ or beside the notebook

An assignment folder may be named after the exercise (``10_losses``), its id
(``03``) or its slug (``walk``). :func:`package_folder` answers for one folder
given on the command line (``modlab grade PATH``, ``modlab check --path``,
``pytest --submission``); :func:`exercise_folder` for one exercise of a
student (batch grading, nbgrader's autograde).

May import: :mod:`modlab.course`, :mod:`modlab.errors`.
"""
from __future__ import annotations

from pathlib import Path

from modlab.course import Course, Exercise
from modlab.errors import UsageError


def package_folder(path: Path, course: Course) -> Path:
    """The package folder given by ``path``: ``path/<package>``, or ``path`` itself when it is
    named after the package or holds a file of the course's package.

    Args:
        path: a folder holding the package, or the package folder itself.
        course: names the package and its files.

    Returns:
        The folder holding the package's files.

    Raises:
        UsageError: ``path`` does not exist, or holds no package.

    Example::

        package_folder(Path("solutions"), course)   # -> solutions/mynn
    """
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path}: no such folder")
    found = find_package_folder(path, course)
    if found is None:
        raise UsageError(f"{path}: holds no {course.package}/ package folder")
    return found


def find_package_folder(path: Path, course: Course) -> Path | None:
    """:func:`package_folder`, or None where ``path`` holds no package (a class of students, say)."""
    path = Path(path)
    if (path / course.package).is_dir():
        return path / course.package
    if path.is_dir() and (path.name == course.package or _holds_any(path, course.exercises)):
        return path
    return None


def exercise_folder(folder: Path, course: Course, exercise: Exercise) -> Path:
    """The folder holding a student's files of one exercise, in any layout of the module docstring.

    Args:
        folder: the student's folder (or an nbgrader submission's).
        course: names the package.
        exercise: whose files to look for.

    Returns:
        The first candidate folder holding one of the exercise's files; when none
        does, where they were expected (``folder/<package>`` if it exists, else the
        assignment folder), so that grading says which file is missing.

    Example::

        exercise_folder(Path("submitted/ada"), course, course.exercise("10"))   # -> submitted/ada/10_losses
    """
    folder = Path(folder)
    candidates = [folder / course.package, folder]
    for name in (exercise.name, exercise.id, exercise.slug):
        candidates += [folder / name / course.package, folder / name]
    for candidate in candidates:
        if _holds_any(candidate, [exercise]):
            return candidate
    return candidates[0] if candidates[0].is_dir() else folder / exercise.name


def student_of(package_dir: Path, course: Course) -> str:
    """Whose package this is, as records name the student: the folder holding the
    package, or, in nbgrader's layout (``submitted/ada/10_losses/mynn/``), the folder
    holding the assignment's.

    Example::

        student_of(Path("submitted/ada/10_losses/mynn"), course)   # -> 'ada'
        student_of(Path("class/bob/mynn"), course)               # -> 'bob'
    """
    holder = Path(package_dir).resolve().parent
    assignments = {name for exercise in course.exercises for name in (exercise.name, exercise.id, exercise.slug)}
    return holder.parent.name if holder.name in assignments else holder.name


def _holds_any(folder: Path, exercises) -> bool:
    return any((folder / name).is_file() for exercise in exercises for name in exercise.files)
