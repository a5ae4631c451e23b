"""Telling a worker that sleeps from one that computes: whether its threads run, from ``/proc``.

A scenario that takes long because the submission computes slowly gets its
whole timeout. A worker none of whose threads has run for a quarter second, asleep
in the kernel, while a scenario waits for its answer is waiting on nothing the
scenario gave it (no scenario sleeps, reads input or waits on another
process): it would sleep to the end of its timeout, and a submission whose
every method sleeps would cost the class a full timeout per check. Where
``/proc`` is missing, no worker is ever told asleep.
"""
from __future__ import annotations

import time
from pathlib import Path

ASLEEP_AFTER_S = 0.25  # no thread run for this long: the scenario is waiting on nothing
SAMPLE_S = 0.1  # how often a waiting grading process looks; each look is one read of /proc


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


class SleepWatch:
    """Samples one process while its answer is awaited: :meth:`asleep` says
    when none of its threads has run for :data:`ASLEEP_AFTER_S`.

    Example::

        watch = SleepWatch(worker_pid)
        while not connection.poll(SAMPLE_S):
            if watch.asleep():
                ...   # give up on the answer
    """

    def __init__(self, pid: int):
        self.pid = pid
        self.slices: int | None = None
        self.since = time.monotonic()

    def asleep(self) -> bool:
        sample, now = run_sample(self.pid), time.monotonic()
        if sample is None:
            return False
        running, slices = sample
        if running or slices != self.slices:  # it runs, waits for a CPU or for a disk, or ran since the last look
            self.slices, self.since = slices, now
            return False
        return now - self.since >= ASLEEP_AFTER_S
