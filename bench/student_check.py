"""How long a student waits for ``modlab check NN``: with the check server and without, side by side.

The script writes a student kit with ``modlab release`` (so it runs the
``modlab`` the kit ships), puts the reference code in it, and times
``modlab check NN`` as a student runs it, in three ways:

- **fresh**: without the check server (``MODLAB_CHECK_SERVER=0``), each
  check a fresh process that loads torch, as before the server;
- **first**: the first check with the server, which starts it (a student's
  first check of a session);
- **warm**: every later check, answered by the warm server.

Fresh and warm runs alternate, so both meet the same load; the figure is the
median. ``import torch`` alone is timed as a fresh process, the floor of a
fresh check, alternating with first checks (each after the servers were
stopped), and the script prints their ratio. With ``--old TREE`` (a git
worktree of an older commit) a fourth column times that tree's kit the fresh way.

Then the memory the student's server holds: the summed PSS of the server, its
zygote and whatever they run (a check's child, its workers), while it waits
and at its peak during a check. Last, **the notebook**: a real kernel
(``jupyter_client``) runs the lesson notebook's own check cell, which goes
through IPython's terminal as a student's does: its first check (which starts
a server that lives as long as the kernel), warm checks, the server's PSS, and
how long the server and its zygote outlive the kernel's shutdown.

    .venv/bin/python bench/student_check.py                    # 01 03 05 08, 3 repeats
    git worktree add /tmp/old <commit>
    .venv/bin/python bench/student_check.py --old /tmp/old 01 03 --repeats 5
    .venv/bin/python bench/student_check.py --no-notebook      # without jupyter_client

Before any timing, one fresh check of each exercise fills the kit's cache of
torch.nn's answers (``.modlab/torch-nn/``), as a student's first check does.
CPU seconds (user and system) count the check and every process it started:
for a fresh check, what this script (their subreaper) waits for; for a warm
one, the client plus what the server and its zygote used meanwhile (their
own time and that of the children they waited for: the check's child and its
workers), read from ``/proc``. The load average is printed: other processes
slow the wall figures far more than the CPU figures.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import MemorySampler, tree_pss  # noqa: E402
from modlab.isolation.zygote import FORKED_NAME  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
MIB = 2**20
ENDS_WITHIN_S = 30.0  # how long to watch a notebook's server after its kernel's shutdown


def write_kit(tree: Path, folder: Path) -> Path:
    """``modlab release`` of ``tree`` into ``folder``, with the reference code in its package."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-m", "modlab", "--course", str(tree / "course.yaml"), "release", str(folder)],
                   check=True, env=env, capture_output=True, text=True)
    package = next(p for p in folder.iterdir() if (p / "__init__.py").is_file() and p.name != "modlab")
    for source in (tree / "solutions" / package.name).glob("*.py"):
        shutil.copy(source, package / source.name)
    return folder


class Student:
    """Runs checks in a kit as a student would; ``server``: whether they go to a check server."""

    def __init__(self, kit: Path, server: bool, runtime: Path):
        self.kit = kit
        self.runtime = runtime  # the servers' sockets, and so their command lines, name this folder
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MODLAB_START_METHOD")}
        self.env.update(MODLAB_CHECK_SERVER="1" if server else "0", XDG_RUNTIME_DIR=str(runtime))

    def timed(self, *args: str) -> tuple[float, float, str]:
        """Wall and CPU seconds of ``python ARGS`` in the kit, and its last line."""
        before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
        before_servers = self.servers_cpu()
        started = time.monotonic()
        done = subprocess.run([sys.executable, *args], cwd=self.kit, env=self.env, capture_output=True, text=True)
        wall = time.monotonic() - started
        reap_finished(self.servers())
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before_children.ru_utime - before_children.ru_stime
        cpu += self.servers_cpu() - before_servers
        last = (done.stdout.strip().splitlines() or [done.stderr.strip() or "ok"])[-1]
        return wall, cpu, last

    def servers(self) -> list[int]:
        """The running servers of this student, and their zygotes."""
        found = server_pids(self.runtime)
        return found + [child for pid in found for child in _children(pid)]

    def servers_cpu(self) -> float:
        """CPU seconds the servers and what they waited for have used so far."""
        total = 0
        for pid in self.servers():
            fields = _read(f"/proc/{pid}/stat").rsplit(")", 1)[-1].split()
            total += sum(int(value) for value in fields[11:15]) if len(fields) > 14 else 0
        return total / TICKS

    def stop_servers(self) -> None:
        """End this student's servers and their zygotes; return once they are gone."""
        running = self.servers()
        for pid in running:
            os.kill(pid, signal.SIGTERM)
        gone_within(running, ENDS_WITHIN_S)


