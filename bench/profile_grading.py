"""Where one submission's grading time goes, stage by stage.

Grades the reference once to warm up (as ``modlab grade CLASS`` does before
it forks its grading processes), then grades a few submissions in this one
process while timing each stage with wrappers around the functions that do it:

- torch.nn side: asking the oracle, for what it does not remember yet;
- submission side: starting its worker (fork, confinement, loading the
  package), and waiting for each answer (its worker running the scenario,
  encoding the observation, the pipe);
- checking answers: the protocol and tamper checks of each answer;
- comparison: comparing the two observations;
- Hypothesis: drawing and shrinking specs, beyond the comparisons it asks for;
- records: failure records (evidence, misconceptions, explanations) and scoring.

    .venv/bin/python bench/profile_grading.py                # the reference, a stub, two buggy variants
    .venv/bin/python bench/profile_grading.py --repeat 5

Prints seconds per submission and the share of each stage. The stages nest
(the oracle is asked inside a comparison's turn), so each figure is the time
inside that stage only, and "other" is the rest of the grading's wall time.
Also the CPU time per submission of every process (this one, its zygote, the
workers), counted by the kernel in a cgroup v2 where one is writable: unlike
wall time, it hardly moves with what else the machine is doing. The load
average before and after the timed grading says how much else that was.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import CpuAccount  # noqa: E402
from modlab import engine  # noqa: E402
from modlab.engine import exercise, oracle, scoring, search, verdict  # noqa: E402
from modlab.batch.grading import Batch  # noqa: E402
from modlab.course import load_course  # noqa: E402
from modlab.grading import compare as comparison  # noqa: E402
from modlab.instructor.variants import load_variants, variant_package  # noqa: E402
from modlab.isolation import process  # noqa: E402

SPENT: dict[str, float] = defaultdict(float)
_inside: list[str] = []


def timed(stage: str, function):
    """``function``, counting its time to ``stage`` (minus the stages it calls)."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        started, _inside[:] = time.perf_counter(), _inside + [stage]
        nested_before = SPENT["_nested"]
        try:
            return function(*args, **kwargs)
        finally:
            _inside.pop()
            elapsed = time.perf_counter() - started
            inner = SPENT["_nested"] - nested_before
            SPENT[stage] += elapsed - inner
            SPENT["_nested"] = nested_before + elapsed

    return wrapper


def instrument() -> None:
    oracle.Oracle.observe_many = timed("torch.nn side", oracle.Oracle.observe_many)
    process.WorkerProcess._ensure_started = timed("submission: worker start", process.WorkerProcess._ensure_started)
    process.WorkerProcess._receive = timed("submission: answers (run, encode, pipe)", process.WorkerProcess._receive)
    process.WorkerProcess._checked = timed("checking answers", process.WorkerProcess._checked)
    process.WorkerProcess.close = timed("submission: worker stop", process.WorkerProcess.close)
    verdict.compare = timed("comparison", comparison.compare)
    exercise.search = timed("Hypothesis", search.search)
    exercise.failure_record = timed("records", verdict.failure_record)
    exercise.scored = timed("records", scoring.scored)


def submissions(course, folder: Path) -> list[tuple[str, Path]]:
    """The reference, the stubs, and two buggy variants (a walk and a state dict)."""
    chosen = [v for v in load_variants(course) if v.name in ("tied_weights_counted_twice",
                                                                             "load_rebinds_parameters")]
    found = [("reference", course.solutions), ("stubs", ROOT / "exercises" / course.package)]
    found += [(v.name, variant_package(course, v, folder / v.name)) for v in chosen]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="grade each submission this many times (default 3)")
    args = parser.parse_args()
    account = CpuAccount()
    account.join()  # this process: the zygote and the workers it starts are counted with it
    course = load_course(ROOT / "course.yaml")
    options = engine.GradeOptions(device="cpu")
    batch = Batch(course, course.exercises, options)
    started = time.perf_counter()
    batch.warm()
    print(f"warm-up (the reference once, oracle and zygote cold): {time.perf_counter() - started:.2f} s")
    instrument()
    with tempfile.TemporaryDirectory() as folder:
        graded = submissions(course, Path(folder))
        SPENT.clear()
        load_before = os.getloadavg()[0]
        started, cpu_started, own_started = time.perf_counter(), account.usage(), time.process_time()
        for _ in range(args.repeat):
            for _, package in graded:
                engine.grade_submission(course, package, options=options)
        wall, cpu_used, own = time.perf_counter() - started, account.usage(), time.process_time() - own_started
    count = args.repeat * len(graded)
    stages = {stage: seconds for stage, seconds in SPENT.items() if not stage.startswith("_")}
    stages["other"] = wall - sum(stages.values())
    cpu = ""
    if cpu_used is not None:
        cpu = (f", CPU {(cpu_used - cpu_started) / count:.3f} s each (all processes: {own / count:.3f} s in the "
               f"grading process, {(cpu_used - cpu_started - own) / count:.3f} s in the zygote and the workers)")
    print(f"{count} submissions ({', '.join(name for name, _ in graded)}), {wall / count:.3f} s each{cpu}")
    print(f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after ({os.cpu_count()} cores)")
    for stage, seconds in sorted(stages.items(), key=lambda item: -item[1]):
        print(f"  {stage:<42} {seconds / count:7.3f} s  {100 * seconds / wall:5.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
