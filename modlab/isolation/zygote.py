"""The zygote: a clean, preloaded parent that forks workers on request, keeps them,
and ends them with all they started.

Runs in the zygote process (see :mod:`.launcher` for why there is one), started
with ``python -c`` by the grading process, which never imports this module; a
check server or a relaunched grading command (:mod:`.relaunch`), each holding
nothing yet that a worker must not read, forks its own instead (:func:`fork_here`).
Before each fork it preloads the graders a worker needs, what Landlock lets
a worker reach and the tripwires on the course's oracle, so that no worker pays for
them, and keeps its memory in huge pages (:func:`_settle`), so that a fork
and an exit cost little; the forked child becomes a worker
(:func:`.worker.serve`) at once.
"""
from __future__ import annotations

import ctypes
import gc
import os
import select
import shutil
import signal
import socket
import sys
import traceback
from multiprocessing.connection import Connection

from .frames import receive_frame, send_frame
from .sandbox import Policy, make_workdir
from .sandbox.environment import clean_environment, quiet_descriptors
from .sandbox.landlock import prepare
from .sandbox.libc import LINUX, libc
from .sandbox.namespaces import CLONE_NEWPID, become_subreaper, setns, unshare
from .sandbox.user import worker_uid
from .tripwires import install_tripwires


class Kept:
    """One worker the zygote keeps, and the grading process (client) it was forked for."""

    def __init__(self, pid: int, control: socket.socket, workdir: str | None, client: socket.socket):
        self.pid, self.control, self.workdir, self.client = pid, control, workdir, client
        self.stopping = False


def main(sock: socket.socket) -> None:
    """The zygote's loop: fork workers on request, stop them, reap them."""
    import torch  # preloaded: every worker would import it

    # Workers run side by side, one per world and grading process, on tensors
    # of a few hundred elements: torch's own threads would contend for the same
    # cores and spin more than they compute (the capstone's worker: 1.06 s of
    # CPU with them, 0.41 s without). Both worlds' workers come from here, so
    # torch.nn and the submission compute alike.
    torch.set_num_threads(1)

    from . import worker

    _settle()  # before any worker shares its pages, while the grading process starts too
    if LINUX:
        become_subreaper()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    keeper = Keeper(worker.serve)
    clients = [sock]  # the grading process that started the zygote, then any it shared it with
    send_frame(sock, {"ready": True})
    try:
        while True:
            readable, _, _ = select.select([*clients, wake_read, *keeper.controls()], [], [])
            if wake_read in readable:
                os.read(wake_read, 4096)
                keeper.reap()
            for client in [c for c in clients if c in readable]:
                request, fds = receive_frame(client, max_fds=2)
                if request is None:  # a grading process is gone: its workers end, the others' go on
                    clients.remove(client)
                    keeper.stop_client(client)
                    if not clients:
                        return
                elif request.get("op") == "client":
                    clients.append(_new_client(client))
                elif request.get("op") == "preload":  # no answer: the asker goes on meanwhile
                    keeper.preload(request.get("graders") or [], request.get("oracle"))
                else:
                    keeper.fork(request, fds, client)
            for control in readable:
                if isinstance(control, socket.socket) and control not in clients:
                    keeper.stop(control)
    finally:
        keeper.stop_all()


PR_SET_NAME = 15
FORKED_NAME = b"modlab-zygote"  # what ps and top show for a forked zygote (its comm)


def fork_here(sock: socket.socket) -> int:
    """Fork this process into a zygote that answers on ``sock``; the child's pid.

    For :func:`.launcher.fork_zygote` alone, in a process that has read
    nothing yet. The child is set up as the launcher starts a fresh zygote (a
    session of its own, in ``/``, stdin and stdout on /dev/null, no descriptor
    but ``sock`` and stderr, the kept variables of the environment), is named
    ``modlab-zygote``, reads the path a fresh one reads, and runs :func:`main`.
    torch is imported, the memory settled and the objects frozen first, so the
    two processes share torch's pages, in huge pages, instead of holding one
    each.
    """
    import torch  # noqa: F401  (what main imports first: once, for both)

    global _settled
    _settle()
    gc.freeze()  # what both hold is walked by neither's collector, so neither copies its pages
    environment = clean_environment()
    pid = os.fork()
    if pid:
        return pid
    _settled = -1  # settling again would copy the pages this process shares with its forker
    code = 70
    try:
        libc.prctl(PR_SET_NAME, ctypes.c_char_p(FORKED_NAME), 0, 0, 0)  # its command line is the forker's
        os.setsid()
        os.chdir("/")
        quiet_descriptors(sock.fileno(), streams=(0, 1))
        os.environ.clear()
        os.environ.update(environment)
        sock.makefile("rb", buffering=0).readline()  # the grading process's path: this process's already
        main(sock)
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)  # never the forking process's exit handlers


