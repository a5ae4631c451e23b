"""Limits: memory, file size and processes, as rlimits set in the worker."""
from __future__ import annotations

import os
try:
    import resource
except ImportError:  # Windows: no rlimits there; its workers are spawned and run unconfined
    resource = None


def set_limits(memory_mib: int, max_processes: int, root: bool) -> dict[str, str]:
    memory = memory_mib * 2**20
    baseline = _private_memory()
    _limit(resource.RLIMIT_DATA, baseline + memory)
    _limit(resource.RLIMIT_FSIZE, memory)
    _limit(resource.RLIMIT_CORE, 0)
    processes = max_processes if root else _tasks_of_user(os.getuid()) + max_processes
    _limit(resource.RLIMIT_NPROC, processes)
    return {"memory": f"RLIMIT_DATA {memory_mib} MiB above torch's own {baseline >> 20} MiB",
            "processes": f"RLIMIT_NPROC {max_processes}" + ("" if root else " above the user's own")}


def _private_memory() -> int:
    """What RLIMIT_DATA counts now: the worker's start, mostly torch's libraries.

    The limit is set that much above it, so that ``memory_mib`` means the
    same on a CPU build of torch (about 0.2 GiB of it) and a CUDA build
    (about 1.3 GiB).
    """
    try:
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("VmData:"))
        return int(line.split()[1]) * 1024
    except (OSError, StopIteration):
        return 0


def _limit(which: int, value: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _tasks_of_user(uid: int) -> int:
    """Processes and threads this user runs now (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                continue  # ended meanwhile
    return count

