"""Telling a worker that sleeps from one that computes: whether its threads run, from ``/proc``.

A scenario that takes long because the submission computes slowly gets its
whole timeout. A worker that runs nothing while a scenario waits for its
answer is waiting on nothing the scenario gave it (no scenario sleeps, reads
input or waits on another process), and a submission whose every method
sleeps would cost the class a full timeout per check. Two ways tell it:

- **Read**: every thread sleeps in a call whose end can be read
  (:func:`wakes_at`: a sleep until a given time, a lock with no timeout), and
  the first of them wakes after the scenario's time is up. It is found at the
  first look, :data:`FIRST_LOOK_S` in; one that will wake in time is waited for.
- **Seen**: no thread has run for :data:`ASLEEP_AFTER_S`, where some thread
  waits on anything else.

Where ``/proc`` is missing, no worker is ever told asleep.
"""
from __future__ import annotations

import math
import platform
import struct
import time
from pathlib import Path

ASLEEP_AFTER_S = 0.25  # no thread run for this long: the scenario is waiting on nothing
FIRST_LOOK_S = 0.02  # a waiting grading process looks this soon, then every SAMPLE_S
SAMPLE_S = 0.1  # each look is a few reads of /proc
ASLEEP = f"scenario exceeded {ASLEEP_AFTER_S:g} s asleep: the submission's code ran nothing, waiting on nothing the scenario gave it"
LOCKED = "scenario can never finish: every thread of the submission waits on a lock with no timeout, and none is left to release it"

# Where a thread sleeps, read from /proc/<pid>/task/<tid>/syscall: the call's
# number and arguments. Numbers by machine; elsewhere nothing is read.
CALLS = {"x86_64": {"clock_nanosleep": 230, "futex": 202}, "aarch64": {"clock_nanosleep": 115, "futex": 98}}
CLOCK_REALTIME, CLOCK_MONOTONIC, TIMER_ABSTIME = 0, 1, 1
FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_COMMAND, FUTEX_CLOCK_REALTIME = 0, 9, 0x7F, 256
TIMESPEC = struct.Struct("qq")  # seconds, nanoseconds: 64-bit on both machines


def sleeps_past(limit: str) -> str:
    """What a submission is told when it went to sleep past the time ``limit``
    it is cut at (e.g. "scenario exceeded 10 s"): it would have been."""
    return f"{limit.replace(' exceeded ', ' would exceed ', 1)}: the submission's code went to sleep for longer than that"


def run_sample(pid: int) -> tuple[bool, int] | None:
    """Whether any thread of the process is running or runnable, and how many
    times its threads have been given the CPU so far; None where it cannot be
    read (the process is gone, or there is no ``/proc``).

    Counting times run, not CPU time, tells a process that wakes for a moment
    every 0.3 s (slow, but alive) from one that never wakes at all.

    Example::

        run_sample(os.getpid())   # (True, 412)
    """
    running, slices = False, 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            stat = (task / "stat").read_text()
            running |= stat[stat.rindex(")") + 2] in "RD"  # the name may hold spaces and brackets
            slices += int((task / "schedstat").read_text().split()[2])
    except (OSError, IndexError, ValueError):
        return None
    return running, slices


def wakes_at(pid: int) -> float | None:
    """When the first thread of a process that runs nothing wakes by itself, on
    :func:`time.monotonic`'s clock: ``math.inf`` if none ever will, None where
    it cannot be read (a thread runs or waits on anything else, another
    machine, no ``/proc``, or no right to read the process's memory).

    Python's ``time.sleep`` sleeps until a given time, a lock waits with a
    timeout until a given time or with none at all: that end is read from the
    sleeping thread's memory.

    Example::

        wakes_at(sleeping.pid) - time.monotonic()   # 59.7: it called time.sleep(60)
    """
    calls = CALLS.get(platform.machine())
    if calls is None:
        return None
    wakes = []
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
            for task in Path(f"/proc/{pid}/task").iterdir():
                wake = _thread_wakes_at((task / "syscall").read_text().split(), memory, calls)
                if wake is None:
                    return None
                wakes.append(wake)
    except (OSError, ValueError, OverflowError, struct.error):  # its memory is its own: any of it may be nonsense
        return None
    return min(wakes, default=None)


def _thread_wakes_at(call: list[str], memory, calls: dict[str, int]) -> float | None:
    if len(call) < 7 or call[0] == "running":
        return None
    number, arguments = int(call[0]), [int(argument, 16) for argument in call[1:7]]
    if number == calls["clock_nanosleep"]:
        clock, flags, until = arguments[:3]
        if flags & TIMER_ABSTIME and clock in (CLOCK_REALTIME, CLOCK_MONOTONIC):
            return _monotonic(memory, until, realtime=clock == CLOCK_REALTIME)
    elif number == calls["futex"]:
        operation, timeout = arguments[1], arguments[3]
        command = operation & FUTEX_COMMAND
        if command in (FUTEX_WAIT, FUTEX_WAIT_BITSET) and timeout == 0:
            return math.inf
        if command == FUTEX_WAIT_BITSET:  # its timeout is a time, FUTEX_WAIT's a duration
            return _monotonic(memory, timeout, realtime=bool(operation & FUTEX_CLOCK_REALTIME))
    return None


def _monotonic(memory, address: int, realtime: bool) -> float:
    """The time held at ``address`` (a ``struct timespec``), on the monotonic clock."""
    memory.seek(address)
    seconds, nanoseconds = TIMESPEC.unpack(memory.read(TIMESPEC.size))
    at = seconds + nanoseconds / 1e9
    return at - time.time() + time.monotonic() if realtime else at


class SleepWatch:
    """Samples one process while its answer is awaited for up to ``timeout``,
    where it is cut for ``limit``: :meth:`asleep` says when it is found asleep,
    and what to tell the submission.

    Example::

        watch = SleepWatch(worker_pid, 10, "scenario exceeded 10 s")
        while not connection.poll(watch.next_look()):
            if reason := watch.asleep():
                ...   # give up on the answer, and say why
    """

    def __init__(self, pid: int, timeout: float, limit: str):
        self.pid, self.limit = pid, limit
        self.slices: int | None = None
        self.since = time.monotonic()
        self.until = self.since + timeout
        self.looks = 0

    def next_look(self) -> float:
        """How long to wait for the answer before the next look."""
        self.looks += 1
        return FIRST_LOOK_S if self.looks == 1 else SAMPLE_S

    def asleep(self) -> str | None:
        """None while the process may still answer in time; else why it will not."""
        sample, now = run_sample(self.pid), time.monotonic()
        if sample is None:
            return None
        running, slices = sample
        if running or slices != self.slices:  # it runs, waits for a CPU or for a disk, or ran since the last look
            self.slices, self.since = slices, now
        if running:
            return None
        wake = wakes_at(self.pid)
        if wake is not None and run_sample(self.pid) == sample:  # it did not run while being read
            if wake < self.until:
                return None
            return LOCKED if wake == math.inf else sleeps_past(self.limit)
        return ASLEEP if now - self.since >= ASLEEP_AFTER_S else None