def _new_client(asking: socket.socket) -> socket.socket:
    """A socket of its own for a grading process the asking one forks: the
    zygote then forks workers for both, and each process's workers end with it."""
    ours, theirs = socket.socketpair()
    try:
        send_frame(asking, {"client": True}, (theirs.fileno(),))
    finally:
        theirs.close()
    return ours


class Keeper:
    """Forks, stops and reaps the workers of one zygote."""

    def __init__(self, serve):
        self.serve = serve
        self.kept: dict[int, Kept] = {}
        self.count = 0
        self.pid_namespaces = LINUX and os.geteuid() == 0
        self.own_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY) if self.pid_namespaces else -1

    def controls(self) -> list[socket.socket]:
        return [kept.control for kept in self.kept.values() if not kept.stopping]

    def preload(self, grader_files: list[str], oracle: list | None = None) -> None:
        """Make ready what workers of these graders need, before the first is asked for."""
        _preload(grader_files)
        prepare()  # made here, not in every worker
        if oracle:
            install_tripwires(oracle)  # here, not in every worker; the oracle's removes them
        if not self.kept:  # with a worker alive, its pages would be copied, not moved
            _settle()
        gc.freeze()  # the worker's collector leaves the zygote's objects alone: no copy-on-write

    def fork(self, request: dict, fds: list[int], sock: socket.socket) -> None:
        data_fd, control_fd = fds
        control = socket.socket(fileno=control_fd)
        self.preload(request.get("graders") or [], request.get("oracle"))
        limits = request.get("limits")
        self.count += 1
        # Every worker has a folder, which this zygote removes once the worker is
        # gone: a worker ends by os._exit or a kill, so it could not remove its own.
        uid = worker_uid(os.getpid() * 1000 + self.count) if limits is not None else None
        workdir = make_workdir(uid)
        in_namespace = limits is not None and self.pid_namespaces
        pid = -1
        try:
            if in_namespace:
                unshare(CLONE_NEWPID)
            pid = os.fork()
        except OSError as exc:
            control.close()
            os.close(data_fd)
            send_frame(sock, {"error": f"fork: {exc}"})
            return
        finally:
            if in_namespace and pid != 0:
                setns(self.own_namespace, CLONE_NEWPID)
            if pid == -1 and workdir:
                _remove(workdir)
        if pid == 0:
            self._become_worker(data_fd, limits, workdir, uid)
        os.close(data_fd)
        self.kept[pid] = Kept(pid, control, workdir, sock)
        send_frame(sock, {"pid": pid})

    def _become_worker(self, data_fd: int, limits: dict | None, workdir: str, uid: int | None) -> None:
        code = 0
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            quiet_descriptors(data_fd)
            policy = Policy(workdir=workdir, uid=uid, **limits) if limits is not None else None
            self.serve(Connection(data_fd), policy, workdir=workdir)
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

    def stop_client(self, client: socket.socket) -> None:
        """End every worker forked for a grading process that is gone."""
        for kept in list(self.kept.values()):
            if kept.client is client and not kept.stopping:
                self.stop(kept.control)

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


MADV_COLLAPSE = 25  # Linux 6.1
HUGE_PAGE = 2 << 20
_settled = 0  # how many modules were loaded when the memory was last settled; -1: never again


def _settle() -> None:
    """Move the zygote's private memory into huge pages (2 MiB), where the kernel makes them.

    A fork copies the page table entry of each of the zygote's pages (some
    56,000 of 4 KiB for the 220 MB torch and the graders take) and the
    worker's exit clears them all again: that was about a third of a
    worker's fixed cost (35-43 ms of CPU to start, load and stop one; 20-30
    ms in huge pages). Of a huge page a fork copies one entry; a page a worker
    writes to is still copied alone (the kernel splits the huge page first),
    so workers share as much of the zygote as before.

    Settling copies the memory (a few tenths of a second for 220 MB), so it
    is done once torch is loaded, and again at a fork after a preload only if
    no worker is alive: the pages a worker shares would be copied for it, not
    moved (:meth:`Keeper.fork`). Where the kernel makes no huge pages (before
    Linux 6.1, or with transparent huge pages off) the calls fail and nothing
    changes.
    """
    global _settled
    if not LINUX or _settled in (len(sys.modules), -1):
        return
    _settled = len(sys.modules)
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            private = fields[1].startswith("rw") and fields[1].endswith("p")
            if private and (len(fields) < 6 or fields[5] == "[heap]"):  # anonymous memory, no file's
                low, high = (int(end, 16) for end in fields[0].split("-"))
                low, high = -(-low // HUGE_PAGE) * HUGE_PAGE, high // HUGE_PAGE * HUGE_PAGE
                if high > low:
                    madvise(low, high - low, MADV_COLLAPSE)  # fails where none can be made: nothing lost


def _preload(grader_files: list[str]) -> None:
    """Import graders once in the zygote, so that no worker pays for them."""
    from modlab.grading.loader import import_grader_for_workers

    for path in grader_files:
        try:
            import_grader_for_workers(path)
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
