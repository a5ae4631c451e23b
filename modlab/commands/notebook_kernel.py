"""The notebook kernel a check runs under, which its check server lives only as long as.

A lesson notebook's check cell (``!"{sys.executable}" -m modlab check 01``)
runs the check through IPython's pseudo-terminal, so the check starts a check
server as one typed at a terminal would. A terminal's server waits ten
minutes for the next check; a notebook's should not outlive the notebook: on
a shared JupyterHub every closed notebook would leave a server and its
zygote behind, a few hundred MB each. So a check looks up the process tree
for the kernel it runs under, and the server watches that kernel (a pidfd,
which names that process and no later one with its pid) and ends with it.

A kernel is found by its command line, as Jupyter starts it
(``python -m ipykernel_launcher -f kernel-….json``; VS Code and JupyterLab
alike). Linux only, as the check server is. Imports nothing beyond the
standard library.
"""
from __future__ import annotations

import os
from pathlib import Path

# Words of a kernel's command line (a module run with -m, or a script's name without .py).
KERNEL_PROGRAMS = ("ipykernel_launcher", "ipykernel")
PROGRAM_WORDS = 4  # the interpreter, -m, the module: a kernel's program is among its first words


def kernel_pid(start: int | None = None) -> int | None:
    """The pid of the notebook kernel that ``start`` (default: this process) runs under,
    the nearest above it; None where there is none (a terminal, a script, CI).

    Example::

        kernel_pid()   # in a check cell's check: the kernel's pid; at a terminal: None
    """
    pid = os.getppid() if start is None else start
    seen = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        if is_kernel(command_line(pid)):
            return pid
        pid = parent(pid)
    return None


def is_kernel(argv: list[str]) -> bool:
    """Whether a command line is a Jupyter kernel's (``… -m ipykernel_launcher -f …``).

    Example::

        is_kernel(["/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "k.json"])   # True
    """
    return any(word in KERNEL_PROGRAMS or Path(word).stem in KERNEL_PROGRAMS for word in argv[:PROGRAM_WORDS])


def command_line(pid: int) -> list[str]:
    """The words a process was started with; [] where it cannot be read (gone, or not ours)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def parent(pid: int) -> int:
    """The parent's pid; 0 where the process is gone."""
    try:
        # After the command's name in parentheses (which may hold anything): state, then ppid.
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def watch(pid: int) -> int | None:
    """A pidfd on the process ``pid``: readable once it has ended; None where it already has.

    Example::

        fd = watch(kernel_pid()); select.select([fd], [], [])   # returns when the kernel ends
    """
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def watched_pid(pidfd: int) -> int | None:
    """The pid of the process a pidfd of this process names; None where it has ended."""
    for line in Path(f"/proc/self/fdinfo/{pidfd}").read_text().splitlines():
        if line.startswith("Pid:"):
            pid = int(line.split()[1])
            return pid if pid > 0 else None  # -1: it has ended
    return None


def ended(pidfd: int) -> bool:
    """Whether the process a pidfd names has ended (without waiting)."""
    import select

    return bool(select.select([pidfd], [], [], 0)[0])
