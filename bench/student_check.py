"""How long a student waits for ``modlab check NN``: this tree against an older one, side by side.

Each side writes its own student kit with ``modlab release`` (so each runs
the ``modlab`` its kit ships), puts the reference code in it, and times
``modlab check NN`` as a student runs it: a fresh process each time, with
fork workers (Linux). Runs alternate between the sides so that both meet the
same load; the figure is the median. ``import torch`` alone is timed the same
way: the floor, since a check cannot start before torch is loaded.

    .venv/bin/python bench/student_check.py                    # this tree only
    git worktree add /tmp/old <commit>
    .venv/bin/python bench/student_check.py --old /tmp/old 01 03 --repeats 3

The first check of each kit is not counted: it fills the kit's cache of
torch.nn's answers (``.modlab/torch-nn/``), as a student's first check does.
Prints wall seconds, the CPU seconds (user and system) of the check and of
every process it started (this script is their subreaper, so the workers'
zygote and the workers are waited for and counted), and the load average:
other processes on the machine slow the wall figures of both sides far more
than the CPU figures.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_kit(tree: Path, folder: Path) -> Path:
    """``modlab release`` of ``tree`` into ``folder``, with the reference code in its package."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-m", "modlab", "--course", str(tree / "course.yaml"), "release", str(folder)],
                   check=True, env=env, capture_output=True, text=True)
    package = next(p for p in folder.iterdir() if (p / "__init__.py").is_file() and p.name != "modlab")
    for source in (tree / "solutions" / package.name).glob("*.py"):
        shutil.copy(source, package / source.name)
    return folder


def timed(kit: Path, *args: str) -> tuple[float, float, str]:
    """Wall seconds of ``python ARGS`` run in ``kit`` (its own modlab), the CPU
    seconds of it and of all it started, and its last line."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MODLAB_START_METHOD")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run([sys.executable, *args], cwd=kit, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    while True:  # the zygote and its workers, orphaned to this subreaper, end once the check has
        try:
            os.wait()
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    last = (done.stdout.strip().splitlines() or [done.stderr.strip() or "ok"])[-1]
    return wall, cpu, last


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def become_subreaper() -> None:
    """Processes the checks leave behind become this one's children (Linux), so their CPU counts."""
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", help="exercise ids (default: 01 03 05 08)")
    parser.add_argument("--old", type=Path, help="an older tree of this repository (a git worktree)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    become_subreaper()
    wanted = args.exercises or ["01", "03", "05", "08"]
    trees = {"new": ROOT, **({"old": args.old.resolve()} if args.old else {})}
    with tempfile.TemporaryDirectory() as folder:
        kits = {side: write_kit(tree, Path(folder) / side) for side, tree in trees.items()}
        print(f"load average before: {load()}")
        floor = [timed(kits["new"], "-c", "import torch")[:2] for _ in range(args.repeats)]
        print(f"import torch: {statistics.median(w for w, _ in floor):.2f} s wall, "
              f"{statistics.median(c for _, c in floor):.2f} s CPU (median of {args.repeats})")
        print(f"{'ex':<4}" + "".join(f"{side + ' wall':>10}{side + ' CPU':>10}" for side in kits) + "  result (new)")
        for exercise in wanted:
            runs = {side: [] for side in kits}
            result = ""
            for side, kit in kits.items():
                timed(kit, "-m", "modlab", "check", exercise)  # the first check fills the cache
            for _ in range(args.repeats):
                for side, kit in kits.items():
                    wall, cpu, last = timed(kit, "-m", "modlab", "check", exercise)
                    runs[side].append((wall, cpu))
                    result = last if side == "new" else result
            print(f"{exercise:<4}" + "".join(f"{statistics.median(w for w, _ in runs[side]):>9.2f}s"
                                             f"{statistics.median(c for _, c in runs[side]):>9.2f}s" for side in kits)
                  + f"  {result}")
        print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
