"""The launcher: the grading process's side of the zygote, which starts it and asks it for workers.

A forked child holds a copy of its parent's memory. Forked straight from the
grading process, a worker would inherit its command line (where the results
go), its environment (tokens), and whatever it had read before (other
students' submissions, the reference solution of the exercise being graded).
The zygote (:mod:`.zygote`) is a fresh interpreter instead, started here with
a scrubbed environment and a command line that names nothing. It imports
torch and the graders once and never touches CUDA, so a worker forked from it
starts in milliseconds and knows nothing but what it is then sent. (A process
that has read none of those things yet forks its zygote from itself instead,
and the two share one torch: :func:`fork_zygote`. A check server does so, and a
grading command relaunched as such a process: :mod:`.relaunch`.)

The zygote is also every worker's keeper:

- a child subreaper: whatever a worker starts, double-forked or ``setsid``,
  stays below the zygote, which ends it with the worker;
- as root, it forks each worker into a PID namespace of its own, whose init
  the worker is: when the worker dies, the kernel ends everything in it;
- on request it ends a worker's whole tree, reaps it, removes its private
  directory and reports the exit status.

Requests come on one socket as JSON frames (:mod:`.frames`). A ``fork``
request carries two descriptors: the worker's end of its data connection and
the zygote's end of a control socket, on which the grading process later
says ``stop`` and the zygote answers ``{"exitcode": n}`` once the worker is
gone.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import threading
from multiprocessing.connection import Connection

from .frames import receive_frame, send_frame
from .sandbox.environment import clean_environment

START_TIMEOUT = 300.0  # importing torch on a cold GPU runner takes a while
BOOT = ("import json, socket, sys; s = socket.socket(fileno={fd}); "
        "sys.path[:] = json.loads(s.makefile('rb', buffering=0).readline()); "
        "from modlab.isolation.zygote import main; main(s)")


def start_method() -> str:
    """``fork`` where the platform has it, unless MODLAB_START_METHOD says otherwise.

    Grading processes are started this way; workers come from the zygote
    unless this says ``spawn``.
    """
    wanted = os.environ.get("MODLAB_START_METHOD")
    if wanted:
        return wanted
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


class ZygoteFailed(RuntimeError):
    """The zygote could not be started or stopped answering."""


# -- the grading process's side --------------------------------------------------

class Zygote:
    """The grading process's handle on its zygote; see :func:`zygote`."""

    def __init__(self, forked: bool = False):
        """Start the zygote: a fresh interpreter, or with ``forked`` a fork of this
        process (:func:`fork_zygote` says when that may be)."""
        ours, theirs = socket.socketpair()
        if forked:
            from . import zygote as zygote_process

            self.process = _Forked(zygote_process.fork_here(theirs))
        else:
            self.process = subprocess.Popen(
                [sys.executable, "-c", BOOT.format(fd=theirs.fileno())],
                env=clean_environment(), pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, start_new_session=True, cwd="/")
        theirs.close()
        self.socket, self.lock, self.owner = ours, threading.Lock(), os.getpid()
        ours.sendall(json.dumps([os.path.abspath(p) for p in sys.path]).encode() + b"\n")
        ours.settimeout(START_TIMEOUT)
        try:
            ready, _ = receive_frame(ours)
        except OSError:
            ready = None
        ours.settimeout(None)
        if not ready:
            self.process.kill()
            raise ZygoteFailed(f"the worker zygote did not start (exit code {self.process.wait()})")

    def fork(self, grader_files: list[str], limits: dict | None,
             oracle: list | None = None) -> tuple[Connection, "WorkerHandle"]:
        """A new worker: its data connection and its handle.

        Args:
            grader_files: graders the worker needs (preloaded in the zygote).
            limits: ``memory_mib`` and ``max_processes`` for a confined
                worker; None for the trusted oracle, which is not confined.
            oracle: the course's oracle (:meth:`modlab.course.Oracle.spec`), whose
                tripwires the zygote installs before it forks.
        """
        data_ours, data_theirs = socket.socketpair()
        control_ours, control_theirs = socket.socketpair()
        request = {"op": "fork", "graders": grader_files, "limits": limits, "oracle": oracle}
        try:
            with self.lock:
                send_frame(self.socket, request, (data_theirs.fileno(), control_theirs.fileno()))
                reply, _ = receive_frame(self.socket)
        except OSError as exc:
            raise ZygoteFailed(f"the worker zygote stopped answering: {exc}") from None
        finally:
            data_theirs.close()
            control_theirs.close()
        if not reply or "pid" not in reply:
            raise ZygoteFailed(f"the worker zygote could not fork a worker: {reply}")
        return Connection(data_ours.detach()), WorkerHandle(reply["pid"], control_ours)

    def preload(self, grader_files: list[str], oracle: list | None = None) -> None:
        """Have the zygote import these graders (and install the oracle's tripwires) now,
        without waiting for it: the first worker asked for then finds them ready.

        Raises:
            ZygoteFailed: the zygote stopped answering.
        """
        try:
            with self.lock:
                send_frame(self.socket, {"op": "preload", "graders": grader_files, "oracle": oracle})
        except OSError as exc:
            raise ZygoteFailed(f"the worker zygote stopped answering: {exc}") from None

    def share(self) -> socket.socket:
        """A socket of its own on this zygote, for a grading process about to be forked:
        in it, :func:`adopt` makes the zygote that process's too, so a class graded
        by several processes pays for one zygote, not one each.

        Raises:
            ZygoteFailed: the zygote did not answer.
        """
        try:
            with self.lock:
                send_frame(self.socket, {"op": "client"})
                reply, fds = receive_frame(self.socket, max_fds=1)
        except OSError as exc:
            raise ZygoteFailed(f"the worker zygote stopped answering: {exc}") from None
        if not reply or not fds:
            raise ZygoteFailed(f"the worker zygote could not share itself: {reply}")
        return socket.socket(fileno=fds[0])

    def alive(self) -> bool:
        if self.process is None:  # adopted: alive as long as it answers
            return self.owner == os.getpid() and self.socket.fileno() >= 0
        return self.owner == os.getpid() and self.process.poll() is None

    @classmethod
    def adopted(cls, shared: socket.socket) -> "Zygote":
        """The handle, in a forked grading process, on a zygote its parent shares (:meth:`share`)."""
        handle = cls.__new__(cls)
        handle.process, handle.socket, handle.lock, handle.owner = None, shared, threading.Lock(), os.getpid()
        return handle


