"""Confine a worker process before it loads a submission's code.

:func:`confine` runs in the worker, after the fork and before the package
loads. Each layer is applied where the platform allows it, and the worker
reports which ones hold (see :func:`confine`'s return value):

============  ==============================================  =====================
what          how                                             where
============  ==============================================  =====================
memory        ``RLIMIT_DATA`` (private writable memory: what  everywhere
              tensors and Python objects take), that much
              above what the worker holds when it starts.
              Not ``RLIMIT_AS``: CUDA reserves some 16 GiB
              of address space it never backs
files         ``RLIMIT_FSIZE`` (one file written); its        everywhere; the
              directory a tmpfs of the same size              tmpfs as root
processes     ``RLIMIT_NPROC``, counted per user: the worker  everywhere; exact
              gets a user of its own when run as root, else   only as root
              the limit is added to what the user already runs
user          drop to an unused uid (and no groups)           root
network       a new network namespace (no interfaces); and    namespace: root;
              a seccomp filter refusing every socket but       seccomp: Linux
              AF_UNIX ones                                     x86-64 and arm64
processes     a new PID namespace: the worker is its init, so  root
seen          it sees only its own processes (not the
              grader's ``/proc/<pid>/cmdline``), and ending it
              ends everything it started
file access   Landlock: read the Python installation, the     Linux >= 5.13 with
              system directories and the modules already      Landlock enabled
              imported; write only the private directory; no  (scopes: >= 6.12);
              TCP; no signals to processes outside the        else, as root, the
              sandbox. Without Landlock, as root: a chroot    chroot
              into read-only binds of the same. Graders,
              solutions, other students' folders and results
              stay out of reach.
environment   only ``KEPT_ENVIRONMENT``; HOME and TMPDIR are  everywhere
              the private directory; inherited descriptors
              closed; output to /dev/null
============  ==============================================  =====================

Without root and without Landlock only the limits, the seccomp filter and
the environment hold: the worker then runs with the grading user's rights
over its files and processes. Grade as root (CI, containers), or on a kernel
with Landlock, to close that.
"""
from __future__ import annotations

import ctypes
import errno
import glob
import os
try:
    import resource
except ImportError:  # Windows: no rlimits there; its workers are spawned and run unconfined
    resource = None
import signal
import struct
import sys
import tempfile
from dataclasses import dataclass

LINUX = sys.platform.startswith("linux")

# Variables a worker (and the zygote it is forked from) may see; everything
# else (tokens, CI settings, grading-mode switches) is left behind.
KEPT_ENVIRONMENT = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONHASHSEED", "LD_LIBRARY_PATH",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
    "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
)

SYSTEM_READABLE = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/sys", "/etc/ld.so.cache", "/etc/ld.so.conf",
                   "/etc/ld.so.conf.d", "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group")
PROC_READABLE = ("/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/devices", "/proc/driver")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
GPU_DEVICES = ("/dev/nvidia*", "/dev/nvidia-caps")

# One uid per worker, so that RLIMIT_NPROC (counted per user) is the
# worker's own. Above the ranges distributions hand out to people and
# services; where a user namespace does not map these, ``nobody`` is used.
WORKER_UIDS = range(2_000_000, 3_000_000)
NOBODY = 65534


@dataclass(frozen=True)
class Policy:
    """What confines one worker.

    Attributes:
        memory_mib: the most private memory the worker may hold.
        max_processes: the most processes and threads it may run at once.
        workdir: its private directory (its cwd, HOME and TMPDIR).
        uid: the unprivileged user to become; None keeps the user (not root).
    """

    memory_mib: int
    max_processes: int
    workdir: str
    uid: int | None = None


def clean_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The kept variables of this process's environment, plus ``extra``."""
    kept = {key: value for key, value in os.environ.items() if key in KEPT_ENVIRONMENT}
    return {**kept, **(extra or {})}


def worker_uid(pid: int) -> int | None:
    """The uid a worker with this pid becomes, when grading runs as root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    return WORKER_UIDS[pid % len(WORKER_UIDS)]


def make_workdir(uid: int | None) -> str:
    """A fresh private directory, owned by the worker's user, readable by no one else."""
    path = tempfile.mkdtemp(prefix="modlab-worker-")
    if uid is not None:
        os.chown(path, uid, uid)
    return path


