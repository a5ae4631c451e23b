"""One torch for a grading command and its workers' zygote: the command runs again in a process
that forks the zygote before it reads the command.

A grading command imports torch, and so does its zygote, a fresh interpreter
(:mod:`.launcher` says why the zygote is never forked from a grading process: it
holds where results go, tokens, the students' work). That is two imports of
torch of CPU and two torches of memory for every ``modlab grade``, every
autograder run and every check outside a check server.

:func:`relaunch` removes one. Before it has done anything, the command replaces
its own program (``execve``: the same process, so the same pid, terminal,
signals, and exit status to whoever started it) with a fresh interpreter whose
command line names nothing and whose environment holds only what configures the
interpreter and what it loads (:func:`.sandbox.environment.loading_environment`).
The command itself, its arguments and whole environment, waits in an anonymous
file (``memfd``) that the new process reads only after it has imported torch and
forked its zygote (:func:`.launcher.fork_zygote`): the zygote holds what a fresh
one holds, and the two share torch's pages. The program then runs the command
again, from its start.

Where it cannot (no ``fork`` or ``memfd`` here, workers spawned), :func:`relaunch`
returns and the command goes on as before.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

from .launcher import fork_zygote, start_method
from .sandbox.environment import loading_environment

# The relaunched process reads the path it imports from (this process's sys.path), and then
# the command, at exact offsets: nothing of the command is read before the zygote forks.
BOOT = ("import json, os, sys; fd = {fd}; size = int.from_bytes(os.pread(fd, 8, 0), 'big'); "
        "sys.path[:] = json.loads(os.pread(fd, size, 8)); "
        "from modlab.isolation.relaunch import become; sys.exit(become(fd, 8 + size))")
_relaunched = False  # this process is a relaunched command: it never relaunches again


def relaunch(module: str, function: str, arguments: list) -> None:
    """Run this process's command again, in a process that loads torch once for itself and its
    workers' zygote: there ``module.function(*arguments)`` runs, with this process's
    arguments (``sys.argv``), environment, folder, standard streams and interpreter
    options, and its return value is the exit status. Return where that cannot be.

    Call it before the command has printed, written or started anything: all of
    that happens again. In the relaunched process it returns at once.

    Example::

        relaunch("modlab.commands.program", "run", [None, ["grade"], "grade a class"])
    """
    if _relaunched or start_method() != "fork" or not hasattr(os, "memfd_create"):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    command = None
    try:
        command = _command_file([module, function, arguments])
        boot = [sys.executable, *subprocess._args_from_interpreter_flags(), "-c", BOOT.format(fd=command)]
        os.execve(sys.executable, boot, loading_environment())
    except OSError:  # the command goes on here, its zygote a fresh interpreter
        if command is not None:
            os.close(command)


def _command_file(entry: list) -> int:
    """An anonymous file, inherited across ``execve``, holding this process's path and command."""
    path = json.dumps(sys.path).encode()
    command = json.dumps({"argv": sys.argv, "environ": dict(os.environ), "entry": entry}).encode()
    fd = os.memfd_create("modlab-command", 0)
    os.write(fd, len(path).to_bytes(8, "big") + path + command)
    return fd


def become(fd: int, offset: int):
    """In the relaunched process: fork the zygote, then read the command at ``offset`` of
    ``fd``, take its arguments and environment, and run it; its exit status.

    If the zygote cannot be forked here, the command starts a fresh one when it
    needs one, and says why if that fails too.
    """
    global _relaunched
    _relaunched = True
    try:
        fork_zygote()
    except KeyboardInterrupt:  # Ctrl-C while torch loads: the command had not started
        print("modlab: interrupted", file=sys.stderr)
        return 130
    except Exception:  # the command starts a fresh zygote when it needs one, as without relaunch
        pass
    command = json.loads(os.pread(fd, os.fstat(fd).st_size - offset, offset))
    os.close(fd)
    os.environ.clear()
    os.environ.update(command["environ"])
    sys.argv[:] = command["argv"]
    module, function, arguments = command["entry"]
    return getattr(importlib.import_module(module), function)(*arguments)
