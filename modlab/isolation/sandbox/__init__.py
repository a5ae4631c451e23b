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

One module per mechanism: :mod:`.limits`, :mod:`.user`, :mod:`.namespaces`,
:mod:`.landlock`, :mod:`.seccomp`, and :mod:`.environment`; :mod:`.libc`
reaches the system calls Python has no wrapper for. Runs in the worker
(and its zygote), before the submission's code exists there.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from .environment import scrub_environment
from .landlock import landlock_abi, restrict
from .libc import LINUX, libc
from .limits import set_limits
from .namespaces import die_with_parent, new_namespaces, private_root, workdir_on_tmpfs
from .seccomp import SYSCALLS, refuse_sockets
from .user import CAP_DAC_READ_SEARCH, become

PR_SET_NO_NEW_PRIVS = 38


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
        held.update(new_namespaces())
        if "mounts" in held:
            held["disk"] = workdir_on_tmpfs(policy.workdir, policy.memory_mib, policy.uid)
            if not landlock_abi() and private_root(policy.workdir):
                held["files"] = "a root of read-only binds: the Python installation and system, and its directory"
    held.update(set_limits(policy.memory_mib, policy.max_processes, root))
    if root and policy.uid is not None:
        # Where only what it may read is reachable (Landlock, or a root of
        # binds) the worker may read past file permissions (a Python
        # installed under /root); seccomp refuses open_by_handle_at, the one
        # way around paths that this capability opens.
        reachable = (landlock_abi() or "files" in held) and os.uname().machine in SYSCALLS
        keep = CAP_DAC_READ_SEARCH if reachable else None
        held["user"] = f"uid {become(policy.uid, keep)}" + (" reading past permissions" if keep else "")
    if LINUX:
        die_with_parent()
    scrub_environment(policy.workdir)
    if LINUX:
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        held.update(restrict(policy.workdir))
        if refuse_sockets():
            held["network"] = ", ".join(filter(None, [held.get("network"), "seccomp"]))
    return held

