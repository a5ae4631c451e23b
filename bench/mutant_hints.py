"""Hints on bugs nobody labelled: every mutant of the reference's solution regions, graded with feedback.

The labelled bugs (``graders/*/variants.yaml``, ``student_bugs.yaml``) say which
misconception each embodies, so a wrong hint on them fails the tests. Mutants
(``bench/mutants.py``: one small change in the code a student writes) carry no
label, so their hints are audited by hand: this grades each mutant in its own
exercise, prints how many are caught and how many get a hint, per exercise,
and draws a random sample of the hinted ones (the seed printed) with, for each,
the change, the failing check's facts and the hint, for a reader to judge
whether the hint names the mutant's cause. ``docs/mutant-audit.md`` records
the last audit::

    .venv/bin/python bench/mutant_hints.py                      # every mutant; audit 50 hinted (seed 0)
    .venv/bin/python bench/mutant_hints.py --audit 60 --seed 7 --exercise 03
    .venv/bin/python bench/mutant_hints.py --graded /tmp/hints.json   # audit again, without grading
"""
from __future__ import annotations

import argparse
import json
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

from bench.mutants import mutants_of  # noqa: E402
from modlab.course import load_course  # noqa: E402
from modlab.engine import GradeOptions, grade_exercise  # noqa: E402
from modlab.formats.feedback import feedback_line  # noqa: E402
from modlab.grading.catalog import course_catalog  # noqa: E402
from modlab.grading.loader import load_catalog  # noqa: E402
from modlab.instructor.variants import reference_package  # noqa: E402
from modlab.records import FAILED  # noqa: E402


def grade_mutants(course, exercises: list[str] | None, record: Path) -> list[dict]:
    """Each mutant of the chosen exercises graded: where, the change, its score, and each failing check's
    feedback line with the ids it names. Written to ``record`` as it goes (a long run keeps what it did)."""
    graded, started = [], time.monotonic()
    todo = [(e, m) for e in course.exercises if not exercises or e.id in exercises
            for name in e.files for m in mutants_of(course.solutions / name)]
    with tempfile.TemporaryDirectory(prefix="modlab-mutant-hints-") as folder:
        for index, (exercise, mutant) in enumerate(todo):
            package = reference_package(course, Path(folder) / str(index), {mutant.file: mutant.text})
            result = grade_exercise(course, exercise, package, GradeOptions(device="cpu"))
            failed = [t for t in result.tests if t.outcome == FAILED]
            graded.append({"exercise": exercise.id, "where": mutant.where, "change": mutant.change,
                           "score": result.score, "max": result.max_score, "error": result.error,
                           "failed": [{"check": t.name, "feedback": feedback_line(t),
                                       "hints": list(t.failure.misconception_ids) if t.failure else []}
                                      for t in failed]})
            if index % 25 == 24:
                print(f"  {index + 1}/{len(todo)} graded in {time.monotonic() - started:.0f} s", flush=True)
                record.write_text(json.dumps(graded, indent=1))
    record.write_text(json.dumps(graded, indent=1))
    return graded


def hints_of(mutant: dict) -> set[str]:
    return {mid for check in mutant["failed"] for mid in check["hints"]}


def summary(graded: list[dict]) -> None:
    rows = Counter(), Counter(), Counter()
    for mutant in graded:
        caught = mutant["score"] < mutant["max"] or bool(mutant["error"])
        for row, counts in zip(rows, (True, caught, bool(hints_of(mutant)))):
            row[mutant["exercise"]] += counts
    print(f"{'exercise':<10}{'mutants':>9}{'caught':>9}{'hinted':>9}")
    for exercise in sorted(rows[0]):
        print(f"{exercise:<10}" + "".join(f"{row[exercise]:>9}" for row in rows))
    print(f"{'all':<10}" + "".join(f"{sum(row.values()):>9}" for row in rows))


def audit_sheet(course, graded: list[dict], size: int, seed: int) -> None:
    """A random sample of the hinted mutants, each with what a reader needs to judge its hints."""
    texts = {entry.id: entry.text for entry in course_catalog(course.graders)}
    hinted = [m for m in graded if hints_of(m)]
    sample = random.Random(seed).sample(hinted, min(size, len(hinted)))
    print(f"\naudit sheet: {len(sample)} of {len(hinted)} hinted mutants, seed {seed}")
    for number, mutant in enumerate(sample, 1):
        print(f"\n[{number}] {mutant['exercise']} {mutant['where']}: {mutant['change']}")
        for check in mutant["failed"]:
            print(f"    {check['feedback']}" + (f"  HINTS {check['hints']}" if check["hints"] else ""))
        for mid in sorted(hints_of(mutant)):
            print(f"    hint {mid}: {texts.get(mid, '?')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercise", "-e", action="append", help="only this exercise's mutants (repeatable)")
    parser.add_argument("--audit", type=int, default=50, help="hinted mutants drawn for the audit sheet (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="the audit sample's seed (default 0)")
    parser.add_argument("--record", type=Path, default=Path(tempfile.gettempdir()) / "modlab-mutant-hints.json",
                        help="where the graded mutants are written (default: in the temporary folder)")
    parser.add_argument("--graded", type=Path, help="read graded mutants from this record instead of grading")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # torch's, for mutants that provoke them
    course = load_course(ROOT / "course.yaml")
    if args.graded:
        graded = json.loads(args.graded.read_text())
    else:
        print(f"load average {os.getloadavg()[0]:.2f} before ({os.cpu_count()} cores)")
        started = time.monotonic()
        graded = grade_mutants(course, args.exercise, args.record)
        print(f"graded in {time.monotonic() - started:.0f} s; load average {os.getloadavg()[0]:.2f} after; "
              f"record {args.record}")
    summary(graded)
    load_catalog(course.graders)
    audit_sheet(course, graded, args.audit, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
