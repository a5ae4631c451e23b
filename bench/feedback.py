"""Precision and recall of the feedback on the labelled buggy submissions, per exercise.

Each labelled bug (``graders/*/variants.yaml``, tuned with the detectors, and
``graders/*/student_bugs.yaml``, written blind to them) embodies known
misconceptions, or none. This grades every one (its own exercise, grafted on
the reference) and prints, per exercise and set: how many bugs got every one of
their misconceptions named (recall), how many got a hint they do not embody
(wrong hints, against precision), and the same for the public checks alone,
which is what ``modlab check`` shows a student. ``tests/test_buggy_variants.py``
asserts 0 wrong hints (and 100 % on variants.yaml); docs/misconceptions.md
gives the same per catalog entry::

    .venv/bin/python bench/feedback.py [--exercise 03]
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from modlab.course import load_course  # noqa: E402
from modlab.engine import process_memory  # noqa: E402
from modlab.instructor.measured import grade_bug, labelled_bugs  # noqa: E402
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
    for labelled_set, variant in labelled_bugs(course):
        if args.exercise and variant.exercise not in args.exercise or variant.cuda and not cuda:
            continue
        result = grade_bug(course, variant)
        want = set(variant.misconceptions)
        row = rows[f"{variant.exercise} {labelled_set.removesuffix('.yaml')}"]
        row["variants"] += 1
        for prefix, tests in (("", result.tests), ("public ", [t for t in result.tests if t.public])):
            shown = named(tests)
            row[prefix + "named"] += want <= shown
            row[prefix + "wrong"] += bool(shown - want)
            if shown - want:
                wrong_hints.append(f"{variant.exercise} {variant.name}: {sorted(shown - want)} ({prefix or 'all '}checks)")
    print(f"{'exercise, set':<24}{'variants':>9}{'named':>8}{'wrong':>8}{'public named':>14}{'public wrong':>14}")
    total = defaultdict(int)
    for exercise in sorted(rows):
        row = rows[exercise]
        print(f"{exercise:<24}{row['variants']:>9}{row['named']:>8}{row['wrong']:>8}{row['public named']:>14}"
              f"{row['public wrong']:>14}")
        for key, value in row.items():
            total[key] += value
    print(f"{'all':<24}{total['variants']:>9}{total['named']:>8}{total['wrong']:>8}{total['public named']:>14}"
          f"{total['public wrong']:>14}")
    if total["variants"]:
        print(f"recall {100 * total['named'] / total['variants']:.1f} % (public checks "
              f"{100 * total['public named'] / total['variants']:.1f} %), variants with a wrong hint: {total['wrong']}"
              f" ({'CUDA variants skipped: no CUDA' if not cuda else 'CUDA variants included'}) "
              f"in {time.monotonic() - started:.0f} s")
    for line in wrong_hints:
        print("wrong hint:", line)
    return 0 if total["wrong"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
