"""The check server: a warm process that answers ``modlab check`` in a fraction of a second.

Most of a check's time is loading: this process imports torch, the engine
and Hypothesis, and the workers' zygote imports torch again. (A server forks
its zygote from itself once torch is loaded: one import, and one torch's
memory, for both.) A student runs
the check dozens of times an hour, and every time the same things load. So
the first check at a terminal starts a server for the course folder, which
loads them once and stays for ``serving.IDLE_S`` seconds after its last check; each
``modlab check`` (and ``modlab submit``, where a server is up) then only
sends it its command line. A check from a lesson notebook's cell also comes
through a terminal (IPython's), but a notebook is closed rather than left
idle: a server ends as soon as every notebook kernel it served has ended and
no terminal's check came within that time (:class:`.serving.Users`,
:mod:`.notebook_kernel`).

The server's own process is :mod:`.serving`; this module is the client's side.

For each check the server forks a child, a copy of itself with everything
loaded. The child takes the client's terminal (its stdin, stdout and stderr,
passed over the socket), folder and environment, runs the kit's own program
on the command line exactly as the client would have, and exits with its
status, which the client exits with. The student's code never runs in the
server nor in the child: as in every check, it runs in a worker forked from
the zygote, which reads the package fresh from disk.

A server serves one course folder with one installation. Its socket's name
holds a digest of what it has loaded (:func:`server_key`: the fingerprint
of everything a check's grade depends on, the Python, its path, the
variables that configure it), so after any change a check starts a new
server instead of asking a stale one, and removes the old one's socket: a
server whose socket is gone ends once its running checks have. The socket
lies in a folder only this user may enter.

``MODLAB_CHECK_SERVER=0`` turns it off; ``=1`` uses it also where stdout is
not a terminal (benchmarks, tests). Only where workers are forked (Linux).

Imports nothing that loads torch, so a check that goes to the server takes
about 0.1 s of its own.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from modlab.course import Course
from modlab.fingerprint import fingerprint
from modlab.isolation.frames import receive_frame, send_frame
from modlab.isolation.launcher import start_method
from modlab.isolation.sandbox.environment import LOADING, loading_environment

from . import notebook_kernel

INTERRUPT_GRACE_S = 10.0  # after Ctrl-C, how long the child may take to say "interrupted"
START_TIMEOUT_S = 60.0  # the server binds its socket before it loads anything
MAX_SOCKET_PATH = 107  # bytes of a Unix socket's path (Linux)
LOG = Path(".modlab") / "check-server.log"  # in the course folder: why a server did not start
# Variables that change what a loaded server would do: part of its fingerprint.
CONFIGURING = ("MODLAB_", *LOADING)
OWN = ("MODLAB_CHECK_SERVER", "MODLAB_CHECK_SERVER_IDLE_S")  # the server's own: they change nothing it loaded
# The server's settings among what its process starts with (:func:`server_environment`).
SERVER_SETTINGS = (*OWN, "MODLAB_START_METHOD")
# Set by torch itself when a process first imports torch._inductor (a notebook cell's first
# optimizer does): a kernel's check cells would otherwise never reach the terminal's server.
SET_BY_TORCH = ("TORCHINDUCTOR_CACHE_DIR",)
BOOT = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
        "from modlab.commands.serving import serve; serve(*sys.argv[2:])")

serving = False  # True in a server's child: the check runs here, not in yet another server


# -- the client: modlab check ------------------------------------------------------

def forward(argv: list[str], course: Course, grader: Path, start: bool = True) -> int | None:
    """Run ``modlab ARGV`` in the course's check server; its exit status, or
    None where no server is used (then the caller runs the command itself).

    Ctrl-C here interrupts the command there, which says so as it would here.
    A check run under a notebook kernel tells the server which kernel it is,
    and the server ends with the last such kernel (:mod:`.notebook_kernel`).

    Args:
        argv: the command line, without the program name.
        course: the course, whose folder (of ``course.yaml``) the server serves.
        grader: the exercise's public grader file, which the server loads
            once for all later checks of the exercise.
        start: start a server if none is up for this installation (``check``);
            False uses one only where it is already up (``submit``).

    Example::

        status = forward(["check", "03"], course, course.grader_file(course.exercise("03")))
    """
    if not wanted():
        return None
    address = socket_path(course.root, server_key(course))
    if address is None:
        return None
    kernel = notebook_kernel.kernel_pid()
    watched = notebook_kernel.watch(kernel) if kernel else None
    try:
        connection = connect(address, course.root, grader, watched) if start else _connected(address)
        if connection is None:
            return None
        with connection:
            request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "grader": str(grader),
                       "umask": _umask()}
            try:  # its stdin, stdout and stderr, and the kernel to watch, if any
                send_frame(connection, request, (0, 1, 2) if watched is None else (0, 1, 2, watched))
            except OSError:
                return None  # no terminal to pass (a closed stdin): the check runs here
            return _exit_status(connection)
    finally:
        if watched is not None:
            os.close(watched)


def _umask() -> int:
    """This process's umask (reading it means setting it): the server's child writes files with it."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def wanted() -> bool:
    """Whether this check goes to a server: asked for, or at a terminal, where it can be."""
    asked = os.environ.get("MODLAB_CHECK_SERVER", "")
    if serving or asked == "0" or not (asked == "1" or sys.stdout.isatty()):
        return False
    return sys.platform.startswith("linux") and start_method() == "fork" and hasattr(os, "pidfd_open")


