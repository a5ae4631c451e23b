"""One student kit per test session, written by `modlab release` from this
repository, for the tests of the student's side to copy; and the check servers
such a kit's checks start."""
import atexit
import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from modlab.course import load_course
from modlab.instructor.release import build_release
from modlab.isolation.zygote import FORKED_NAME

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


def servers(runtime: Path) -> list[int]:
    """The check servers whose socket lies in ``runtime`` (their ``XDG_RUNTIME_DIR``); not
    their zygotes, forked from them with their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry.name.isdigit() and str(runtime) in (entry / "cmdline").read_text()
                    and (entry / "comm").read_bytes().strip() != FORKED_NAME):
                found.append(int(entry.name))
        except OSError:
            pass
    return found


@contextlib.contextmanager
def short_runtime_folder():
    """A new ``XDG_RUNTIME_DIR`` for check servers, short (a socket's path has at most 107
    bytes); every server whose socket lies there is ended with the block."""
    runtime = Path(tempfile.mkdtemp(prefix="ml"))
    try:
        yield runtime
    finally:
        for pid in servers(runtime):
            os.kill(pid, signal.SIGKILL)  # its zygote ends with it
        shutil.rmtree(runtime, ignore_errors=True)


@contextlib.contextmanager
def one_check_server(kit: Path):
    """In the block, this process and what it starts (a notebook's kernel) check ``kit``
    through one check server, as a student does who checked once at a terminal too: that
    check starts the server, which then outlives the kernels that come and go. The server
    ends with the block.

    Raises:
        AssertionError: no server started, or a check in the block did not go to it.
    """
    with short_runtime_folder() as runtime, pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_RUNTIME_DIR", str(runtime))
        patch.delenv("MODLAB_CHECK_SERVER", raising=False)  # a check cell's terminal asks for the server
        subprocess.run([sys.executable, "-m", "modlab", "check", "01"], cwd=kit, capture_output=True,
                       env={**os.environ, "MODLAB_CHECK_SERVER": "1"}, timeout=300)
        (server,) = servers(runtime)
        yield
        # A check that found no server for its installation would have started one and ended this one.
        assert servers(runtime) == [server], "a check in the block did not go to the server"
