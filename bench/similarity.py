"""`modlab similarity` on a generated class: the time of each stage, and what it caught.

    .venv/bin/python bench/similarity.py                  # 200 students, every exercise, -j 2
    .venv/bin/python bench/similarity.py --students 40    # a quick run

The class comes from tests/similarity_class.py's `large_class`: independent
students whose walk.py and state.py mix three separately written
implementations function by function and whose other files are the
reference, each file with lines of its own added; 5 % of the students copy
an exercise from another student under a random disguise (renamed
variables, reformatted, reordered functions, added comments, or all four),
and 10 % hand in the stub. It is written in the student-folder layout.

Printed: seconds per stage (read, tokenise, fingerprint, pairs, pages) and
in total, the CPU time of all processes (which other work on the machine
does not inflate as much as the wall time), the pairs compared, and the copies caught and the false flags
against the planted copies. Only in walk.py and state.py do independent
students write code of their own; in the other exercises they all share the
reference (with lines added), so flags there among independent students are
copies of the reference, shown but not counted.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from modlab.course import load_course  # noqa: E402
from modlab.instructor.similarity import compare_class, write_pages  # noqa: E402
from similarity_class import IMPLEMENTATIONS, large_class, write_class  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2, help="tokenising processes (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="keep the class and the pages here (default: a temporary folder)")
    args = parser.parse_args()
    course = load_course(ROOT / "course.yaml")
    work = args.workdir or Path(tempfile.mkdtemp(prefix="modlab-similarity-"))
    students, planted = large_class(course, args.students, args.seed)
    write_class(course, work / "class", students)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; class of {len(students)} "
          f"students, {len(course.exercises)} exercises, {len(planted)} copied pairs planted; work folder {work}")

    stages: dict[str, float] = {}
    cpu = cpu_seconds()
    started = time.perf_counter()
    results = compare_class(course, work / "class", jobs=args.jobs, stages=stages)
    pages = time.perf_counter()
    write_pages(course, results, work / "similarity")
    stages["pages"] = time.perf_counter() - pages
    total = time.perf_counter() - started

    for stage, seconds in stages.items():
        print(f"{stage:<12} {seconds:6.2f} s")
    print(f"{'total':<12} {total:6.2f} s  (with -j {args.jobs}); CPU time, all processes: {cpu_seconds() - cpu:.1f} s; "
          f"load average now {os.getloadavg()[0]:.1f}")
    print_detection(results, planted)
    return 0


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the tokenising workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def print_detection(results, planted: set) -> None:
    """Copies caught and false flags, per exercise; in all, over the exercises whose
    independent students wrote their own code (elsewhere they share the reference)."""
    caught = false = pairs = copies = 0
    for result in results:
        flagged = {(result.exercise.id, frozenset((p.first, p.second))) for p in result.flagged}
        mine = {p for p in planted if p[0] == result.exercise.id}
        count = len(result.compared)
        pairs += count * (count - 1) // 2
        own_work = set(result.exercise.files) <= set(IMPLEMENTATIONS)
        if own_work:
            caught, false, copies = caught + len(flagged & mine), false + len(flagged - mine), copies + len(mine)
        print(f"exercise {result.exercise.id}: threshold {100 * result.threshold.value:.0f}%, "
              f"{len(flagged & mine)}/{len(mine)} copies caught, {len(flagged - mine)} false flags"
              + ("" if own_work else " (independent students: the reference with lines added)"))
    print(f"{pairs} pairs compared; where students wrote their own code: {caught}/{copies} copies caught, "
          f"{false} false flags")


if __name__ == "__main__":
    sys.exit(main())
