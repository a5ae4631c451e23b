"""Landlock: what the worker may read and write, and that it reaches no TCP and signals no one outside."""
from __future__ import annotations

import ctypes
import glob
import os
import sys

from .libc import LINUX, check, libc

SYSTEM_READABLE = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/sys", "/etc/ld.so.cache", "/etc/ld.so.conf",
                   "/etc/ld.so.conf.d", "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group")
PROC_READABLE = ("/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/devices", "/proc/driver")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
GPU_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps")

LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION, LANDLOCK_RULE_PATH_BENEATH = 1, 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_TRUNCATE, FS_IOCTL_DEV = 1 << 14, 1 << 15
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
NET_TCP = 0b11          # bind and connect (ABI 4)
SCOPES = 0b11           # abstract unix sockets and signals (ABI 6)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none)."""
    if not LINUX:
        return 0
    version = libc.syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), LANDLOCK_CREATE_RULESET_VERSION)
    return max(version, 0)


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1          # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= 1 << 13           # refer
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def restrict(workdir: str) -> dict[str, str]:
    abi = landlock_abi()
    if abi < 1:
        return {}
    handled = _fs_rights(abi)
    attr = _RulesetAttr(handled, NET_TCP if abi >= 4 else 0, SCOPES if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = check(libc.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0),
                     "landlock_create_ruleset")
    try:
        for path, rights in _landlock_rules(workdir):
            _allow(ruleset, path, rights & handled)
        check(libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    held = {"files": f"Landlock ABI {abi}: read the Python installation and system, write {workdir}"}
    if abi >= 4:
        held["tcp"] = "Landlock"
    if abi >= 6:
        held["signals"] = "Landlock scope"
    return held


def _landlock_rules(workdir: str):
    yield workdir, -1
    # Its own /proc entry, writable: threads are named by writing
    # /proc/self/task/<tid>/comm, and CUDA fails to start if it cannot.
    yield os.path.realpath("/proc/self"), FS_READ_FILE | FS_READ_DIR | FS_WRITE_FILE | FS_TRUNCATE
    yield from prepare()


def prepare() -> tuple[tuple[str, int], ...]:
    """What Landlock lets every worker reach, besides its own directory and /proc entry.

    Called in the zygote before each fork, so that the forked worker finds it
    made: walking the imported modules in a fresh fork would copy (on write)
    most of the zygote's memory.
    """
    global _prepared
    counted, rules = _prepared
    if counted != len(sys.modules):
        rules = tuple([(path, READ) for path in (*SYSTEM_READABLE, *sorted(python_paths()))]
                      + [(path, FS_READ_FILE | FS_READ_DIR) for path in PROC_READABLE]
                      + [(path, FS_READ_FILE | FS_WRITE_FILE) for path in DEVICES])
        _prepared = (len(sys.modules), rules)
    gpu = tuple((path, FS_READ_FILE | FS_WRITE_FILE | FS_IOCTL_DEV | FS_READ_DIR)
                for pattern in GPU_DEVICES for path in sorted(glob.glob(pattern)))
    return rules + gpu


_prepared: tuple[int, tuple] = (0, ())


def python_paths() -> set[str]:
    """The Python installation, and the folders of packages imported from elsewhere.

    A package imported from a source checkout (``modlab`` installed with
    ``pip install -e``) is readable by its own folder only, so the checkout's
    graders and solutions are not; nor is a course's graders folder, imported
    as a package of its own (and preloaded: no worker needs to read it).
    """
    # Imported here: the check client imports the sandbox, and modlab.grading loads torch.
    from modlab.grading.loader import COURSE_PACKAGE

    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    found = set(prefixes)
    for name, module in list(sys.modules.items()):
        if name.startswith(COURSE_PACKAGE):
            continue
        if "." not in name and getattr(module, "__file__", None) and hasattr(module, "__path__"):
            found.update(str(p) for p in module.__path__
                         if not any(str(p).startswith(prefix + os.sep) for prefix in prefixes))
    return found


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # absent here (no /lib32, no GPU): nothing to allow
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(rights, fd)
        check(libc.syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0),
               f"landlock_add_rule {path}")
    finally:
        os.close(fd)

