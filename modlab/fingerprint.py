"""What a grade depends on, as one digest: the answer every cache and record asks.

A grade is a function of modlab's own code, the course's content (its
exercises and limits, every file under ``graders/``, the reference package),
the versions of Python, torch, numpy and Hypothesis it runs with, and the
grading options. :func:`fingerprint` digests all of them, so that whatever
keeps a grade, or part of one, keeps it under the digest and never serves it
once any of them changed:

- the batch's records (``grading_key``): a resumed ``modlab grade CLASS --out``
  regrades everyone, and ``modlab merge`` refuses shards graded differently;
- the student's oracle cache: torch.nn's answers are kept in a file named by it;
- the check server: its socket's name holds it, so a changed installation
  or course is served by a new server.

Files are digested by content, never by time. Versions come from the
installed packages' metadata, so computing a fingerprint imports nothing
heavy (the check server's client computes one at every check).

Imports nothing of modlab but the course.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import platform
from dataclasses import asdict
from pathlib import Path

from modlab.course import Course, Exercise

# The packages whose behaviour grades depend on: torch computes both worlds,
# numpy carries tensors' bytes, Hypothesis draws the property checks' cases.
PACKAGES = ("torch", "numpy", "hypothesis")


def fingerprint(course: Course, options: dict, exercises: list[Exercise] | None = None) -> str:
    """A digest of everything a grade of ``exercises`` (default: all) depends on.

    Args:
        options: the grading options, as plain data (``asdict(GradeOptions(...))``);
            where answers are kept is not an option that changes them.

    Example::

        fingerprint(course, {"mode": "graft", "device": "cpu", "public_only": False})  # '3f1c0a9d2b7e4c65'
    """
    chosen = course.exercises if exercises is None else exercises
    digest = hashlib.sha256(json.dumps({
        "versions": versions(), "options": options, "package": course.package, "limits": asdict(course.limits),
        "oracle": course.oracle.spec(),
        "exercises": [[e.id, e.points, list(e.files), e.cumulative] for e in chosen],
    }, sort_keys=True, default=str).encode())
    digest.update(tool_digest().encode())
    digest.update(files_digest(course_files(course), course.root).encode())
    return digest.hexdigest()[:16]


def versions() -> dict[str, str]:
    """The Python, the machine and the installed versions of :data:`PACKAGES`."""
    found = {"python": platform.python_version(), "machine": platform.machine()}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


@functools.lru_cache(maxsize=None)
def tool_digest(root: Path | None = None) -> str:
    """modlab's own code (every module under ``root``, default: modlab's folder), read once a process."""
    import modlab

    root = root or Path(modlab.__file__).parent
    return files_digest(sorted(root.rglob("*.py")), root)


def course_files(course: Course) -> list[Path]:
    """The course's content a grade reads: every Python file under ``graders/`` and the reference."""
    return [*sorted(course.graders.rglob("*.py")), *sorted(course.solutions.glob("*.py"))]


def files_digest(paths: list[Path], root: Path | None = None) -> str:
    """A digest of the files' names (relative to ``root``, so that a copy of the folder
    elsewhere digests alike) and contents; a missing file counts as such."""
    digest = hashlib.sha256()
    for path in paths:
        if "__pycache__" in path.parts:
            continue
        digest.update(f"{path.relative_to(root) if root else path}\0".encode())
        digest.update(path.read_bytes() if path.is_file() else b"\0missing")
    return digest.hexdigest()
