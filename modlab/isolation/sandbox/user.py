"""The worker's user: an unused uid of its own (as root), no groups, at most one capability."""
from __future__ import annotations

import ctypes
import errno
import os

from .libc import check, libc

# One uid per worker, so that RLIMIT_NPROC (counted per user) is the
# worker's own. Above the ranges distributions hand out to people and
# services; where a user namespace does not map these, ``nobody`` is used.
WORKER_UIDS = range(2_000_000, 3_000_000)
NOBODY = 65534
CAP_DAC_READ_SEARCH, PR_SET_KEEPCAPS, LINUX_CAPABILITY_VERSION_3 = 2, 8, 0x20080522


def worker_uid(pid: int) -> int | None:
    """The uid a worker with this pid becomes, when grading runs as root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    return WORKER_UIDS[pid % len(WORKER_UIDS)]


def become(uid: int, keep_capability: int | None) -> int:
    """Drop root for ``uid`` (or ``nobody`` where no user namespace maps it),
    keeping at most one capability."""
    os.setgroups([])
    if keep_capability is not None:
        libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
    for candidate in (uid, NOBODY):
        try:
            os.setresgid(candidate, candidate, candidate)
            os.setresuid(candidate, candidate, candidate)
            break
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
    else:
        raise PermissionError("no unprivileged user to run the worker as")
    if keep_capability is not None:
        bits = 1 << keep_capability
        header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
        data = (_CapData * 2)(_CapData(bits, bits, 0), _CapData(0, 0, 0))
        check(libc.capset(ctypes.byref(header), data), "capset")
        libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    return candidate


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]
