"""What a student uploads to Gradescope, made into a package folder to grade.

Gradescope puts the upload in ``/autograder/submission``. For the exercises
the autograder grades, it may hold::

    losses.py                         the exercise's files, uploaded as they are
    mynn/losses.py                    the package folder (a kit's repository, submitted from GitHub, holds it)
    ada-10-20270115T101500Z.zip       archives `modlab submit NN` wrote: manifest.json and mynn/losses.py

each also inside one folder (a folder zipped whole). Gradescope unzips an
uploaded zip itself; archives it left zipped are read here, and where several
hold the same file, an exercise's own archive wins for its own files, then the
latest. Anything else is refused with one line saying what was expected.

The upload is data, never trusted: the package's ``.py`` files are copied into
a fresh folder as plain files. A link (which could point at the reference), a
file over ``MAX_FILE_BYTES``, a folder of more than ``MAX_FILES`` modules, an
archive entry that is a link or lies beside the package are refused or
ignored, never followed; nothing in an archive is extracted but those files.
"""
from __future__ import annotations

import json
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path

from modlab.course import Course, Exercise

MAX_FILE_BYTES = 1 << 20  # a student's module is a few KiB
MAX_ARCHIVE_BYTES = 16 << 20
MAX_FILES = 64
MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.py$")
LINK = stat.S_IFLNK


class UnusableUpload(ValueError):
    """The upload holds nothing to grade, or something refused; the message says what was expected."""


@dataclass(frozen=True)
class Staged:
    """An upload made into a package folder.

    Attributes:
        package: the folder holding the copied modules.
        found: where they came from, for the autograder's log (``mynn/ in the upload``).
    """

    package: Path
    found: str


def stage_upload(upload: Path, course: Course, exercises: list[Exercise], into: Path) -> Staged:
    """Copy the package modules of ``upload`` into ``into/<package>``.

    Args:
        upload: Gradescope's ``/autograder/submission``.
        course: names the package and each exercise's files.
        exercises: the exercises graded; the upload must hold a file of one of them.
        into: an empty folder of the grading side's own.

    Returns:
        The staged package and where it was found.

    Raises:
        UnusableUpload: nothing to grade, or a link, an oversized file or
            too many files; its message is the line the student reads.

    Example::

        stage_upload(Path("/autograder/submission"), course, [course.exercise("10")], Path(tmp)).package
    """
    wanted = {name for exercise in exercises for name in exercise.files}
    places = _places(upload)
    for place in places:
        for folder in (place / course.package, place):
            if any((folder / name).exists() or (folder / name).is_symlink() for name in wanted):
                _refuse_link(folder, upload)
                modules = _folder_modules(folder, upload)
                where = _shown(folder, upload) + ("" if folder == upload else " in the upload")
                return Staged(_write(modules, into / course.package), where)
    archives = [path for place in places for path in sorted(place.glob("*.zip")) if path.is_file()]
    modules, read = _archive_modules(archives, course, upload)
    if wanted & set(modules):
        return Staged(_write(modules, into / course.package), "the archive " + ", ".join(read))
    raise UnusableUpload(expected(course, exercises) + "; " + _listing(upload))


def expected(course: Course, exercises: list[Exercise]) -> str:
    """What an upload must hold, in one line, for the students of these exercises.

    Example::

        expected(course, [course.exercise("10")])
        # 'nothing to grade: upload losses.py (exercise 10), the mynn/ folder holding it, or the archive ...'
    """
    files = [name for exercise in exercises for name in exercise.files]
    if len(exercises) == 1:
        [exercise] = exercises
        them = "it" if len(files) == 1 else "them"
        return (f"nothing to grade: upload {' and '.join(files)} (exercise {exercise.id}), the {course.package}/ "
                f"folder holding {them}, or the archive `modlab submit {exercise.id}` writes "
                f"(submissions/<you>-{exercise.id}-<time>.zip)")
    return (f"nothing to grade: upload the files of exercises {', '.join(e.id for e in exercises)} "
            f"({', '.join(files)}), the {course.package}/ folder holding them, or the archives "
            f"`modlab submit NN` writes, one per exercise")


def _places(upload: Path) -> list[Path]:
    """The upload, and its one folder where it holds a folder and nothing else (a folder zipped whole)."""
    entries = [entry for entry in upload.iterdir() if not entry.name.startswith((".", "__MACOSX"))]
    if len(entries) == 1 and entries[0].is_dir():
        _refuse_link(entries[0], upload)
        return [upload, entries[0]]
    return [upload]


