"""The check server's own process: it loads once, then forks a child per check.

:mod:`.check_server` is the client's side and says why a server exists. The
server listens on its socket, loads torch, forks the workers' zygote from
itself, loads the engine and the first check's grader (the zygote loads that
grader too), and answers each check in a child that
takes the client's terminal, folder and environment and runs the kit's own
program, exactly as the client would have. It ends when no one needs it
(:class:`Users`). The student's code never runs here: as in every check, it
runs in a worker forked from the zygote.
"""
from __future__ import annotations

import gc
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback

from modlab.isolation.frames import ProtocolError, receive_frame, send_frame
from modlab.isolation.sandbox.libc import libc

from . import check_server, notebook_kernel
from .check_server import INTERRUPT_GRACE_S

IDLE_S = 600.0  # a server with no check for this long ends
PR_SET_PDEATHSIG = 1


def serve(address: str, grader: str, kernel: str = "") -> None:
    """The server's life: listen at ``address``, load, answer checks until no one
    needs it (:class:`Users`): idle for ``MODLAB_CHECK_SERVER_IDLE_S`` seconds
    (default ``IDLE_S``), or every notebook kernel it served gone.

    Args:
        address: the socket's path.
        grader: the grader file of the check that started the server, loaded
            with the rest (and in the zygote) before that check is answered.
        kernel: a pidfd (its number) on the notebook kernel of the check that
            started this server; empty where that check ran at a terminal.
    """
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(16)
    _fork_zygote()
    users = Users(float(os.environ.get("MODLAB_CHECK_SERVER_IDLE_S") or IDLE_S))
    server = Server(listener, address, users)
    _load(grader)
    # Every check's child is forked from here: frozen, what was loaded is walked by
    # no collector, neither the server's nor a child's (whose pages then stay shared).
    gc.freeze()
    users.came(int(kernel) if kernel else None)  # the starting check's user; the idle time counts from here
    try:
        server.run()
    finally:
        if server.listening():
            os.unlink(address)


def _fork_zygote() -> None:
    """The workers' zygote, forked from here before anything is read: one torch for both
    (:func:`modlab.isolation.launcher.fork_zygote`); where that fails, :func:`_load`
    starts a fresh one."""
    from modlab.isolation.launcher import ZygoteFailed, fork_zygote

    try:
        fork_zygote()
    except ZygoteFailed:
        traceback.print_exc()


def _load(grader: str) -> None:
    """Load what every check needs, and the first check's grader, while the workers'
    zygote starts and loads that grader too; wait for both."""
    from modlab.isolation.launcher import start_soon, zygote

    start_soon([grader])
    from modlab.commands import program  # noqa: F401  (what the child runs)
    from modlab.engine import grade_exercise  # noqa: F401  (torch, Hypothesis, the graders' framework)
    from modlab.formats.feedback import check_report  # noqa: F401

    _load_grader(grader)
    zygote()


def _load_grader(path: str) -> None:
    """Import a grader here, once, for every later check's child to inherit."""
    from modlab.grading.loader import import_grader

    try:
        import_grader(path)
    except Exception:
        pass  # the check's child loads it again and reports the error


class Users:
    """Who still needs a server: the checks at a terminal for ``idle`` seconds after
    the last, and each notebook kernel it served for as long as that kernel runs;
    no one for ``idle`` seconds after the last check of all.

    Checks' threads report who came (:meth:`came`); the server's loop alone
    closes the kernels' pidfds (:meth:`settle`), so none is closed under its wait.
    """

    def __init__(self, idle: float):
        self.idle, self.lock = idle, threading.Lock()
        self.last = time.monotonic()  # when the last check came or ended
        self.terminal = -idle  # when the last check from a terminal (or a script) came or ended
        self.kernels: dict[int, int] = {}  # pid: pidfd, each notebook kernel served
        self.arrived: list[int] = []  # kernels' pidfds not yet settled

    def came(self, kernel: int | None) -> None:
        """A check came, from the notebook kernel this pidfd names, or from a terminal (None).
        The pidfd is this object's to close."""
        with self.lock:
            self.last = time.monotonic()
            if kernel is None:
                self.terminal = self.last
            else:
                self.arrived.append(kernel)

    def ended(self, terminal: bool) -> None:
        """A check ended, from a terminal or not: the idle time counts from now."""
        with self.lock:
            self.last = time.monotonic()
            if terminal:
                self.terminal = self.last

    def settle(self) -> list[int]:
        """Take in the kernels that came, forget those gone; the pidfds to wait on."""
        with self.lock:
            arrived, self.arrived = self.arrived, []
        for pidfd in arrived:
            pid = notebook_kernel.watched_pid(pidfd)
            if pid is None or pid in self.kernels:
                os.close(pidfd)  # ended already, or watched already
            else:
                self.kernels[pid] = pidfd
        for pid, pidfd in list(self.kernels.items()):
            if notebook_kernel.ended(pidfd):
                os.close(self.kernels.pop(pid))
        return list(self.kernels.values())

    def needed(self) -> bool:
        """Whether anyone still needs the server (call :meth:`settle` first)."""
        now = time.monotonic()
        with self.lock:
            recent = now - self.last < self.idle
            return recent and (bool(self.kernels or self.arrived) or now - self.terminal < self.idle)


