"""How long Gradescope's run_autograder takes on the reference, and what the zip holds.

The script builds the zip with ``modlab gradescope build`` (the whole course,
or ``--exercise`` ones), unpacks it into a temporary tree laid out as
Gradescope's ``/autograder``, uploads the reference package as
``submission/mynn/``, and runs the zip's ``run_autograder`` as Gradescope
does, with this venv standing in for the image's (``MODLAB_VENV``). Each run
is a fresh process, as each Gradescope submission is a fresh container: it
loads torch, starts its zygote and asks torch.nn every answer again.

    .venv/bin/python bench/gradescope.py                 # the whole course, 3 runs
    .venv/bin/python bench/gradescope.py -e 01 --repeats 5

It prints the zip's size and files, then each run's wall and CPU seconds
(this run_autograder and every process it started) and the score, and the
medians; the load average is printed, since other processes slow the wall
figures far more than the CPU figures.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(folder: Path, exercises: list[str]) -> Path:
    """``modlab gradescope build`` into ``folder/autograder.zip``."""
    out = folder / "autograder.zip"
    command = [sys.executable, "-m", "modlab", "--course", str(ROOT / "course.yaml"), "gradescope", "build",
               "--out", str(out), *(f"--exercise={e}" for e in exercises)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    return out


def tree(folder: Path, zip_path: Path) -> Path:
    """A fresh ``folder/autograder``: the zip unpacked into source/, the reference in submission/mynn/."""
    root = folder / "autograder"
    shutil.rmtree(root, ignore_errors=True)
    zipfile.ZipFile(zip_path).extractall(root / "source")
    shutil.copytree(ROOT / "solutions" / "mynn", root / "submission" / "mynn")
    return root


def run(root: Path) -> tuple[float, float, float]:
    """One run_autograder: ``(wall seconds, CPU seconds, score)``."""
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "MODLAB_VENV": sys.prefix}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=root, env=env, check=True,
                   capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads((root / "results" / "results.json").read_text())["score"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercise", "-e", action="append", default=[], help="only this exercise (repeatable)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-gradescope-") as scratch:
        folder = Path(scratch)
        zip_path = build(folder, args.exercise)
        with zipfile.ZipFile(zip_path) as archive:
            entries = archive.namelist()
        tops = sorted({name.split("/")[0] + ("/" if "/" in name else "") for name in entries})
        print(f"zip: {zip_path.stat().st_size / 1024:.0f} KiB, {len(entries)} files: {', '.join(tops)}")
        walls, cpus = [], []
        for index in range(1, args.repeats + 1):
            wall, cpu, score = run(tree(folder, zip_path))
            walls.append(wall)
            cpus.append(cpu)
            print(f"run {index}: {wall:.1f} s wall, {cpu:.1f} s CPU, score {score:g}", flush=True)
        print(f"median: {statistics.median(walls):.1f} s wall, {statistics.median(cpus):.1f} s CPU "
              f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
