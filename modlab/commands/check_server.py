"""The check server: a warm process that answers ``modlab check`` in a fraction of a second.

Most of a check's time is loading: this process imports torch, the engine
and Hypothesis, and the workers' zygote imports torch again. A student runs
the check dozens of times an hour, and every time the same things load. So
the first check at a terminal starts a server for the course folder, which
loads them once and stays for ``IDLE_S`` seconds after its last check; each
``modlab check`` (and ``modlab submit``, where a server is up) then only
sends it its command line. A check from a lesson notebook's cell also comes
through a terminal (IPython's), but a notebook is closed rather than left
idle: a server ends as soon as every notebook kernel it served has ended and
no terminal's check came within ``IDLE_S`` (:class:`Users`,
:mod:`.notebook_kernel`).

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
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from modlab.course import Course
from modlab.fingerprint import fingerprint
from modlab.isolation.frames import ProtocolError, receive_frame, send_frame
from modlab.isolation.sandbox.libc import libc
from modlab.isolation.launcher import start_method

from . import notebook_kernel

IDLE_S = 600.0  # a server with no check for this long ends
START_TIMEOUT_S = 60.0  # the server binds its socket before it loads anything
INTERRUPT_GRACE_S = 10.0  # after Ctrl-C, how long the child may take to say "interrupted"
MAX_SOCKET_PATH = 107  # bytes of a Unix socket's path (Linux)
LOG = Path(".modlab") / "check-server.log"  # in the course folder: why a server did not start
# Variables that change what a loaded server would do: part of its fingerprint.
CONFIGURING = ("MODLAB_", "PYTHON", "TORCH", "CUDA", "OMP_", "MKL_", "HYPOTHESIS")
OWN = ("MODLAB_CHECK_SERVER", "MODLAB_CHECK_SERVER_IDLE_S")  # the server's own: they change nothing it loaded
BOOT = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
        "from modlab.commands.check_server import serve; serve(*sys.argv[2:])")

PR_SET_PDEATHSIG = 1
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
    configuring = sorted((k, v) for k, v in os.environ.items() if k.startswith(CONFIGURING) and k not in OWN)
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
        stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, cwd=root,
        pass_fds=tuple(map(int, watched)))
    log.close()
    started = time.monotonic()
    while time.monotonic() - started < START_TIMEOUT_S and server.poll() is None:
        connection = _connected(address)
        if connection is not None:
            return connection
        time.sleep(0.01)
    print(f"note: the check server did not start (see {root / LOG}); checking without it", file=sys.stderr)
    return None


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


# -- the server --------------------------------------------------------------------

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
    users = Users(float(os.environ.get("MODLAB_CHECK_SERVER_IDLE_S") or IDLE_S))
    server = Server(listener, address, users)
    _load(grader)
    users.came(int(kernel) if kernel else None)  # the starting check's user; the idle time counts from here
    try:
        server.run()
    finally:
        if server.listening():
            os.unlink(address)


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
    global serving
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
        serving = True
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