class Server:
    """Accepts checks and runs each in a forked child, one thread per check."""

    def __init__(self, listener: socket.socket, address: str, users: Users):
        self.listener, self.address, self.users = listener, address, users
        self.bound = os.stat(address).st_ino
        self.fork_lock = threading.Lock()  # forks one at a time, never while a thread loads a grader
        self.passed: set[int] = set()  # every running check's terminal: a child closes the others'
        self.checks: list[threading.Thread] = []

    def run(self) -> None:
        """Answer checks until no one needs the server (:class:`Users`), or until the
        socket is removed (a newer installation's server took the folder's place);
        a check still running is let finish. A kernel that ends wakes the wait."""
        self.listener.setblocking(False)
        while True:
            kernels = self.users.settle()
            if not (self._running() or (self.listening() and self.users.needed())):
                return
            if self.listener not in select.select([self.listener, *kernels], [], [], 1.0)[0]:
                continue
            try:
                connection, _ = self.listener.accept()
            except BlockingIOError:  # the client gave up meanwhile
                continue
            connection.setblocking(True)
            check = threading.Thread(target=self.answer, args=(connection,), daemon=True)
            self.checks.append(check)
            check.start()

    def _running(self) -> bool:
        self.checks = [check for check in self.checks if check.is_alive()]
        return bool(self.checks)

    def listening(self) -> bool:
        """Whether the socket file is still this server's."""
        try:
            return os.stat(self.address).st_ino == self.bound
        except OSError:
            return False

    def answer(self, connection: socket.socket) -> None:
        """Run one check: fork its child, pass Ctrl-C on, reply with its exit status."""
        terminal = False
        try:
            with connection:
                request, fds = receive_frame(connection, max_fds=4)
                terminal = bool(request) and len(fds) == 3
                if request:
                    self.users.came(fds.pop() if len(fds) == 4 else None)  # a pidfd on the client's kernel
                try:
                    if request and len(fds) == 3:
                        send_frame(connection, self._run(request, fds, connection))
                finally:
                    with self.fork_lock:
                        self.passed.difference_update(fds)
                    for fd in fds:
                        os.close(fd)
        except OSError:
            pass  # the client went away: its child was interrupted
        except Exception:  # a request this server cannot read: the client checks by itself
            traceback.print_exc()
        finally:
            self.users.ended(terminal)

    def _run(self, request: dict, fds: list[int], connection: socket.socket) -> dict:
        """The reply: the check's exit status, or why this server cannot run it."""
        from modlab.isolation.launcher import ZygoteFailed, zygote

        with self.fork_lock:
            _load_grader(request["grader"])
            try:
                shared = zygote().share()
            except ZygoteFailed as failed:
                return {"unavailable": str(failed)}
            self.passed.update(fds)
            pid = os.fork()
            if pid == 0:
                for fd in self.passed.difference(fds):  # else another check's output would wait for this one
                    os.close(fd)
                _child(request, fds, shared, self.listener)
        shared.close()
        try:
            send_frame(connection, {"started": pid})
        except OSError:
            pass  # the client is gone: _wait_for reads its EOF and interrupts the check
        return {"exit": _wait_for(pid, connection)}


def _wait_for(pid: int, connection: socket.socket) -> int:
    """The child's exit status; a Ctrl-C (or the client gone) interrupts it."""
    child, readable = _Child(pid), os.pidfd_open(pid)
    watched = [readable, connection]
    try:
        while readable not in select.select(watched, [], [])[0]:
            try:
                receive_frame(connection)  # Ctrl-C, or EOF: the client is gone
            except (OSError, ProtocolError):
                pass  # gone as well
            child.signal(signal.SIGINT)
            # It has a few seconds to say "interrupted", as a check here would; then it ends.
            ending = threading.Timer(INTERRUPT_GRACE_S, child.signal, (signal.SIGKILL,))
            ending.daemon = True
            ending.start()
            watched = [readable]
        return child.reap()
    finally:
        os.close(readable)


class _Child:
    """A check's child, signalled only until it is reaped: its pid may then name another process."""

    def __init__(self, pid: int):
        self.pid, self.lock, self.reaped = pid, threading.Lock(), False

    def signal(self, number: int) -> None:
        with self.lock:
            if not self.reaped:
                os.kill(self.pid, number)

    def reap(self) -> int:
        with self.lock:
            self.reaped = True
            return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


def _child(request: dict, fds: list[int], shared: socket.socket, listener: socket.socket) -> None:
    """In the forked child: become the client's check, run it, exit with its status. Never returns."""
    code = 1
    try:
        listener.close()
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a server killed under it: nobody waits for this check
        # Ctrl-C reaches the child as the server's SIGINT, which a server started
        # from a shell's background job would otherwise inherit as ignored.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in zip((0, 1, 2), fds):
            os.dup2(fd, target)
        encoding = sys.stdout.encoding  # the server's, taken from the client's locale when it started
        sys.stdin = open(0, closefd=False, encoding=encoding)
        sys.stdout = _writer(1, encoding, "strict", line_buffered=os.isatty(1))
        sys.stderr = _writer(2, encoding, "backslashreplace", line_buffered=True)
        os.chdir(request["cwd"])
        os.umask(request["umask"])  # a submit's archive is the student's, as if written there
        os.environ.clear()
        os.environ.update(request["env"])
        from modlab import kit
        from modlab.commands import program
        from modlab.isolation.launcher import adopt

        adopt(shared)
        check_server.serving = True  # its commands run here, never in yet another server
        code = program.run(request["argv"], list(kit.COMMANDS), "")
    except SystemExit as exit_:  # argparse: --help, a bad option
        code = exit_.code if isinstance(exit_.code, int) else 2
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)  # never the server's exit handlers, which are not this process's


def _writer(fd: int, encoding: str, errors: str, line_buffered: bool):
    """A text stream on ``fd``, as Python makes stdout (line-buffered at a terminal) and stderr."""
    return open(fd, "w", buffering=1 if line_buffered else -1, closefd=False, encoding=encoding, errors=errors)