def _folder_modules(folder: Path, upload: Path) -> dict[str, bytes]:
    modules = {}
    for path in sorted(folder.iterdir()):
        if not MODULE.match(path.name):
            continue
        mode = path.lstat().st_mode
        if stat.S_IFMT(mode) == LINK:
            raise UnusableUpload(f"{_shown(path, upload)} is a link: upload the file itself")
        if stat.S_ISREG(mode):
            modules[path.name] = _read_limited(path.open("rb"), _shown(path, upload))
        _refuse_too_many(modules, _shown(folder, upload))
    return modules


def _archive_modules(archives: list[Path], course: Course, upload: Path) -> tuple[dict[str, bytes], list[str]]:
    """The package modules of every archive, each file from the archive that owns it most, and the archives read."""
    chosen: dict[str, tuple[tuple, bytes]] = {}
    read = []
    for path in archives:
        found = _archive(path, course, _shown(path, upload))
        if found is None:
            continue
        owned, submitted_at, modules = found
        read.append(_shown(path, upload))
        for name, data in modules.items():
            rank = (name in owned, submitted_at)
            if name not in chosen or rank > chosen[name][0]:
                chosen[name] = (rank, data)
    return {name: data for name, (_, data) in sorted(chosen.items())}, read


def _archive(path: Path, course: Course, shown: str) -> tuple[set[str], str, dict[str, bytes]] | None:
    """``(files its exercise owns, submitted_at, {module: bytes})`` of a package archive,
    or None where ``path`` is not a zip archive holding package modules."""
    if path.stat().st_size > MAX_ARCHIVE_BYTES:
        raise UnusableUpload(f"{shown} is over {MAX_ARCHIVE_BYTES >> 20} MiB: not an archive of `modlab submit`")
    try:
        with zipfile.ZipFile(path) as archive:
            entries = [info for info in archive.infolist() if _is_module_entry(info, course.package)]
            modules = {}
            for info in entries:
                if stat.S_IFMT(info.external_attr >> 16) == LINK:
                    raise UnusableUpload(f"{shown}: {info.filename} is a link: upload the file itself")
                modules[info.filename.split("/")[1]] = _read_limited(archive.open(info), f"{shown}: {info.filename}")
                _refuse_too_many(modules, shown)
            manifest = _manifest(archive)
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError):  # RuntimeError: encrypted
        return None  # not an archive we can read: it counts as any other file
    if not modules:
        return None
    return _owned(course, manifest.get("exercise")), str(manifest.get("submitted_at", "")), modules


def _owned(course: Course, exercise_id) -> set[str]:
    """The files the manifest's exercise owns (none for a manifest that names no exercise of the course)."""
    return next((set(e.files) for e in course.exercises if e.id == exercise_id), set())


def _manifest(archive: zipfile.ZipFile) -> dict:
    try:
        data = json.loads(_read_limited(archive.open("manifest.json"), "manifest.json"))
    except (KeyError, ValueError, UnusableUpload):
        return {}
    return data if isinstance(data, dict) else {}


def _is_module_entry(info: zipfile.ZipInfo, package: str) -> bool:
    """Exactly ``<package>/<module>.py``: no absolute path, no ``..``, nothing nested or beside it."""
    parts = info.filename.split("/")
    return len(parts) == 2 and parts[0] == package and bool(MODULE.match(parts[1]))


def _read_limited(stream, shown: str) -> bytes:
    """At most ``MAX_FILE_BYTES`` from ``stream``, whatever size the file (or an archive's header) claims."""
    with stream:
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise UnusableUpload(f"{shown} is over {MAX_FILE_BYTES >> 20} MiB: not a module of the course")
    return data


def _refuse_too_many(modules: dict, shown: str) -> None:
    if len(modules) > MAX_FILES:
        raise UnusableUpload(f"{shown} holds over {MAX_FILES} modules: upload the course's files only")


def _refuse_link(folder: Path, upload: Path) -> None:
    if folder != upload and folder.is_symlink():
        raise UnusableUpload(f"{_shown(folder, upload)} is a link: upload the folder itself")


def _write(modules: dict[str, bytes], package: Path) -> Path:
    package.mkdir(parents=True)
    for name, data in modules.items():
        (package / name).write_bytes(data)
    return package


def _shown(path: Path, upload: Path) -> str:
    """A path as the student knows it: relative to the upload, folders ending in ``/``."""
    if path == upload:
        return "the upload"
    relative = path.relative_to(upload).as_posix()
    return relative + "/" if path.is_dir() and not path.is_symlink() else relative


def _listing(upload: Path, most: int = 10) -> str:
    names = sorted(_shown(entry, upload) for entry in upload.iterdir())
    if not names:
        return "the upload is empty"
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return "found " + ", ".join(names[:most]) + more
