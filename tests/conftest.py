"""Shared fixtures for the project's own tests."""
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


def as_in_a_terminal() -> None:
    """A child's ``preexec_fn``: Ctrl-C (SIGINT) interrupts it, as it does a command run
    in a terminal, even where this test run was started in the background by a
    non-interactive shell, which ignores SIGINT for it and all it starts."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def course_module(relative: str):
    """A module of the course's grading content (``shared/trees.py``), imported as grading imports it."""
    from modlab.grading.loader import import_course_module

    return import_course_module(ROOT / "graders", relative)


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
