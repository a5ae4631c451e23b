"""The project's own tests: `make test` (in parallel) and the same tests one at a time, wall and CPU time.

    .venv/bin/python bench/suite.py              # make test, then the serial run (about 15 minutes)
    .venv/bin/python bench/suite.py --no-serial  # make test only

Run it alone on the machine: other work slows the wall time, and a busy host
inflates the CPU time too. CPU time counts every process a run starts, the
check servers, kernels and zygotes that outlive their parents included (a
cgroup v2 of its own, :class:`bench.measure.CpuAccount`; without one, "?").
Cores busy is the whole machine's, read from /proc/stat: what the run left idle.
Figures go in bench/README.md ("The project's own tests").
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import CoresBusy, CpuAccount  # noqa: E402

FAILED_OUTPUT = Path(tempfile.gettempdir()) / "modlab-suite-failed.txt"
RUNS = {
    "make test": ["make", "-s", "test"],
    "one at a time": [str(ROOT / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:xdist"],
}


def measure(command: list[str]) -> tuple[float, float | None, float | None, str]:
    """Run ``command`` in the repository: wall seconds, CPU seconds, cores busy, last line.

    A run that fails leaves its whole output in ``FAILED_OUTPUT``: a failure seen once under
    a benchmark's load is worth its message.
    """
    account, busy = CpuAccount(), CoresBusy()
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, preexec_fn=account.join)
    wall, cores = time.monotonic() - started, busy.cores()
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    if done.returncode != 0:
        FAILED_OUTPUT.write_text(done.stdout + done.stderr)
        last += f" (its output: {FAILED_OUTPUT})"
    return wall, account.seconds(), cores, last


def shown(value: float | None, unit: str = "") -> str:
    return "?" if value is None else f"{value:.1f}{unit}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-serial", action="store_true", help="leave out the serial run")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.2f}")
    for name, command in RUNS.items():
        if args.no_serial and name != "make test":
            continue
        wall, cpu, cores, last = measure(command)
        print(f"{name}: {wall:.0f} s wall, {shown(cpu, ' s')} CPU, {shown(cores)} cores busy; {last}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
