"""The zygote: a clean, preloaded parent every worker is forked from.

A forked child holds a copy of its parent's memory. Forked straight from the
grading process, a worker would inherit its command line (where the results
go), its environment (tokens), and whatever it had read before (other
students' submissions, the reference solution of the exercise being graded).
The zygote is a fresh interpreter instead, started with a scrubbed
environment and a command line that names nothing. It imports torch and the
graders once and never touches CUDA, so a worker forked from it starts in
milliseconds and knows nothing but what it is then sent.

It is also every worker's keeper:

- a child subreaper: whatever a worker starts, double-forked or ``setsid``,
  stays below the zygote, which ends it with the worker;
- as root, it forks each worker into a PID namespace of its own, whose init
  the worker is: when the worker dies, the kernel ends everything in it;
- on request it ends a worker's whole tree, reaps it, removes its private
  directory and reports the exit status.

Requests come on one socket as JSON frames (:mod:`.protocol`). A ``fork``
request carries two descriptors: the worker's end of its data connection and
the zygote's end of a control socket, on which the grading process later
says ``stop`` and the zygote answers ``{"exitcode": n}`` once the worker is
gone.
"""
from __future__ import annotations

import gc
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
from multiprocessing.connection import Connection

from . import sandbox
from .protocol import receive_frame, send_frame

START_TIMEOUT = 300.0  # importing torch on a cold GPU runner takes a while
BOOT = ("import json, socket, sys; s = socket.socket(fileno={fd}); "
        "sys.path[:] = json.loads(s.makefile('rb', buffering=0).readline()); "
        "from modlab.runner.zygote import main; main(s)")


class ZygoteFailed(RuntimeError):
    """The zygote could not be started or stopped answering."""


# -- the grading process's side --------------------------------------------------

class Zygote:
    """The grading process's handle on its zygote; see :func:`zygote`."""

    def __init__(self):
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-c", BOOT.format(fd=theirs.fileno())],
            env=sandbox.clean_environment(), pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
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

    def fork(self, grader_files: list[str], limits: dict | None) -> tuple[Connection, "WorkerHandle"]:
        """A new worker: its data connection and its handle.

        Args:
            grader_files: graders the worker needs (preloaded in the zygote).
            limits: ``memory_mib`` and ``max_processes`` for a confined
                worker; None for the trusted oracle, which is not confined.
        """
        data_ours, data_theirs = socket.socketpair()
        control_ours, control_theirs = socket.socketpair()
        request = {"op": "fork", "graders": grader_files, "limits": limits}
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

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None


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

    def stop(self, timeout: float = 10.0) -> int | None:
        """End the worker and everything it started; return once they are gone."""
        if self.owner != os.getpid():
            self.control.close()  # a copy inherited across fork: the worker is not ours
            return None
        if self.control.fileno() >= 0:
            try:
                self.control.sendall(b"stop")
            except OSError:
                pass  # already reported and closed its end
        return self.exitcode(timeout)


_zygote: Zygote | None = None
_zygote_lock = threading.Lock()


def zygote() -> Zygote:
    """This process's zygote, started on first use and again if it died."""
    global _zygote
    with _zygote_lock:
        if _zygote is None or not _zygote.alive():
            _zygote = Zygote()
        return _zygote


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


# -- the zygote's side ---------------------------------------------------------

class Kept:
    """One worker the zygote keeps."""

    def __init__(self, pid: int, control: socket.socket, workdir: str | None):
        self.pid, self.control, self.workdir = pid, control, workdir
        self.stopping = False


def main(sock: socket.socket) -> None:
    """The zygote's loop: fork workers on request, stop them, reap them."""
    import torch  # noqa: F401  (preloaded: every worker would import it)

    from modlab.runner import worker

    if sandbox.LINUX:
        sandbox.become_subreaper()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    keeper = Keeper(worker.serve)
    send_frame(sock, {"ready": True})
    try:
        while True:
            readable, _, _ = select.select([sock, wake_read, *keeper.controls()], [], [])
            if wake_read in readable:
                os.read(wake_read, 4096)
                keeper.reap()
            if sock in readable:
                request, fds = receive_frame(sock, max_fds=2)
                if request is None:
                    return
                keeper.fork(request, fds, sock)
            for control in readable:
                if isinstance(control, socket.socket) and control is not sock:
                    keeper.stop(control)
    finally:
        keeper.stop_all()