def confine(policy: Policy) -> dict[str, str]:
    """Confine this process (a freshly forked worker) and say what holds.

    Must run while the process has a single thread: Landlock and seccomp
    bind the calling thread and the threads and processes it starts
    afterwards.

    Returns:
        ``{layer: how}`` for each layer that holds, e.g. ``{"network":
        "namespace, seccomp"}``; a layer missing from it does not hold.
    """
    held: dict[str, str] = {}
    os.setsid()
    root = LINUX and os.geteuid() == 0
    if root:
        held.update(_new_namespaces())
        if "mounts" in held:
            held["disk"] = _workdir_on_tmpfs(policy)
            if not landlock_abi() and _private_root(policy.workdir):
                held["files"] = "a root of read-only binds: the Python installation and system, and its directory"
    held.update(_set_limits(policy, root))
    if root and policy.uid is not None:
        # Where only what it may read is reachable (Landlock, or a root of
        # binds) the worker may read past file permissions (a Python
        # installed under /root); seccomp refuses open_by_handle_at, the one
        # way around paths that this capability opens.
        reachable = (landlock_abi() or "files" in held) and os.uname().machine in SYSCALLS
        keep = CAP_DAC_READ_SEARCH if reachable else None
        held["user"] = f"uid {_become(policy.uid, keep)}" + (" reading past permissions" if keep else "")
    if LINUX:
        _die_with_parent()
    _scrub_environment(policy.workdir)
    if LINUX:
        _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        held.update(_landlock(policy.workdir))
        if _refuse_sockets():
            held["network"] = ", ".join(filter(None, [held.get("network"), "seccomp"]))
    return held


# -- descriptors, environment --------------------------------------------------

def quiet_descriptors(keep_fd: int) -> None:
    """stdin/stdout/stderr on /dev/null; every other inherited descriptor closed.

    What the submission prints goes nowhere: fake results printed to stdout or
    stderr never reach the grader, which reads only the connection.
    """
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, _max_fd())


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 65536


def _scrub_environment(workdir: str) -> None:
    for key in [k for k in os.environ if k not in KEPT_ENVIRONMENT]:
        del os.environ[key]
    for key in ("HOME", "TMPDIR"):
        os.environ[key] = workdir
    tempfile.tempdir = workdir
    sys.argv[:] = [""]
    sys.dont_write_bytecode = True
    os.chdir(workdir)


# -- limits, user --------------------------------------------------------------

def _set_limits(policy: Policy, root: bool) -> dict[str, str]:
    memory = policy.memory_mib * 2**20
    baseline = _private_memory()
    _limit(resource.RLIMIT_DATA, baseline + memory)
    _limit(resource.RLIMIT_FSIZE, memory)
    _limit(resource.RLIMIT_CORE, 0)
    processes = policy.max_processes if root else _tasks_of_user(os.getuid()) + policy.max_processes
    _limit(resource.RLIMIT_NPROC, processes)
    return {"memory": f"RLIMIT_DATA {policy.memory_mib} MiB above torch's own {baseline >> 20} MiB",
            "processes": f"RLIMIT_NPROC {policy.max_processes}" + ("" if root else " above the user's own")}


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


def _become(uid: int, keep_capability: int | None) -> int:
    """Drop root for ``uid`` (or ``nobody`` where no user namespace maps it),
    keeping at most one capability."""
    os.setgroups([])
    if keep_capability is not None:
        _libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
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
        _check(_libc.capset(ctypes.byref(header), data), "capset")
        _libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)
    return candidate


CAP_DAC_READ_SEARCH, PR_SET_KEEPCAPS, LINUX_CAPABILITY_VERSION_3 = 2, 8, 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


# -- Linux: namespaces, parent death --------------------------------------------

CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 36, 38, 22

_libc = ctypes.CDLL(None, use_errno=True) if LINUX else None


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
    return result


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def setns(fd: int, flags: int) -> None:
    _check(_libc.setns(fd, flags), "setns")


def become_subreaper() -> None:
    """Orphans below this process come to it, not to init: none escapes it."""
    _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl")


def _new_namespaces() -> dict[str, str]:
    """A network namespace with no interfaces; in a new PID namespace, its own /proc."""
    held = {}
    try:
        unshare(CLONE_NEWNET | CLONE_NEWNS)
    except OSError:
        return held
    held["network"] = "namespace"
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount")
    held["mounts"] = "own namespace"
    if os.getpid() == 1:  # the zygote forked us into a new PID namespace
        proc = _libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        if proc == 0:
            held["processes seen"] = "own PID namespace"
    return held


