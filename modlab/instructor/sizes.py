"""How much an exercise asks of a student: its solution regions, the code in them,
and the stub files the student opens.

An exercise should fit a sitting. These are the measures a course holds its
exercises to (a test of the course asserts its limits) and that its points
can follow (``scripts/points.py``)::

    for size in exercise_sizes(course):
        print(size.exercise.id, size.regions, size.solution_lines, size.stub_lines)
"""
from __future__ import annotations

from dataclasses import dataclass

from modlab.course import Course, Exercise
from modlab.instructor.build import BEGIN, END, stub_sources


@dataclass(frozen=True)
class ExerciseSize:
    """What one exercise asks for.

    Attributes:
        exercise: the exercise measured.
        regions: its solution regions: the bodies the student fills in.
        solution_lines: the lines of code in them (blank and comment-only lines not counted).
        stub_lines: the lines of its stub files, what the student opens and reads.
    """

    exercise: Exercise
    regions: int
    solution_lines: int
    stub_lines: int


def exercise_sizes(course: Course) -> list[ExerciseSize]:
    """The size of each exercise of ``course``, in the course's order.

    Args:
        course: the course; its reference and the stubs built from it are measured.

    Returns:
        One :class:`ExerciseSize` per exercise of ``course.yaml``.

    Raises:
        BuildError: a reference file whose regions cannot be made into a stub.

    Example::

        [(s.exercise.id, s.regions) for s in exercise_sizes(course)]   # [('10', 4)]
    """
    stubs = stub_sources(course)
    sizes = []
    for exercise in course.exercises:
        regions = [region for name in exercise.files
                   for region in solution_regions((course.solutions / name).read_text(encoding="utf-8"))]
        sizes.append(ExerciseSize(exercise, len(regions), sum(_code_lines(region) for region in regions),
                                  sum(len(stubs[name].splitlines()) for name in exercise.files)))
    return sizes


def solution_regions(source: str) -> list[list[str]]:
    """The lines inside each ``### BEGIN SOLUTION`` / ``### END SOLUTION`` pair of a source.

    Args:
        source: a reference file's text, its markers balanced (``modlab build`` checks them).

    Returns:
        One list of lines per region, in the file's order, markers left out.

    Example::

        solution_regions("def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION\\n")
        # [['    return 1']]
    """
    regions: list[list[str]] = []
    inside = False
    for line in source.splitlines():
        marker = line.strip()
        if marker in (BEGIN, END):
            inside = marker == BEGIN
            if inside:
                regions.append([])
        elif inside:
            regions[-1].append(line)
    return regions


def _code_lines(region: list[str]) -> int:
    """The lines of a region that hold code: blank and comment-only lines do not count."""
    return sum(1 for line in region if line.strip() and not line.strip().startswith("#"))