class Notebook:
    """A lesson notebook's kernel in the kit, started by ``jupyter_client`` as Jupyter
    starts one. Its check cell runs at IPython's terminal, as a student's does, so the
    first check starts a server that lives as long as the kernel."""

    def __init__(self, kit: Path, runtime: Path):
        from jupyter_client.manager import start_new_kernel

        self.kit = kit
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "MODLAB_START_METHOD", "MODLAB_CHECK_SERVER")}
        env["XDG_RUNTIME_DIR"] = str(runtime)
        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(kit), env=env,
                                                     stderr=subprocess.DEVNULL)  # its notes, not the check's

    def check(self, exercise: str) -> tuple[float, str]:
        """Run the exercise's notebook's check cell: its wall seconds and last line."""
        notebook = json.loads(next(self.kit.glob(f"{exercise}_*.ipynb")).read_text())
        printed: list[str] = []

        def keep(message: dict) -> None:
            if message["msg_type"] == "stream":
                printed.append(message["content"]["text"])

        started = time.monotonic()
        self.client.execute_interactive("".join(notebook["cells"][-1]["source"]), timeout=300, output_hook=keep)
        wall = time.monotonic() - started
        return wall, ("".join(printed).strip().splitlines() or ["(nothing)"])[-1]

    def shut_down(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel()


def server_pids(runtime: Path) -> list[int]:
    """The check servers whose socket lies in ``runtime``; not their zygotes, forked with their command line."""
    return [pid for pid in _pids() if str(runtime) in _read(f"/proc/{pid}/cmdline")
            and _read(f"/proc/{pid}/comm").strip() != FORKED_NAME.decode()]


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _children(pid: int) -> list[int]:
    return [int(child) for child in _read(f"/proc/{pid}/task/{pid}/children").split()]


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def gone_within(pids: list[int], seconds: float) -> float | None:
    """How long these processes took to end (reaping those orphaned to this subreaper),
    watched for at most ``seconds``; None if one still runs then."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        for pid in pids:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass  # not this process's child: its own parent reaps it
        if not any(_running(pid) for pid in pids):
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def _running(pid: int) -> bool:
    fields = _read(f"/proc/{pid}/stat").rsplit(")", 1)
    return len(fields) == 2 and fields[1].split()[0] != "Z"


def reap_finished(servers: list[int]) -> None:
    """Wait for the processes a check left behind, orphaned to this subreaper (a fresh
    check's zygote, which ends once the check has), but not for the servers, which stay."""
    while True:
        others = [pid for pid in _children(os.getpid()) if pid not in servers]
        if not others:
            return
        for pid in others:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def become_subreaper() -> None:
    """Processes the checks leave behind become this one's children (Linux), so their CPU counts."""
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def median_row(runs: list[tuple[float, float, str]]) -> str:
    return f"{statistics.median(w for w, _, _ in runs):>9.2f}s{statistics.median(c for _, c, _ in runs):>9.2f}s"


def first_checks(fresh: Student, served: Student, exercise: str, repeats: int) -> float:
    """``import torch`` and a session's first check (which starts the server), in turn,
    each first check after the servers were stopped; prints both and their ratio.

    Returns:
        The median wall seconds of ``import torch``.
    """
    floor, first = [], []
    for _ in range(repeats):
        floor.append(fresh.timed("-c", "import torch"))
        served.stop_servers()
        first.append(served.timed("-m", "modlab", "check", exercise))
    torch_s = statistics.median(w for w, _, _ in floor)
    first_s = statistics.median(w for w, _, _ in first)
    print(f"import torch: {torch_s:.2f} s wall, {statistics.median(c for _, c, _ in floor):.2f} s CPU "
          f"(median of {repeats})")
    print(f"first check with the server ({exercise}, starting it): {first_s:.2f} s wall, "
          f"{statistics.median(c for _, c, _ in first):.2f} s CPU; {first_s / torch_s:.2f}x import torch")
    return torch_s


def server_memory(server: int, check) -> tuple[float, float]:
    """MiB of PSS the server and everything below it hold while waiting, and at their
    peak while ``check()`` runs a check through it."""
    time.sleep(1.0)  # the last check's child and workers have ended
    waiting = tree_pss(server)
    sampler = MemorySampler(server, every=0.02)
    sampler.start()
    check()
    sampler.stop()
    return waiting / MIB, sampler.peak / MIB


def print_memory(where: str, waiting: float, peak: float) -> None:
    print(f"{where}: server and zygote {waiting:.0f} MiB PSS waiting, {peak:.0f} MiB at the peak of a check")


def notebook_path(kit: Path, runtime: Path, exercise: str, repeats: int, torch_s: float) -> None:
    """A lesson notebook's check cell in a real kernel: first and warm checks, the
    server's memory, and how long the server outlives the kernel's shutdown."""
    notebook = Notebook(kit, runtime)
    try:
        first, last = notebook.check(exercise)
        warm = [notebook.check(exercise)[0] for _ in range(repeats)]
        (server,) = server_pids(runtime)
        tree = [server, *_children(server)]
        memory = server_memory(server, lambda: notebook.check(exercise))
    finally:
        notebook.shut_down()
    ended = gone_within(tree, ENDS_WITHIN_S)
    print(f"notebook, exercise {exercise} (a kernel started by jupyter_client; the lesson's check cell):")
    print(f"  first check (starting the server): {first:.2f} s wall, {first / torch_s:.2f}x import torch; {last}")
    print(f"  warm check: {statistics.median(warm):.2f} s wall (median of {repeats})")
    print_memory("  memory", *memory)
    print("  after the kernel's shutdown: " + (f"server and zygote gone in {ended:.1f} s" if ended is not None else
          f"still running after {ENDS_WITHIN_S:.0f} s, {tree_pss(server) / MIB:.0f} MiB PSS"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", help="exercise ids (default: 01 03 05 08)")
    parser.add_argument("--old", type=Path, help="an older tree of this repository (a git worktree), timed fresh")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-notebook", action="store_true", help="leave out the notebook (needs jupyter_client)")
    args = parser.parse_args(argv)
    become_subreaper()
    wanted = args.exercises or ["01", "03", "05", "08"]
    with tempfile.TemporaryDirectory(prefix="mlb") as folder:  # short: it holds the servers' sockets
        runtime = Path(folder)
        kit = write_kit(ROOT, runtime / "new")
        fresh, served = Student(kit, False, runtime), Student(kit, True, runtime)
        students = {"fresh": fresh, "warm": served}
        if args.old:
            students["old"] = Student(write_kit(args.old.resolve(), runtime / "old"), False, runtime)
        try:
            print(f"load average before: {load()}")
            for exercise in wanted:  # torch.nn's answers, cached in each kit as a student's first check does
                for student in students.values():
                    if student is not served:
                        student.timed("-m", "modlab", "check", exercise)
            torch_s = first_checks(fresh, served, wanted[0], args.repeats)
            print(f"{'ex':<4}" + "".join(f"{side + ' wall':>10}{side + ' CPU':>10}" for side in students)
                  + "  result (warm)")
            for exercise in wanted:
                served.timed("-m", "modlab", "check", exercise)  # the server loads this exercise's grader
                runs = {side: [] for side in students}
                for _ in range(args.repeats):
                    for side, student in students.items():
                        runs[side].append(student.timed("-m", "modlab", "check", exercise))
                print(f"{exercise:<4}" + "".join(median_row(runs[side]) for side in students)
                      + f"  {runs['warm'][-1][2]}")
            (server,) = server_pids(runtime)
            print_memory(f"terminal, exercise {wanted[0]}", *server_memory(
                server, lambda: served.timed("-m", "modlab", "check", wanted[0])))
            served.stop_servers()
            if not args.no_notebook:
                notebook_path(kit, runtime, wanted[0], args.repeats, torch_s)
            print(f"load average after: {load()}")
        finally:
            served.stop_servers()
    return 0


if __name__ == "__main__":
    sys.exit(main())
