"""A worker process seen from the grading process: start, ask, time out, restart.

Workers are forked from the zygote (:mod:`.launcher`), a clean interpreter that
has already imported torch and the graders: a worker starts in milliseconds
and inherits nothing of the grading process. The grading process never
touches CUDA itself, and neither does the zygote, so forking stays safe on
GPU runners: each world creates its own CUDA context. Where there is no fork
(Windows), or with ``MODLAB_START_METHOD=spawn``, workers are spawned instead,
import both again, and run unconfined: only the timeouts hold there.

A package's worker runs the submission's code: it is confined
(:mod:`.sandbox`) with the course's limits, all its scenarios share one
deadline, and everything it answers is checked (:mod:`.protocol`,
:mod:`.tamper`) before the grading side reads it. A limit it reaches fails
the test with a message naming the limit ("scenario exceeded 10 s",
"worker exceeded 2 GiB").
"""
from __future__ import annotations

import functools
import json
import marshal
import math
import multiprocessing
import os
import shutil
import signal
import time

from modlab.course import Limits
from modlab.records import CRASH, IMPORT, LIMIT, PROTOCOL, TAMPER, TIMEOUT

from . import tamper
from .protocol import ProtocolError, check_answer, check_hello, has_observation, observation, parse_answer
from .sandbox import make_workdir
from .sleep import SleepWatch
from .worker import DEFAULT_ORACLE, serve
from .launcher import start_method, zygote

MAX_ANSWER_BYTES = 64 * 1024 * 1024
STOP_TIMEOUT = 10.0
EXIT_TIMEOUT = 5.0


