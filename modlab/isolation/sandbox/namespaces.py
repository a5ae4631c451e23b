"""Namespaces (as root): no network, its own mounts and PID namespace, a root of read-only binds."""
from __future__ import annotations

import os
import signal

from .landlock import FS_WRITE_FILE, prepare
from .libc import check, libc

CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


def unshare(flags: int) -> None:
    check(libc.unshare(flags), "unshare")


def setns(fd: int, flags: int) -> None:
    check(libc.setns(fd, flags), "setns")


def become_subreaper() -> None:
    """Orphans below this process come to it, not to init: none escapes it."""
    check(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl")


def new_namespaces() -> dict[str, str]:
    """A network namespace with no interfaces; in a new PID namespace, its own /proc."""
    held = {}
    try:
        unshare(CLONE_NEWNET | CLONE_NEWNS)
    except OSError:
        return held
    held["network"] = "namespace"
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount")
    held["mounts"] = "own namespace"
    if os.getpid() == 1:  # the zygote forked us into a new PID namespace
        proc = libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        if proc == 0:
            held["processes seen"] = "own PID namespace"
    return held


def workdir_on_tmpfs(workdir: str, memory_mib: int, uid: int | None) -> str:
    """Its directory becomes a tmpfs of ``memory_mib``: what it writes cannot fill the disk."""
    owner = f",uid={uid},gid={uid}" if uid is not None else ""
    options = f"size={memory_mib}m,mode=0700{owner}".encode()
    if libc.mount(b"tmpfs", workdir.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        return "unlimited"
    return f"its directory a tmpfs of {memory_mib} MiB"


def private_root(workdir: str) -> bool:
    """Root without Landlock: chroot into a tmpfs holding read-only binds of
    what Landlock would let the worker read, its devices, a fresh /proc and
    its own directory. Graders, solutions and results are not in it."""
    root = os.path.join(workdir, ".root")
    os.mkdir(root)
    if libc.mount(b"tmpfs", root.encode(), b"tmpfs", MS_NOSUID, b"mode=0755") != 0:
        return False
    for path, rights in prepare():
        if not path.startswith("/proc/"):
            _bind(path, root + path, MS_REC, writable=bool(rights & FS_WRITE_FILE))
    _bind(workdir, root + workdir, 0, writable=True)  # not recursive: leaves out .root itself
    os.makedirs(root + "/proc", exist_ok=True)
    libc.mount(b"proc", (root + "/proc").encode(), b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    os.chroot(root)
    return True


def _bind(source: str, target: str, recursive: int, writable: bool) -> None:
    if not os.path.exists(source):
        return
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    check(libc.mount(source.encode(), target.encode(), None, MS_BIND | recursive, None), f"bind {source}")
    if not writable:
        libc.mount(None, target.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)


def die_with_parent() -> None:
    """Killed with the zygote (set after the uid change, which clears it)."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

