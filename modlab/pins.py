"""The versions a course is graded with: the ``constraints.txt`` beside its ``course.yaml``.

The course repository's ``constraints.txt`` is the one place versions are
pinned (``pyproject.toml`` declares ranges). ``modlab release`` writes the
kit's own ``constraints.txt`` from it, holding the pins of what the kit
installs, and ``modlab check`` and ``modlab doctor`` say in one line when
the torch installed differs from the torch the course grades with::

    torch==2.13.0        # a pin: name==version
    numpy==2.4.6

Imports nothing of modlab: every layer may read the pins.
"""
from __future__ import annotations

import re
from pathlib import Path

FILE = "constraints.txt"
PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;#]+)")


def canonical(name: str) -> str:
    """A distribution's name as package indexes compare it (``PyYAML`` -> ``pyyaml``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(path: Path) -> dict[str, str]:
    """The ``name==version`` pins of a constraints file, by canonical name; ``{}`` if there is no file.

    Example::

        read_pins(Path("constraints.txt"))["torch"]   # '2.13.0'
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    return {canonical(found.group(1)): found.group(2) for found in map(PIN.match, lines) if found}


def version_mismatch(course_root: Path, name: str = "torch") -> str:
    """One line when the installed ``name`` is not the version the course pins, else ``""``.

    A local version label (``2.13.0+cpu``) is the same release built for
    other hardware, so it does not count as a difference. A course without
    pins, or a distribution that is not installed, gets no line.

    Example::

        version_mismatch(course.root)
        # 'warning: this course grades with torch 2.13.0, but torch 2.14.1 is installed here: ...'
    """
    pinned = read_pins(Path(course_root) / FILE).get(canonical(name))
    if pinned is None:
        return ""
    # Imported here: it costs a check's start more than the rest of it, and torch loads it anyway.
    import importlib.metadata

    try:
        installed = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return ""
    if installed.split("+")[0] == pinned.split("+")[0]:
        return ""
    return (f"warning: this course grades with {name} {pinned}, but {name} {installed} is installed here, "
            f"so a check may differ from your grade: install the course's versions as README.md says "
            f"(python -m pip install -c {FILE} ...)")