class WorkerFailed(Exception):
    """The worker crashed, hung, answered nonsense, reached a limit or was caught tampering."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.kind = kind  # one of records.WORKER_REASONS


class SandboxFailed(RuntimeError):
    """The worker could not be confined: this machine's fault, not the submission's."""


class WorkerProcess:
    """One world (torch.nn, or a graded package) served by a child process.

    The process starts on first use and again after it failed, so one crash
    or hang costs the scenario it was running, not the ones after it. Once a
    package failed to import, hung importing, or was caught delegating to
    torch.nn as it loaded, every request fails at once with that reason.

    Args:
        world: ``{"kind": "torch"}``, or ``{"kind": "package", "package":
            name, "sources": {file: text}, "own": [files]}`` where ``own``
            names the submission's files (default: all); the others are the
            reference's, sent compiled. Either may name the course's
            ``"oracle"`` (:meth:`modlab.course.Oracle.spec`; default torch.nn's).
        grader_files: the graders whose scenarios it runs.
        load_timeout: the most a (trusted) world may take to load.
        limits: a package worker's limits (default: :class:`Limits`' defaults).
    """

    def __init__(self, world: dict, grader_files: list[str], load_timeout: float = 60.0,
                 limits: Limits | None = None):
        self.world = world
        self.oracle = world.get("oracle", DEFAULT_ORACLE)[0]  # the module a package may not delegate to
        self.grader_files = grader_files
        self.confined = world.get("kind") == "package"
        self.limits = limits or Limits()
        self.load_timeout = min(load_timeout, self.limits.scenario_timeout_s) if self.confined else load_timeout
        self.deadline = math.inf  # a package's clock starts with its first worker (not the zygote's start)
        self.connection = None
        self.handle = None
        self.load_error: dict | None = None
        self.refusal: WorkerFailed | None = None
        self.sandbox: dict[str, str] = {}  # what confines it, as the worker reported
        self.ready = False  # started, and said it is loaded
        self._asked = 0

    def ask(self, request: dict, timeout: float, watch_sleep: bool = False) -> dict:
        """Send one request and wait for its answer.

        With ``watch_sleep``, a package worker found asleep, running nothing
        and bound to sleep past ``timeout`` (:mod:`.sleep`), fails as if it had
        reached it: leave it off where a scenario may wait on a device.

        Raises:
            WorkerFailed: the worker died, hung past ``timeout`` seconds (or
                past the submission's deadline), answered something malformed,
                reached a limit, tampered, or its package did not import
                (``load_error`` then says why).
            SandboxFailed: the worker could not be confined.
        """
        return self.stream([request], timeout, op=request.get("op", "run"), watch_sleep=watch_sleep).next()

    def stream(self, runs: list[dict], timeout: float, op: str = "run_many", watch_sleep: bool = False) -> "Answers":
        """Send many ``run`` requests at once; the worker answers each as soon as
        it has run it, so its work overlaps the grading side's reading.

        Each answer has ``timeout`` seconds of its own, counted from the one
        before (as if asked one by one), and ``watch_sleep`` as in :meth:`ask`. Read them in order with
        :meth:`Answers.next`; :meth:`Answers.close` ends a stream left unread,
        and with it the worker, which would otherwise run on.

        Raises:
            WorkerFailed, SandboxFailed: as :meth:`ask`, before anything is sent.
        """
        self._allowance(timeout, "")  # past the deadline: fail before starting anything
        self._ensure_started()
        self._asked += 1
        message = {"op": "run_many", "runs": runs} if op == "run_many" else dict(runs[0])
        try:
            self.connection.send_bytes(json.dumps({**message, "id": self._asked}).encode())
        except OSError:
            raise self._crashed() from None
        return Answers(self, self._asked, len(runs), timeout, watch_sleep and self.confined)

    def close(self, wait: bool = True):
        """End the worker and everything it started.

        Args:
            wait: return once they are gone; with ``False``, return at once
                with the handle to wait on (``handle.exitcode(timeout)``), so
                that their end overlaps what the grading side does next.
        """
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        handle, self.handle, self.ready = self.handle, None, False
        if handle is None:
            return None
        handle.stop(STOP_TIMEOUT, wait=wait)
        return None if wait else handle

    # -- starting --------------------------------------------------------------

    def start_soon(self) -> None:
        """Start the worker now without waiting for it: it confines itself and
        loads its world while the grading side does something else, and the
        first request waits for it to be ready. Its clock starts then, not now.
        A worker that cannot start now is started again by that request."""
        if self.refusal is None and self.connection is None:
            try:
                self._launch_with_world()
            except Exception:  # the first request meets the same failure, and reports it
                self.close()

    def _launch_with_world(self) -> None:
        self.connection, self.handle = self._launch()
        try:
            self.connection.send_bytes(_payload(self.world))
        except OSError:
            raise self._crashed() from None

    def _ensure_started(self) -> None:
        if self.refusal is not None:
            raise self.refusal
        if self.ready:
            return
        if self.connection is None:
            self._launch_with_world()
        if self.confined and self.deadline == math.inf:
            self.deadline = time.monotonic() + self.limits.submission_timeout_s
        wait, reason = self._allowance(self.load_timeout, f"importing the package exceeded {self.load_timeout:g} s")
        try:
            hello = self._receive(wait, reason)
            check_hello(hello)
        except WorkerFailed as failed:
            if failed.kind == TIMEOUT:  # it would hang again: do not wait for it each time
                self.refusal = failed
            raise
        except ProtocolError as exc:
            raise self._refuse(str(exc), PROTOCOL) from None
        if "sandbox_error" in hello:
            self.close()
            raise SandboxFailed(f"the worker could not be confined: {hello['sandbox_error']}")
        self.sandbox = hello.get("sandbox", {})
        if not hello["loaded"]:
            self.load_error = hello.get("error") or {"type": "unknown", "message": ""}
            raise self._refuse(f"the package did not import: {self.load_error['type']}", IMPORT)
        if hello.get("tamper"):
            raise self._refuse(tamper.explain(hello["tamper"], "builds on", self.oracle), TAMPER)
        self.ready = True

    def _launch(self):
        limits = None
        if self.confined:
            limits = {"memory_mib": self.limits.memory_mib, "max_processes": self.limits.max_processes}
        if start_method() == "spawn" or not hasattr(os, "fork"):
            return _spawn(self.grader_files)
        return zygote().fork(self.grader_files, limits, self.world.get("oracle"))

    def _refuse(self, reason: str, kind: str) -> WorkerFailed:
        self.close()
        self.refusal = WorkerFailed(reason, kind)
        return self.refusal

    # -- answers ---------------------------------------------------------------

    def _allowance(self, timeout: float, reason: str) -> tuple[float, str]:
        """How long to wait, and what to say if the wait runs out."""
        remaining = self.deadline - time.monotonic()
        whole = f"submission exceeded {self.limits.submission_timeout_s:g} s in all"
        if remaining <= 0:
            raise WorkerFailed(whole, TIMEOUT)
        return (timeout, reason) if timeout <= remaining else (remaining, whole)

    def _receive(self, timeout: float, timeout_reason: str, watch_sleep: bool = False) -> dict:
        try:
            unanswered = self._wait(timeout, timeout_reason, watch_sleep)
            if unanswered:
                self.close()
                raise WorkerFailed(unanswered, TIMEOUT)
            raw = self.connection.recv_bytes(MAX_ANSWER_BYTES)
        except EOFError:
            raise self._crashed() from None
        except OSError:  # over MAX_ANSWER_BYTES, or the socket broke
            self.close()
            raise WorkerFailed(f"the worker answered more than {MAX_ANSWER_BYTES >> 20} MiB, or broke off", PROTOCOL) from None
        try:
            return parse_answer(raw)
        except ProtocolError as exc:
            self.close()
            raise WorkerFailed(str(exc), PROTOCOL) from None

    def _wait(self, timeout: float, timeout_reason: str, watch_sleep: bool) -> str | None:
        """Wait up to ``timeout`` for an answer: None once it is there, else
        why not: ``timeout_reason``, or, when watching for sleep, why the worker
        will not answer in time, as soon as it is found asleep (:mod:`.sleep`)."""
        if not watch_sleep or not hasattr(self.handle, "pid"):
            return None if self.connection.poll(timeout) else timeout_reason
        watch = SleepWatch(self.handle.pid, timeout, timeout_reason)
        while not self.connection.poll(max(0.0, min(watch.next_look(), watch.until - time.monotonic()))):
            if time.monotonic() >= watch.until:
                return timeout_reason
            if asleep := watch.asleep():
                return asleep
        return None

    def _checked(self, answer: dict) -> dict:
        """A package worker's answer, once it is known to be well-formed and honest."""
        try:
            check_answer(answer)
        except ProtocolError as exc:
            self.close()
            raise WorkerFailed(str(exc), PROTOCOL) from None
        if answer["tamper"]:
            raise WorkerFailed(tamper.explain(answer["tamper"], "called", self.oracle), TAMPER)
        if has_observation(answer):
            # Read only if the oracle is named in it: a submission's own objects never are.
            if tamper.prefix(self.oracle) in answer["observed"]:
                found = tamper.oracle_types(observation_of(answer), self.oracle)
                if found:
                    raise WorkerFailed(tamper.explain(found, "returned objects of", self.oracle), TAMPER)
        elif answer["raised"].get("limit"):
            raise WorkerFailed(self._limit_reached(answer["raised"]["limit"]), LIMIT)
        return answer

    def _limit_reached(self, limit: str) -> str:
        if limit == "memory":
            return f"worker exceeded {_size(self.limits.memory_mib)}"
        if limit == "processes":
            return f"worker exceeded {self.limits.max_processes} processes"
        return f"worker exceeded its {limit[:40]} limit"

    def _crashed(self) -> WorkerFailed:
        code = self.handle.exitcode(EXIT_TIMEOUT) if self.handle is not None else None
        self.close()
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return WorkerFailed(f"worker killed by signal {name}", CRASH)
        return WorkerFailed(f"worker exited with code {code}", CRASH)


def observation_of(answer: dict):
    """An answer's observation, read and checked (see :func:`.protocol.observation`).

    Raises:
        WorkerFailed: it is malformed.
    """
    try:
        return observation(answer)
    except ProtocolError as exc:
        raise WorkerFailed(str(exc), PROTOCOL) from None


class Answers:
    """The answers of one :meth:`WorkerProcess.stream`, read in order."""

    def __init__(self, worker: WorkerProcess, ident: int, count: int, timeout: float, watch_sleep: bool = False):
        self.worker, self.ident, self.count, self.timeout = worker, ident, count, timeout
        self.watch_sleep = watch_sleep
        self.received = 0

    @property
    def done(self) -> bool:
        return self.received >= self.count

    def next(self) -> dict:
        """The next answer, checked.

        Raises:
            WorkerFailed: as :meth:`WorkerProcess.ask`; the stream is then over.
        """
        worker = self.worker
        try:
            wait, reason = worker._allowance(self.timeout, f"scenario exceeded {self.timeout:g} s")
            answer = worker._receive(wait, reason, self.watch_sleep)
            if answer.get("id") != self.ident or answer.get("index") != self.received:
                worker.close()
                raise WorkerFailed("the worker answered out of turn", PROTOCOL)
            self.received += 1
            return worker._checked(answer) if worker.confined else answer
        except WorkerFailed:
            self.close()  # a worker still running the rest would answer out of turn next time
            raise

    def close(self) -> None:
        """Stop reading: a worker still running this stream's requests is ended."""
        if not self.done:
            self.worker.close()
        self.received = self.count


def _size(mib: int) -> str:
    return f"{mib / 1024:g} GiB" if mib >= 1024 and mib % 512 == 0 else f"{mib} MiB"


def _payload(world: dict) -> bytes:
    """The world as the worker receives it: the submission's files as source
    text, the reference's compiled, so that their source never reaches it."""
    oracle = world.get("oracle", DEFAULT_ORACLE)
    if world.get("kind") != "package":
        return marshal.dumps({"kind": world.get("kind", "torch"), "oracle": oracle})
    package, sources = world["package"], world["sources"]
    own = set(world.get("own", sources))
    return marshal.dumps({
        "kind": "package",
        "oracle": oracle,
        "package": package,
        "sources": {name: text for name, text in sources.items() if name in own},
        "code": {name: _compiled(f"{package}/{name}", text) for name, text in sources.items() if name not in own},
    })


@functools.lru_cache(maxsize=256)
def _compiled(filename: str, source: str):
    return compile(source, filename, "exec")


# -- where there is no fork --------------------------------------------------------

class SpawnedHandle:
    """A spawned worker, with the zygote handle's two methods; removes its folder once it is gone."""

    def __init__(self, process, workdir: str):
        self.process, self.pid, self.workdir = process, process.pid, workdir

    def exitcode(self, timeout: float) -> int | None:
        self.process.join(timeout)
        if self.process.exitcode is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
        return self.process.exitcode

    def stop(self, timeout: float, wait: bool = True) -> int | None:
        self.process.join(0.5)  # its pipe is closed: a well-behaved worker exits
        if self.process.is_alive():
            self.process.kill()
        return self.exitcode(timeout)  # where workers are spawned, every stop waits


def _spawn(grader_files: list[str]):
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=True)
    workdir = make_workdir(None)
    process = context.Process(target=serve, args=(theirs, None, grader_files, workdir), daemon=True)
    process.start()
    theirs.close()
    return ours, SpawnedHandle(process, workdir)
