"""What grading one correct submission cannot cost less than, on this machine.

Grades the reference once, as ``modlab grade`` warms up, and keeps every
request its workers were asked. Then, in this one warm process, with no
worker, no isolation, no comparison and no Hypothesis around them:

- runs each request's scenario body on the reference package and on
  torch.nn, and encodes what it returns, as a worker does: the work that
  grading is made of;
- starts, asks one small scenario and stops workers of one exercise, as
  the engine does nine times per submission: what isolation costs at least.

    .venv/bin/python bench/floor.py
    .venv/bin/python bench/floor.py --repeat 5 --workers 50

Prints CPU time (this process's and, for workers, the kernel's count of
every process in a cgroup v2 where one is writable), and the class of 200
on 2 cores at that floor, as if every student wrote the reference.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import CpuAccount  # noqa: E402
from modlab import engine  # noqa: E402
from modlab.batch.grading import Batch  # noqa: E402
from modlab.course import load_course  # noqa: E402
from modlab.isolation import process, worker  # noqa: E402

CLASS, CORES = 200, 2


def asked_of_the_reference(course, options) -> list[dict]:
    """Every request the reference's workers are asked in one grading, after the warm-up."""
    asked = []
    stream = process.WorkerProcess.stream

    def recording(self, runs, *args, **kwargs):
        if self.confined:
            asked.extend(runs)
        return stream(self, runs, *args, **kwargs)

    process.WorkerProcess.stream = recording
    try:
        engine.grade_submission(course, course.solutions, options=options)
    finally:
        process.WorkerProcess.stream = stream
    return asked


def bodies_cpu(requests: list[dict], nn, package: str | None, repeat: int) -> Counter:
    """CPU seconds per exercise to answer every request in this process (the best of ``repeat``)."""
    best = Counter()
    for _ in range(repeat):
        spent = Counter()
        for request in requests:
            started = time.process_time()
            worker.answer(request, nn, package)
            spent[exercise_of(request)] += time.process_time() - started
        best = spent if not best or sum(spent.values()) < sum(best.values()) else best
    return best


def exercise_of(request: dict) -> str:
    return Path(request["scenario"].split("::")[0]).name[5:7]


def reference_world(course, exercise) -> dict:
    """The world of a worker grading ``exercise`` of the reference, as the engine starts it."""
    sources = engine.package_sources(course, exercise, course.solutions, engine.GRAFT)
    return {"kind": "package", "package": course.package, "sources": sources, "own": list(exercise.files)}


def worker_cpu(account: CpuAccount, course, request: dict, count: int) -> float:
    """CPU seconds, all processes, to start a worker of ``request``'s exercise, ask it that, and stop it."""
    world = reference_world(course, course.exercise(exercise_of(request)))

    def one() -> None:
        handle = process.WorkerProcess(world, course.grader_files(), limits=course.limits)
        handle.ask(request, course.limits.scenario_timeout_s)
        handle.close()

    one()
    before = account.usage()
    if before is None:
        return float("nan")
    for _ in range(count):
        one()
    return (account.usage() - before) / count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="answer every request this many times, keep the best")
    parser.add_argument("--workers", type=int, default=30, help="workers to start and stop (default 30)")
    args = parser.parse_args()
    account = CpuAccount()
    account.join()  # this process: the zygote and the workers it starts are counted with it
    warnings.simplefilter("ignore")  # torch's, for scenarios that provoke them
    course = load_course(ROOT / "course.yaml")
    options = engine.GradeOptions(device="cpu")
    Batch(course, course.exercises, options).warm()
    requests = asked_of_the_reference(course, options)
    load_before = os.getloadavg()[0]
    reference, _ = worker.load_world({"kind": "package", "package": course.package,
                                      "sources": engine.process_memory().reference(course)})
    ours = bodies_cpu(requests, reference, course.package, args.repeat)
    theirs = bodies_cpu(requests, torch.nn, None, args.repeat)
    fixed = worker_cpu(account, course, requests[0], args.workers)
    print(f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after ({os.cpu_count()} cores)")
    report(Counter(exercise_of(r) for r in requests), ours, theirs, fixed)
    return 0


def report(runs: Counter, ours: Counter, theirs: Counter, fixed: float) -> None:
    print(f"{'exercise':<10}{'runs':>6}{'reference':>12}{'torch.nn':>11}   CPU, in one warm process")
    for exercise in sorted(runs):
        print(f"{exercise:<10}{runs[exercise]:>6}{1000 * ours[exercise]:>10.1f} ms{1000 * theirs[exercise]:>8.1f} ms")
    bodies = sum(ours.values())
    print(f"{'all':<10}{sum(runs.values()):>6}{1000 * bodies:>10.1f} ms{1000 * sum(theirs.values()):>8.1f} ms")
    print(f"a worker started, asked one small scenario and stopped: {1000 * fixed:.1f} ms of CPU, "
          f"{len(runs)} per submission: {len(runs) * fixed:.2f} s")
    floor = bodies + len(runs) * fixed
    print(f"floor per correct submission: {floor:.2f} s of CPU; the class of {CLASS} on {CORES} cores "
          f"at that floor: {CLASS * floor / CORES:.0f} s, with nothing compared, searched or recorded")


if __name__ == "__main__":
    sys.exit(main())
