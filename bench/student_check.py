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
median. ``import torch`` alone is timed as a fresh process: the floor of a
fresh check. With ``--old TREE`` (a git worktree of an older commit) a fourth
column times that tree's kit the fresh way.

    .venv/bin/python bench/student_check.py                    # 01 03 05 08, 3 repeats
    git worktree add /tmp/old <commit>
    .venv/bin/python bench/student_check.py --old /tmp/old 01 03 --repeats 5

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
TICKS = os.sysconf("SC_CLK_TCK")


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
        found = [pid for pid in _pids() if str(self.runtime) in _read(f"/proc/{pid}/cmdline")]
        return found + [child for pid in found for child in _children(pid)]

    def servers_cpu(self) -> float:
        """CPU seconds the servers and what they waited for have used so far."""
        total = 0
        for pid in self.servers():
            fields = _read(f"/proc/{pid}/stat").rsplit(")", 1)[-1].split()
            total += sum(int(value) for value in fields[11:15]) if len(fields) > 14 else 0
        return total / TICKS

    def stop_servers(self) -> None:
        for pid in self.servers():
            os.kill(pid, signal.SIGTERM)


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _children(pid: int) -> list[int]:
    return [int(child) for child in _read(f"/proc/{pid}/task/{pid}/children").split()]


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", help="exercise ids (default: 01 03 05 08)")
    parser.add_argument("--old", type=Path, help="an older tree of this repository (a git worktree), timed fresh")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    become_subreaper()
    wanted = args.exercises or ["01", "03", "05", "08"]
    with tempfile.TemporaryDirectory(prefix="mlb") as folder:  # short: it holds the servers' sockets
        kit = write_kit(ROOT, Path(folder) / "new")
        fresh, served = Student(kit, False, Path(folder)), Student(kit, True, Path(folder))
        students = {"fresh": fresh, "warm": served}
        if args.old:
            students["old"] = Student(write_kit(args.old.resolve(), Path(folder) / "old"), False, Path(folder))
        try:
            print(f"load average before: {load()}")
            floor = [fresh.timed("-c", "import torch") for _ in range(args.repeats)]
            print(f"import torch: {median_row(floor).split('s')[0].strip()} s wall, "
                  f"{statistics.median(c for _, c, _ in floor):.2f} s CPU (median of {args.repeats})")
            for exercise in wanted:  # torch.nn's answers, cached in each kit as a student's first check does
                for student in students.values():
                    if student is not served:
                        student.timed("-m", "modlab", "check", exercise)
            first = served.timed("-m", "modlab", "check", wanted[0])
            print(f"first check with the server ({wanted[0]}, starting it): {first[0]:.2f} s wall, {first[1]:.2f} s CPU")
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
            print(f"load average after: {load()}")
        finally:
            served.stop_servers()
    return 0


if __name__ == "__main__":
    sys.exit(main())
