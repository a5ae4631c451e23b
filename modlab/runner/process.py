"""A worker process seen from the trusted side: start, ask, time out, restart.

Workers are forked from the grading process, which has already imported torch
and the graders, so a worker starts in milliseconds; where ``fork`` is not
available (macOS, Windows laptops) they are spawned and import both again.
The trusted side never touches CUDA itself, so forking stays safe on GPU
runners: each world creates its own CUDA context.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import signal

from .worker import serve

MAX_ANSWER_BYTES = 64 * 1024 * 1024


class WorkerFailed(Exception):
    """The worker crashed, exited, hung or answered nonsense."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.kind = kind  # "crash", "timeout", "protocol"


def start_method() -> str:
    """``fork`` where the platform has it, unless MODLAB_START_METHOD says otherwise."""
    wanted = os.environ.get("MODLAB_START_METHOD")
    if wanted:
        return wanted
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


class WorkerProcess:
    """One world (torch.nn, or a graded package) served by a child process.

    The process starts on first use and again after it failed, so one crash
    or hang costs the scenario it was running, not the ones after it.
    """

    def __init__(self, world: dict, grader_files: list[str], load_timeout: float = 60.0):
        self.world = world
        self.grader_files = grader_files
        self.load_timeout = load_timeout
        self.context = multiprocessing.get_context(start_method())
        self.process = None
        self.connection = None
        self.load_error: dict | None = None

    def ask(self, request: dict, timeout: float) -> dict:
        """Send one request and wait for its answer.

        Raises:
            WorkerFailed: the worker died, hung past ``timeout`` seconds, or
                failed to load the package (``load_error`` then says why).
        """
        self._ensure_started()
        try:
            self.connection.send_bytes(json.dumps(request).encode())
            return self._receive(timeout, f"scenario exceeded {timeout:g} s")
        except (BrokenPipeError, ConnectionResetError, EOFError):
            raise self._crashed() from None

    def _ensure_started(self) -> None:
        if self.load_error is not None:
            raise WorkerFailed(f"the package did not import: {self.load_error['type']}", "import")
        if self.process is not None and self.process.is_alive():
            return
        self.close()
        parent_end, child_end = self.context.Pipe(duplex=True)
        self.process = self.context.Process(target=serve, args=(child_end, self.world, self.grader_files), daemon=True)
        self.process.start()
        child_end.close()
        self.connection = parent_end
        hello = self._receive(self.load_timeout, f"importing the package exceeded {self.load_timeout:g} s")
        if not hello.get("loaded"):
            self.load_error = hello.get("error") or {"type": "unknown", "message": ""}
            self.close()
            raise WorkerFailed(f"the package did not import: {self.load_error['type']}", "import")

    def _receive(self, timeout: float, timeout_reason: str) -> dict:
        try:
            ready = self.connection.poll(timeout)
            if not ready:
                self.close()
                raise WorkerFailed(timeout_reason, "timeout")
            raw = self.connection.recv_bytes(MAX_ANSWER_BYTES)
        except (EOFError, OSError):
            raise self._crashed() from None
        try:
            answer = json.loads(raw)
        except ValueError:
            self.close()
            raise WorkerFailed("the worker answered something that is not JSON", "protocol") from None
        if not isinstance(answer, dict):
            self.close()
            raise WorkerFailed("the worker answered something that is not a JSON object", "protocol")
        return answer

    def _crashed(self) -> WorkerFailed:
        self.process.join(timeout=5)
        code = self.process.exitcode
        self.close()
        if code is not None and code < 0:
            return WorkerFailed(f"worker killed by signal {signal.Signals(-code).name}", "crash")
        return WorkerFailed(f"worker exited with code {code}", "crash")

    def close(self) -> None:
        """End the process (and anything it started in its process group)."""
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(timeout=5)
            self.process = None
