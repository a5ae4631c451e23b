"""Measuring helpers shared by the benchmarks."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import psutil


class CpuAccount:
    """CPU time of a process and every process it starts, even those that outlive their
    parent unwaited (the kernel counts them in a cgroup v2 of their own); None where
    there is no writable cgroup v2."""

    def __init__(self):
        mounts = [line.split() for line in Path("/proc/mounts").read_text().splitlines()]
        root = next((Path(m[1]) for m in mounts if m[2] == "cgroup2"), None)
        self.group = root / f"modlab-bench-{os.getpid()}-{time.monotonic_ns()}" if root else None
        try:
            self.group.mkdir()
        except (AttributeError, OSError):
            self.group = None

    def join(self) -> None:
        """In the child, before exec: move into the group."""
        if self.group:
            (self.group / "cgroup.procs").write_text(str(os.getpid()))

    def usage(self) -> float | None:
        """CPU seconds of every process in the group so far (None without a group)."""
        if not self.group:
            return None
        stat = dict(line.split() for line in (self.group / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6

    def seconds(self) -> float | None:
        """CPU seconds in all, once every process has left; the group is removed."""
        used = self.usage()
        for _ in range(50 if self.group else 0):  # the last processes may take a moment to leave
            try:
                self.group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
        return used


class CoresBusy:
    """How many cores the whole machine kept busy from its creation to :meth:`cores`,
    read from ``/proc/stat``: every process counts, the kernel's own threads too,
    so it shows the cores a run left idle (None without ``/proc``)."""

    def __init__(self):
        self.start = self._read()

    @staticmethod
    def _read() -> tuple[int, int] | None:
        try:
            ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        except (OSError, ValueError):
            return None
        user, nice, system, _idle, _iowait, irq, softirq, _steal = ticks
        return user + nice + system + irq + softirq, sum(ticks)

    def cores(self) -> float | None:
        end = self._read()
        if self.start is None or end is None or end[1] == self.start[1]:
            return None
        return os.cpu_count() * (end[0] - self.start[0]) / (end[1] - self.start[1])


def tree_pss(root: int) -> int:
    """The summed PSS, in bytes, of a process and all its descendants (0 once it has ended).

    PSS counts a page shared by n processes as 1/n of a page in each, so the sum
    is what the tree holds, its shared libraries and copy-on-write pages once.
    """
    try:
        parent = psutil.Process(root)
        tree = [parent, *parent.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for process in tree:
        try:
            total += process.memory_full_info().pss
        except psutil.Error:
            pass  # ended between listing and reading
    return total


class MemorySampler(threading.Thread):
    """The peak of the summed PSS of a process and all its descendants, sampled.

    Reading a process's PSS makes the kernel walk its page tables, about 10 ms
    for a process that has loaded torch: sampled every 0.25 s, a run's dozen
    processes would take a third of a core from the run being measured.
    """

    def __init__(self, pid: int, every: float = 1.0):
        super().__init__(daemon=True)
        self.root, self.every, self.peak, self.done = pid, every, 0, threading.Event()
        self.loads: list[float] = []  # other work on the machine slows both runs alike

    def run(self) -> None:
        while not self.done.wait(self.every) and psutil.pid_exists(self.root):
            self.peak = max(self.peak, tree_pss(self.root))
            self.loads.append(os.getloadavg()[0])

    def stop(self) -> None:
        self.done.set()
        self.join()
