"""What the graders' random searches buy: bugs caught, and CPU, at fewer Hypothesis examples.

Every property check draws 25 specs (``examples`` of ``@scenario``). This grades
the same sample of mutants of the reference (``bench/mutants.py``: one small
change to the code a student writes) with each check drawing that many, and
fewer, and prints for each setting how many mutants lose points in their own
exercise, which ones only the full search catches, and the CPU time of
grading the reference once (all processes, counted by the kernel in a cgroup
v2 where one is writable) and the mutants. A mutant that loses no points at
25 may be equivalent to the reference; the settings are compared on the same
mutants.

    .venv/bin/python bench/grader_strength.py                        # 20 mutants per exercise; 1, 0.5, 0.2
    .venv/bin/python bench/grader_strength.py --per-exercise 40 --scales 1,0.5
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import CpuAccount  # noqa: E402
from bench.mutants import Mutant, mutants_of  # noqa: E402
from modlab import engine  # noqa: E402
from modlab.course import load_course  # noqa: E402
from modlab.grading.loader import load_scenarios  # noqa: E402
from modlab.grading.scenario import REGISTRY  # noqa: E402
from modlab.instructor.variants import reference_package  # noqa: E402

FULL: dict[str, int] = {}  # each property check's own examples, by scenario key, as its grader sets them


def sample(course, per_exercise: int, seed: int) -> list[tuple[str, Mutant]]:
    """(exercise id, mutant): up to ``per_exercise`` mutants of each exercise's files, drawn at random."""
    draw = random.Random(seed)
    chosen = []
    for exercise in course.exercises:
        mutants = [m for name in exercise.files for m in mutants_of(course.solutions / name)]
        chosen += [(exercise.id, m) for m in draw.sample(mutants, min(per_exercise, len(mutants)))]
    return chosen


def draw_at(scale: float) -> None:
    """Every property check draws ``scale`` of its full examples (at least one); searches start afresh."""
    # Scenarios are frozen, as graders declare them; only this process's
    # searches read the setting, so the bench may change it here alone.
    for key, scenario in REGISTRY.items():
        if key in FULL:
            object.__setattr__(scenario, "examples", max(1, round(FULL[key] * scale)))
    # What earlier searches drew or recorded was drawn at another setting.
    memory = engine.process_memory()
    memory.passing_specs.clear()
    memory.failing_searches.clear()


def grade_at(course, scale: float, mutants: list, folder: Path, account: CpuAccount) -> dict:
    """Grade the reference twice, as a batch warms up and as it grades a correct
    submission after that (the timed one), then each mutant's own exercise."""
    draw_at(scale)
    options = engine.GradeOptions(device="cpu")
    engine.grade_submission(course, course.solutions, options=options)
    before = account.usage()
    reference = engine.grade_submission(course, course.solutions, options=options)
    between = account.usage()
    caught, started = set(), time.monotonic()
    for index, (exercise_id, mutant) in enumerate(mutants):
        package = reference_package(course, folder / f"{scale}-{index}", {mutant.file: mutant.text})
        result = engine.grade_exercise(course, course.exercise(exercise_id), package, options)
        if result.failed:
            caught.add(index)
    after = account.usage()
    print(f"  x{scale:g}: {len(caught)} of {len(mutants)} mutants caught", flush=True)
    return {"scale": scale, "caught": caught, "reference_failed": any(r.failed for r in reference.exercises),
            "reference_cpu": None if before is None else between - before,
            "mutants_cpu": None if before is None else after - between, "mutants_wall": time.monotonic() - started}


def report(mutants: list, runs: list[dict]) -> None:
    per_exercise = Counter(exercise for exercise, _ in mutants)
    print(f"\n{len(mutants)} mutants ({', '.join(f'{e}: {n}' for e, n in sorted(per_exercise.items()))})")
    print(f"{'examples':>10}{'caught':>10}{'reference CPU':>16}{'mutants CPU':>14}{'mutants wall':>15}")
    for run in runs:
        cpu = "n/a" if run["reference_cpu"] is None else f"{run['reference_cpu']:.2f} s"
        mutants_cpu = "n/a" if run["mutants_cpu"] is None else f"{run['mutants_cpu']:.1f} s"
        marks = "  (the reference lost points!)" if run["reference_failed"] else ""
        print(f"{'x' + format(run['scale'], 'g'):>10}{len(run['caught']):>10}{cpu:>16}{mutants_cpu:>14}"
              f"{run['mutants_wall']:>13.1f} s{marks}")
    full = runs[0]
    survivors = [index for index in range(len(mutants)) if all(index not in run["caught"] for run in runs)]
    listed(f"caught at no setting: {len(survivors)} (equivalent to the reference, or missed by the graders)",
           mutants, survivors)
    for run in runs[1:]:
        lost = sorted(full["caught"] - run["caught"])
        listed(f"caught at x{full['scale']:g}, missed at x{run['scale']:g}: {len(lost)}", mutants, lost)


def listed(heading: str, mutants: list, indices: list[int]) -> None:
    print(heading)
    for index in indices:
        exercise, mutant = mutants[index]
        print(f"  {exercise} {mutant.where}: {mutant.change}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-exercise", type=int, default=20, help="mutants drawn per exercise (default 20)")
    parser.add_argument("--scales", type=lambda text: [float(s) for s in text.split(",")], default=[1, 0.5, 0.2],
                        help="shares of each check's examples, the first the reference setting (default 1,0.5,0.2)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    account = CpuAccount()
    account.join()  # this process: the zygote and the workers it starts are counted with it
    warnings.simplefilter("ignore")  # torch's, for mutants that provoke them
    course = load_course(ROOT / "course.yaml")
    for exercise in course.exercises:
        load_scenarios(course, exercise)
    FULL.update({key: s.examples for key, s in REGISTRY.items() if s.specs is not None})
    mutants = sample(course, args.per_exercise, args.seed)
    print(f"load average {os.getloadavg()[0]:.2f} before ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory(prefix="modlab-mutants-") as folder:
        runs = [grade_at(course, scale, mutants, Path(folder), account) for scale in args.scales]
    print(f"load average {os.getloadavg()[0]:.2f} after")
    report(mutants, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
