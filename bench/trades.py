"""What the two speed trades the course has not made would buy, on this machine.

``grade_class.py`` misses issue 17's targets, and ``bench/README.md`` names
two trades that would move toward them: property checks that draw fewer
specs, and one worker per submission instead of one per exercise. This
grades the reference with every check as it is, then measures:

- **by process**: a correct submission's CPU in the grading process, in the
  zygote, and in its nine workers (user and system time);
- **by worker layout**: the workers' own work, every request the reference's
  workers were asked, answered in nine forks of this process (one per
  exercise, each loading its exercise's package as a worker receives it) or
  in one fork loading each exercise's package in turn; and the same with
  only the first fifth of each property check's specs (scenarios asked more
  than five times), as if each check drew a fifth of its examples.

The forks are not confined, so they leave out what isolation costs each
worker (``floor.py``: about 27 ms); what they measure is what changes
between the layouts: each fresh process's own first run of the package.

    .venv/bin/python bench/trades.py
    .venv/bin/python bench/trades.py --submissions 10 --rounds 9
"""
from __future__ import annotations

import argparse
import gc
import marshal
import math
import os
import statistics
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.floor import asked_of_the_reference, exercise_of, reference_world  # noqa: E402
from bench.measure import CpuAccount  # noqa: E402
from modlab import engine  # noqa: E402
from modlab.batch.grading import Batch  # noqa: E402
from modlab.course import load_course  # noqa: E402
from modlab.isolation import worker  # noqa: E402
from modlab.isolation.process import _payload  # noqa: E402
from modlab.isolation.launcher import zygote  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def own_and_children_cpu(pid: int) -> tuple[float, float, float, float]:
    """utime, stime of ``pid`` itself, and of its children it has waited for (seconds)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return tuple(int(field) / TICKS for field in fields[11:15])


def by_process(course, options, account: CpuAccount, count: int) -> dict:
    """CPU seconds per correct submission: the grading process, the zygote, its workers."""
    engine.grade_submission(course, course.solutions, options=options)  # one more, not counted: the steady state is what a class pays
    pid = zygote().process.pid
    zygote_before, all_before, ours_before = own_and_children_cpu(pid), account.usage(), time.process_time()
    for _ in range(count):
        engine.grade_submission(course, course.solutions, options=options)
    zygote_after = own_and_children_cpu(pid)
    spent = [(after - before) / count for before, after in zip(zygote_before, zygote_after)]
    return {"grading process": (time.process_time() - ours_before) / count,
            "zygote": spent[0] + spent[1], "workers, user": spent[2], "workers, system": spent[3],
            "all": (account.usage() - all_before) / count if all_before is not None else math.nan}


def first_fifth(requests: list[dict]) -> list[dict]:
    """Each property check's first fifth of specs; every request of the other scenarios."""
    by_scenario = _grouped(requests, lambda request: request["scenario"])
    return [r for asked in by_scenario.values() for r in (asked if len(asked) <= 5 else asked[:math.ceil(len(asked) / 5)])]


def _grouped(requests: list[dict], key) -> dict[str, list[dict]]:
    grouped = defaultdict(list)
    for request in requests:
        grouped[key(request)].append(request)
    return grouped


class Layouts:
    """The reference's requests answered in forks of this process, one per exercise or one in all."""

    def __init__(self, course):
        self.package = course.package
        self.worlds = {e.id: _payload(reference_world(course, e)) for e in course.exercises}

    def nine_forks(self, requests: list[dict]) -> float:
        return sum(self._forked({exercise: asked}) for exercise, asked in _grouped(requests, exercise_of).items())

    def one_fork(self, requests: list[dict]) -> float:
        return self._forked(_grouped(requests, exercise_of))

    def _forked(self, asked_by_exercise: dict) -> float:
        """CPU seconds of a fork answering these requests, each exercise on its own package."""
        pid = os.fork()
        if pid == 0:
            for exercise, asked in sorted(asked_by_exercise.items()):
                self._forget_package()
                nn, _ = worker.load_world(marshal.loads(self.worlds[exercise]))
                for request in asked:
                    worker.answer(request, nn, self.package)
            os._exit(0)
        _, _, usage = os.wait4(pid, 0)
        return usage.ru_utime + usage.ru_stime

    def _forget_package(self) -> None:
        for name in [m for m in sys.modules if m == self.package or m.startswith(self.package + ".")]:
            del sys.modules[name]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=5, help="references graded for the split by process")
    parser.add_argument("--rounds", type=int, default=5, help="forks of each layout; the median is printed")
    args = parser.parse_args()
    account = CpuAccount()
    account.join()
    warnings.simplefilter("ignore")  # torch's, for scenarios that provoke them
    course = load_course(ROOT / "course.yaml")
    options = engine.GradeOptions(device="cpu")
    Batch(course, course.exercises, options).warm()
    load_before = os.getloadavg()[0]
    split = by_process(course, options, account, args.submissions)
    requests = asked_of_the_reference(course, options)
    layouts = Layouts(course)
    gc.collect()
    gc.freeze()  # as the zygote does: the forks' collectors leave this process's objects alone
    medians = {}
    for label, asked in (("every spec", requests), ("a fifth of each property's", first_fifth(requests))):
        for layout in ("nine_forks", "one_fork"):
            medians[label, len(asked), layout] = statistics.median(getattr(layouts, layout)(asked)
                                                                   for _ in range(args.rounds))
    print(f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after ({os.cpu_count()} cores)")
    print(f"a correct submission's CPU by process (mean of {args.submissions}):")
    for where, seconds in split.items():
        print(f"  {where:<18}{seconds:7.3f} s")
    print(f"the workers' own work (median of {args.rounds} rounds), CPU:")
    for (label, runs, layout), seconds in medians.items():
        print(f"  {label:<28}{runs:>4} runs  {layout.replace('_', ' '):<11}{seconds:7.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
