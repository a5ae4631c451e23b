"""The course's points rule, computed from the work each exercise asks for.

The rule, in one sentence: an exercise is worth 100 times the mean of its share of
the course's solution regions and its share of the course's solution lines,
rounded to whole points by largest remainder so that the course sums to 100.

Regions count the things a student writes (each a body the lesson asks for),
lines count how much there is to write; either alone is skewed (05's nineteen
regions are mostly one-liners, 06's nine hold the most code of the course), and
their mean is not. The capstone (09) is weighed by the same rule, with no bonus
for bringing the course together: it is graded with the student's whole package,
so a bug in an earlier exercise already costs points there and again in the
capstone, and a heavier capstone would charge that bug twice over.

Usage::

    .venv/bin/python scripts/points.py           # each exercise's size, the rule's points, course.yaml's
    .venv/bin/python scripts/points.py --check   # exit status 1 if course.yaml's points differ from the rule

``tests/test_sizes.py`` checks, in every ``make test``, that ``course.yaml``
gives the rule's points.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from modlab.course import load_course  # noqa: E402
from modlab.instructor.sizes import ExerciseSize, exercise_sizes  # noqa: E402

TOTAL = 100


def rule_points(sizes: list[ExerciseSize], total: int = TOTAL) -> dict[str, int]:
    """The points the rule gives each exercise, by id.

    Args:
        sizes: every exercise of the course, measured (``exercise_sizes``).
        total: what the course sums to.

    Returns:
        ``{exercise id: whole points}``, summing to ``total``.

    Example::

        rule_points(exercise_sizes(course))   # {'01': 3, '02': 13, ...}
    """
    regions = sum(size.regions for size in sizes)
    lines = sum(size.solution_lines for size in sizes)
    shares = {size.exercise.id: (size.regions / regions + size.solution_lines / lines) / 2 for size in sizes}
    return largest_remainder(shares, total)


def largest_remainder(shares: dict[str, float], total: int) -> dict[str, int]:
    """Whole numbers summing to ``total``, in proportion to ``shares``: each gets
    the whole part of its exact amount, then the largest fractional parts get one
    more each until the total is reached (ties go to the earlier key).

    Example::

        largest_remainder({"a": 0.5, "b": 0.25, "c": 0.25}, 10)   # {'a': 5, 'b': 3, 'c': 2}
    """
    scale = total / sum(shares.values())
    exact = {key: share * scale for key, share in shares.items()}
    whole = {key: math.floor(amount) for key, amount in exact.items()}
    by_remainder = sorted(exact, key=lambda key: whole[key] - exact[key])  # stable: ties keep their order
    for key in by_remainder[:total - sum(whole.values())]:
        whole[key] += 1
    return whole


def table(sizes: list[ExerciseSize], points: dict[str, int]) -> str:
    """Each exercise's size, the rule's points and course.yaml's, as Markdown."""
    rows = ["| exercise | regions | solution lines | stub lines | rule | course.yaml |", "|---|---:|---:|---:|---:|---:|"]
    rows += [f"| {size.exercise.name} | {size.regions} | {size.solution_lines} | {size.stub_lines} "
             f"| {points[size.exercise.id]} | {size.exercise.points:g} |" for size in sizes]
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit status 1 if course.yaml differs from the rule")
    args = parser.parse_args()
    course = load_course(ROOT / "course.yaml")
    sizes = exercise_sizes(course)
    points = rule_points(sizes)
    print(table(sizes, points))
    differ = [e.id for e in course.exercises if e.points != points[e.id]]
    if differ:
        print(f"course.yaml differs from the rule for exercise(s) {', '.join(differ)}", file=sys.stderr)
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