def server_key(course: Course) -> str:
    """A digest of everything a loaded server holds, a server with another being stale:
    what its checks' grades depend on (:func:`modlab.fingerprint.fingerprint`), and
    the interpreter, path and variables it runs with."""
    ignored = OWN + SET_BY_TORCH
    configuring = sorted((k, v) for k, v in os.environ.items() if k.startswith(CONFIGURING) and k not in ignored)
    digest = hashlib.sha256(json.dumps([fingerprint(course, {"served": "check"}), sys.executable, sys.version,
                                        sys.path, configuring]).encode())
    return digest.hexdigest()[:16]


def socket_path(course_root: Path, key: str) -> Path | None:
    """Where the course's server with this fingerprint listens, in a folder of this
    user's that no one else may enter; None if there is none."""
    name = f"check-{hashlib.sha256(str(course_root.resolve()).encode()).hexdigest()[:12]}-{key}.sock"
    for runtime in (os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir()):
        base = Path(runtime or tempfile.gettempdir()) / f"modlab-{os.getuid()}"
        if len(os.fsencode(base / name)) <= MAX_SOCKET_PATH and _private(base):
            return base / name
    return None


def _private(folder: Path) -> bool:
    """Whether ``folder`` is this user's and closed to others; made so if missing."""
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & 0o077


def connect(address: Path, course_root: Path, grader: Path, kernel: int | None = None) -> socket.socket | None:
    """A connection to the server at ``address``, started first if none listens there
    and loading ``grader`` first; ``kernel``: a pidfd on the notebook kernel the
    starting check runs under, if any."""
    connection = _connected(address)
    if connection is not None:
        return connection
    import fcntl

    with open(address.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two checks at once start one server
        connection = _connected(address)
        if connection is None:
            connection = _start_server(address, course_root, grader, kernel)
    return connection


def _connected(address: Path) -> socket.socket | None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(str(address))
    except OSError:
        connection.close()
        return None
    return connection


def _start_server(address: Path, course_root: Path, grader: Path, kernel: int | None) -> socket.socket | None:
    """Start the server, and connect once it listens; None if it did not come up."""
    address.unlink(missing_ok=True)  # a server that died left its socket behind
    for stale in address.parent.glob(address.name.rsplit("-", 1)[0] + "-*.sock"):
        stale.unlink(missing_ok=True)  # this folder's servers of an earlier installation: they end
    root = course_root.resolve()
    log = _open_log(root)
    watched = () if kernel is None else (str(kernel),)  # watched from the start, even if no check came
    server = subprocess.Popen(
        [sys.executable, "-c", BOOT, json.dumps(sys.path), str(address), str(grader), *watched],
        env=server_environment(), stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
        cwd=root, pass_fds=tuple(map(int, watched)))
    log.close()
    started = time.monotonic()
    while time.monotonic() - started < START_TIMEOUT_S and server.poll() is None:
        connection = _connected(address)
        if connection is not None:
            return connection
        time.sleep(0.01)
    print(f"note: the check server did not start (see {root / LOG}); checking without it", file=sys.stderr)
    return None


def server_environment() -> dict[str, str]:
    """The environment the server's process starts with: the variables a worker keeps, those
    that configure the interpreter and what the server loads (``PYTHON*``, ``TORCH*``...), and
    the server's own settings; no other ``MODLAB_*`` variable (a CI's token) nor any other.

    Its zygote is forked from it (:func:`modlab.isolation.launcher.fork_zygote`) and keeps this
    environment's memory, so nothing in it may be a secret. Each check's child takes the
    client's whole environment, as the check would have had it.
    """
    return loading_environment(SERVER_SETTINGS)


def _open_log(root: Path):
    try:
        (root / LOG).parent.mkdir(exist_ok=True)
        return open(root / LOG, "w")
    except OSError:
        return open(os.devnull, "w")


def _exit_status(connection: socket.socket) -> int | None:
    """Wait for the server's replies, passing Ctrl-C on; the check's exit status,
    or None where the server did not take the check (then it runs here)."""
    started = False
    while True:
        try:
            reply, _ = receive_frame(connection)
        except KeyboardInterrupt:
            send_frame(connection, {"interrupt": True})
            connection.settimeout(INTERRUPT_GRACE_S)
            continue
        except TimeoutError:  # interrupted, and the check did not end in time
            return 130
        except OSError:
            reply = None
        if reply is None and not started:
            return None  # it ended (idle) before it took the check
        if reply is None:  # it died under the check: say so rather than pass silently
            print("modlab check: error: the check server ended during the check; run it again", file=sys.stderr)
            return 2
        if "unavailable" in reply:
            print(f"note: the check server cannot check ({reply['unavailable']}); checking without it",
                  file=sys.stderr)
            return None
        if "exit" in reply:
            return reply["exit"]
        started = True