def _workdir_on_tmpfs(policy: Policy) -> str:
    """Its directory becomes a tmpfs of ``memory_mib``: what it writes cannot fill the disk."""
    owner = f",uid={policy.uid},gid={policy.uid}" if policy.uid is not None else ""
    options = f"size={policy.memory_mib}m,mode=0700{owner}".encode()
    if _libc.mount(b"tmpfs", policy.workdir.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        return "unlimited"
    return f"its directory a tmpfs of {policy.memory_mib} MiB"


def _private_root(workdir: str) -> bool:
    """Root without Landlock: chroot into a tmpfs holding read-only binds of
    what Landlock would let the worker read, its devices, a fresh /proc and
    its own directory. Graders, solutions and results are not in it."""
    root = os.path.join(workdir, ".root")
    os.mkdir(root)
    if _libc.mount(b"tmpfs", root.encode(), b"tmpfs", MS_NOSUID, b"mode=0755") != 0:
        return False
    for path, rights in prepare():
        if not path.startswith("/proc/"):
            _bind(path, root + path, MS_REC, writable=bool(rights & FS_WRITE_FILE))
    _bind(workdir, root + workdir, 0, writable=True)  # not recursive: leaves out .root itself
    os.makedirs(root + "/proc", exist_ok=True)
    _libc.mount(b"proc", (root + "/proc").encode(), b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
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
    _check(_libc.mount(source.encode(), target.encode(), None, MS_BIND | recursive, None), f"bind {source}")
    if not writable:
        _libc.mount(None, target.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)


def _die_with_parent() -> None:
    """Killed with the zygote (set after the uid change, which clears it)."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


# -- Linux: Landlock -----------------------------------------------------------

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
    version = _libc.syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), LANDLOCK_CREATE_RULESET_VERSION)
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


def _landlock(workdir: str) -> dict[str, str]:
    abi = landlock_abi()
    if abi < 1:
        return {}
    handled = _fs_rights(abi)
    attr = _RulesetAttr(handled, NET_TCP if abi >= 4 else 0, SCOPES if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _check(_libc.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0),
                     "landlock_create_ruleset")
    try:
        for path, rights in _landlock_rules(workdir):
            _allow(ruleset, path, rights & handled)
        _check(_libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
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
    graders and solutions are not.
    """
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    found = set(prefixes)
    for name, module in list(sys.modules.items()):
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
        _check(_libc.syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0),
               f"landlock_add_rule {path}")
    finally:
        os.close(fd)


# -- Linux: seccomp ---------------------------------------------------------------

# architecture, socket(), system calls refused outright: io_uring_setup (it
# opens sockets of its own) and open_by_handle_at (it opens files by inode,
# around Landlock's paths)
SYSCALLS = {"x86_64": (0xC000003E, 41, (425, 304)), "aarch64": (0xC00000B7, 198, (425, 265))}
AF_UNIX = 1
X32_BIT = 0x40000000
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
LD_ABS, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06


def _refuse_sockets() -> bool:
    """Install a seccomp filter: ``socket()`` only for AF_UNIX.

    Holds without root, unlike a network namespace, and for UDP too, which
    Landlock does not cover. Foreign system call conventions (i386 calls on
    x86-64, x32) are refused outright, so they cannot go around it.
    """
    machine = os.uname().machine
    if machine not in SYSCALLS:
        return False
    arch, socket_nr, refused = SYSCALLS[machine]
    deny = RET_ERRNO | errno.EACCES
    # Jump offsets count instructions to skip; DENY and ALLOW close the program.
    checks = [(JGE, X32_BIT)] + [(JEQ, nr) for nr in refused]
    program = [(LD_ABS, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, deny), (LD_ABS, 0, 0, 0)]
    for index, (op, value) in enumerate(checks):
        program.append((op, len(checks) - index + 3, 0, value))   # to DENY
    program += [
        (JEQ, 0, 2, socket_nr),             # socket? go on, else to ALLOW
        (LD_ABS, 0, 0, 16),                 # its domain
        (JEQ, 0, 1, AF_UNIX),               # AF_UNIX? to ALLOW, else to DENY
        (RET, 0, 0, RET_ALLOW),             # ALLOW
        (RET, 0, 0, deny),                  # DENY
    ]
    filters = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(filters)
    fprog = struct.pack("HxxxxxxQ", len(program), ctypes.addressof(buffer))
    return _libc.prctl(PR_SET_SECCOMP, 2, ctypes.c_char_p(fprog), 0, 0) == 0
