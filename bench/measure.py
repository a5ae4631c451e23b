"""Measuring helpers shared by the benchmarks."""
from __future__ import annotations

import os
import time
from pathlib import Path


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