class Keeper:
    """Forks, stops and reaps the workers of one zygote."""

    def __init__(self, serve):
        self.serve = serve
        self.kept: dict[int, Kept] = {}
        self.count = 0
        self.pid_namespaces = sandbox.LINUX and os.geteuid() == 0
        self.own_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY) if self.pid_namespaces else -1

    def controls(self) -> list[socket.socket]:
        return [kept.control for kept in self.kept.values() if not kept.stopping]

    def fork(self, request: dict, fds: list[int], sock: socket.socket) -> None:
        data_fd, control_fd = fds
        control = socket.socket(fileno=control_fd)
        _preload(request.get("graders") or [])
        sandbox.prepare()  # made here, not in every worker
        gc.freeze()  # the worker's collector leaves the zygote's objects alone: no copy-on-write
        limits = request.get("limits")
        self.count += 1
        uid = workdir = None
        if limits is not None:
            uid = sandbox.worker_uid(os.getpid() * 1000 + self.count)
            workdir = sandbox.make_workdir(uid)
        in_namespace = limits is not None and self.pid_namespaces
        pid = -1
        try:
            if in_namespace:
                sandbox.unshare(sandbox.CLONE_NEWPID)
            pid = os.fork()
        except OSError as exc:
            control.close()
            os.close(data_fd)
            send_frame(sock, {"error": f"fork: {exc}"})
            return
        finally:
            if in_namespace and pid != 0:
                sandbox.setns(self.own_namespace, sandbox.CLONE_NEWPID)
            if pid == -1 and workdir:
                _remove(workdir)
        if pid == 0:
            self._become_worker(data_fd, limits, workdir, uid)
        os.close(data_fd)
        self.kept[pid] = Kept(pid, control, workdir)
        send_frame(sock, {"pid": pid})

    def _become_worker(self, data_fd: int, limits: dict | None, workdir: str | None, uid: int | None) -> None:
        code = 0
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            sandbox.quiet_descriptors(data_fd)
            policy = sandbox.Policy(workdir=workdir, uid=uid, **limits) if limits is not None else None
            self.serve(Connection(data_fd), policy)
        except BaseException:
            code = 70
        finally:
            os._exit(code)

    def stop(self, control: socket.socket) -> None:
        """The grading process said stop (or went away): end that worker's tree.

        The report follows when SIGCHLD says the worker is gone.
        """
        for kept in self.kept.values():
            if kept.control is control:
                kept.stopping = True
                _kill_tree(kept.pid)
                self.reap()
                return

    def reap(self) -> None:
        """Collect ended children; report each worker's end; end its leftovers."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            kept = self.kept.pop(pid, None)
            if kept is not None:
                if not self.pid_namespaces:  # in a namespace, the kernel has ended the rest
                    self._end_orphans()
                self._report(kept, os.waitstatus_to_exitcode(status))  # only once all is gone

    def _report(self, kept: Kept, code: int) -> None:
        """Remove the worker's directory, then say how it ended: once the
        grading process hears it, nothing of the worker is left."""
        if kept.workdir:
            _remove(kept.workdir)
        try:
            send_frame(kept.control, {"exitcode": code})
        except OSError:
            pass  # the grading process stopped listening
        kept.control.close()

    def _end_orphans(self) -> None:
        """Kill and reap every child that is not a kept worker: a descendant
        that escaped its worker by double-forking came to us as its subreaper."""
        while True:
            orphans = [pid for pid in _children(os.getpid()) if pid not in self.kept]
            if not orphans:
                return
            for pid in orphans:
                _kill(pid)
            for pid in orphans:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass

    def stop_all(self) -> None:
        for pid in list(self.kept):
            _kill_tree(pid)
        while self.kept:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            kept = self.kept.pop(pid, None)
            if kept is not None:
                self._report(kept, os.waitstatus_to_exitcode(status))
        self._end_orphans()


def _preload(grader_files: list[str]) -> None:
    """Import graders once in the zygote, so that no worker pays for them."""
    from modlab.grading.loader import import_grader

    for path in grader_files:
        try:
            import_grader(path)
        except Exception:  # the worker imports it again and reports the error
            pass


def _kill_tree(pid: int) -> None:
    """SIGKILL a worker, its process group, and (in its PID namespace) all it started.

    Descendants outside a namespace come to the zygote when their parents
    die; :meth:`Keeper._end_orphans` ends them once the worker is reaped.
    """
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    _kill(pid)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _children(parent: int) -> list[int]:
    """Processes whose parent is ``parent`` (by /proc; none where /proc is absent)."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            found.append(int(entry))
    return found


def _remove(path: str) -> None:
    """Remove a worker's directory, whatever modes it left on what it wrote."""
    def grant(function, target, _):
        os.chmod(os.path.dirname(target), 0o700)
        os.chmod(target, 0o700)
        function(target)

    handler = {"onexc": grant} if sys.version_info >= (3, 12) else {"onerror": grant}
    try:
        shutil.rmtree(path, **handler)
    except OSError:
        pass