class _Forked:
    """A zygote forked from this process, seen as :class:`subprocess.Popen` sees one it started."""

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode


class WorkerHandle:
    """A forked worker seen from the grading process: stop it, learn how it ended."""

    def __init__(self, pid: int, control: socket.socket):
        self.pid, self.control, self.owner = pid, control, os.getpid()
        self.code: int | None = None

    def exitcode(self, timeout: float) -> int | None:
        """How the worker ended (negative: killed by that signal); None if unknown in time."""
        if self.code is None and self.control.fileno() >= 0:
            self.control.settimeout(timeout)
            try:
                report, _ = receive_frame(self.control)
            except OSError:
                report = None
            self.code = report.get("exitcode") if report else None
            self.control.close()
        return self.code

    def stop(self, timeout: float = 10.0, wait: bool = True) -> int | None:
        """End the worker and everything it started; return once they are gone,
        or at once with ``wait=False`` (:meth:`exitcode` waits later)."""
        if self.owner != os.getpid():
            self.control.close()  # a copy inherited across fork: the worker is not ours
            return None
        if self.control.fileno() >= 0:
            try:
                self.control.sendall(b"stop")
            except OSError:
                pass  # already reported and closed its end
        return self.exitcode(timeout) if wait else None


_zygote: Zygote | None = None
_zygote_lock = threading.Lock()


def zygote() -> Zygote:
    """This process's zygote, started on first use and again if it died."""
    global _zygote
    with _zygote_lock:
        if _zygote is None or not _zygote.alive():
            _zygote = Zygote()
        return _zygote


def fork_zygote() -> None:
    """Make this process's zygote a fork of itself, now: for a check server and a relaunched
    grading command (:mod:`.relaunch`) alone, each before it has read anything.

    A check server imports torch, and so does its zygote: two interpreters of
    some 170 MiB each for every student who has a notebook open. Forked from the
    server before the server has read anything (a check, a grader, the student's
    files, and before it starts a thread), the zygote holds what a fresh one
    holds: torch and the engine's modules, the kept variables of the
    environment, no descriptor but its socket. The two then share torch's
    pages. Beyond a fresh one, it keeps the server's command line (the paths
    of a socket and of a public grader) and the memory of the environment the
    server started with, which holds no credential
    (:func:`.sandbox.environment.loading_environment`). A grading process that
    has read what a submission must not (where results go, tokens, the
    reference, other students' work) starts a fresh interpreter instead
    (:class:`Zygote`).

    Where workers are spawned there is no zygote to fork.

    Raises:
        ZygoteFailed: the forked zygote did not start.
    """
    global _zygote
    if start_method() != "fork":
        return
    with _zygote_lock:
        _zygote = Zygote(forked=True)


def start_soon(grader_files: list[str] = (), oracle: list | None = None) -> None:
    """Start this process's zygote in the background, and have it import these graders
    (and install the tripwires of the course's ``oracle``).

    Started at once, it loads torch and the graders while this process loads
    its own; the first worker would otherwise start it, and wait for both.
    Where workers are spawned there is no zygote to start.
    """
    def start() -> None:
        try:
            zygote().preload(list(grader_files), oracle)
        except ZygoteFailed:
            pass  # the first worker starts it again, and says why it cannot

    if start_method() == "fork":
        threading.Thread(target=start, name="modlab-zygote", daemon=True).start()


def adopt(shared: socket.socket) -> None:
    """In a grading process forked from one that shares its zygote: use that zygote."""
    global _zygote
    with _zygote_lock:
        _zygote = Zygote.adopted(shared)


def _forget_after_fork() -> None:
    """A forked copy of the grading process starts its own zygote when it needs one,
    and drops its copy of the parent's socket, so the parent's zygote still sees
    EOF when the parent ends."""
    global _zygote
    if _zygote is not None:
        _zygote.socket.close()
    _zygote = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
