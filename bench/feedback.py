"""Precision and recall of the feedback on the labelled buggy submissions.

Each labelled variant (``graders/*/variants.yaml``) embodies known misconceptions. This grades
every one (its own exercise, grafted on the reference) and prints, per
exercise: how many variants got every one of their misconceptions named
(recall), how many got a hint they do not embody (wrong hints, against
precision), and the same for the public checks alone, which is what
``modlab check`` shows a student. ``tests/test_buggy_variants.py`` asserts
100 % and 0 wrong hints; this script prints the figures::

    .venv/bin/python bench/feedback.py [--exercise 03]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from modlab.course import load_course  # noqa: E402
from modlab.engine import GradeOptions, grade_exercise, process_memory  # noqa: E402
from modlab.instructor.variants import load_variants, variant_package  # noqa: E402
from modlab.records import FAILED  # noqa: E402


def named(tests) -> set[str]:
    return {mid for t in tests if t.outcome == FAILED and t.failure for mid in t.failure.misconception_ids}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercise", "-e", action="append", help="only this exercise (repeatable)")
    args = parser.parse_args()
    course = load_course(ROOT / "course.yaml")
    cuda = process_memory().oracle(course).cuda
    rows = defaultdict(lambda: {"variants": 0, "named": 0, "wrong": 0, "public named": 0, "public wrong": 0})
    wrong_hints, started = [], time.monotonic()
    for variant in load_variants(course):
        if args.exercise and variant.exercise not in args.exercise or variant.cuda and not cuda:
            continue
        with tempfile.TemporaryDirectory() as folder:
            package = variant_package(course, variant, Path(folder))
            result = grade_exercise(course, course.exercise(variant.exercise), package,
                                    GradeOptions(device="cuda" if variant.cuda else "cpu"))
        want = set(variant.misconceptions)
        row = rows[variant.exercise]
        row["variants"] += 1
        for prefix, tests in (("", result.tests), ("public ", [t for t in result.tests if t.public])):
            shown = named(tests)
            row[prefix + "named"] += want <= shown
            row[prefix + "wrong"] += bool(shown - want)
            if shown - want:
                wrong_hints.append(f"{variant.exercise} {variant.name}: {sorted(shown - want)} ({prefix or 'all '}checks)")
    print(f"{'ex':<4}{'variants':>9}{'named':>8}{'wrong':>8}{'public named':>14}{'public wrong':>14}")
    total = defaultdict(int)
    for exercise in sorted(rows):
        row = rows[exercise]
        print(f"{exercise:<4}{row['variants']:>9}{row['named']:>8}{row['wrong']:>8}{row['public named']:>14}"
              f"{row['public wrong']:>14}")
        for key, value in row.items():
            total[key] += value
    print(f"{'all':<4}{total['variants']:>9}{total['named']:>8}{total['wrong']:>8}{total['public named']:>14}"
          f"{total['public wrong']:>14}")
    if total["variants"]:
        print(f"recall {100 * total['named'] / total['variants']:.1f} % (public checks "
              f"{100 * total['public named'] / total['variants']:.1f} %), variants with a wrong hint: {total['wrong']}"
              f" ({'CUDA variants skipped: no CUDA' if not cuda else 'CUDA variants included'}) "
              f"in {time.monotonic() - started:.0f} s")
    for line in wrong_hints:
        print("wrong hint:", line)
    return 0 if total["named"] == total["variants"] and total["wrong"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
