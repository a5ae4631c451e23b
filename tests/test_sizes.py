"""Every exercise fits a sitting, and its points follow the work.

An exercise asks for at most ``MAX_REGIONS`` solution regions, in stub files of
at most ``MAX_STUB_LINES`` lines in all, so that no exercise of ``course.yaml``
grows past what a student writes and reads in one sitting unnoticed; and
``course.yaml`` gives each exercise the points of the rule ``scripts/points.py``
states and computes.
"""
import dataclasses
import sys
import textwrap

import pytest

from modlab.course import load_course
from modlab.instructor.sizes import ExerciseSize, exercise_sizes, solution_regions

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from points import TOTAL, largest_remainder, rule_points  # noqa: E402

# A sitting: about twenty bodies to write, each tied to an idea its lesson names,
# in files a student reads through once (the docstrings are most of their lines).
MAX_REGIONS = 20
MAX_STUB_LINES = 350

COURSE = load_course(ROOT / "course.yaml")


def beyond_a_sitting(size: ExerciseSize) -> list[str]:
    """What makes an exercise too big for a sitting, in words; empty when it fits."""
    found = []
    if size.regions > MAX_REGIONS:
        found.append(f"{size.regions} solution regions (at most {MAX_REGIONS})")
    if size.stub_lines > MAX_STUB_LINES:
        found.append(f"stub files of {size.stub_lines} lines (at most {MAX_STUB_LINES})")
    return found


@pytest.fixture(scope="module")
def sizes():
    return exercise_sizes(COURSE)


@pytest.mark.parametrize("exercise", COURSE.exercises, ids=lambda e: e.name)
def test_every_exercise_fits_a_sitting(sizes, exercise):
    size = next(size for size in sizes if size.exercise == exercise)
    assert beyond_a_sitting(size) == [], f"exercise {exercise.id} asks too much: move its long tail into given code"


def test_a_big_exercise_is_found():
    size = ExerciseSize(COURSE.exercises[0], regions=MAX_REGIONS + 1, solution_lines=1, stub_lines=MAX_STUB_LINES + 1)
    assert beyond_a_sitting(size) == [f"{MAX_REGIONS + 1} solution regions (at most {MAX_REGIONS})",
                                      f"stub files of {MAX_STUB_LINES + 1} lines (at most {MAX_STUB_LINES})"]
    assert beyond_a_sitting(dataclasses.replace(size, regions=MAX_REGIONS, stub_lines=MAX_STUB_LINES)) == []


def test_course_yaml_gives_the_rules_points(sizes):
    expected = rule_points(sizes)
    given = {exercise.id: exercise.points for exercise in COURSE.exercises}
    assert given == expected, "run `.venv/bin/python scripts/points.py` and put its points in course.yaml"
    assert sum(given.values()) == TOTAL


def test_an_exercise_is_measured_by_its_files_regions_code_and_stub(tmp_path):
    """Two files, three regions of two lines of code each (blank and comment lines not counted), and
    stubs of six and three lines (each region one line of `raise`)."""
    solutions = tmp_path / "solutions" / "pkg"
    solutions.mkdir(parents=True)
    (tmp_path / "course.yaml").write_text(textwrap.dedent("""\
        course: {id: tiny, title: Tiny, package: pkg}
        exercises:
          - {id: "01", slug: first, title: First, points: 1, files: [a.py, b.py]}
          - {id: "02", slug: second, title: Second, points: 1, files: [c.py]}
        """))
    region = "    ### BEGIN SOLUTION\n    x = 1\n\n    # why\n    return x\n    ### END SOLUTION\n"
    (solutions / "a.py").write_text(f"def f():\n{region}\n\ndef g():\n{region}")
    (solutions / "b.py").write_text(f'def h():\n    """Doc."""\n{region}')
    (solutions / "c.py").write_text("def given():\n    return 2\n")
    first, second = exercise_sizes(load_course(tmp_path / "course.yaml"))
    assert (first.regions, first.solution_lines, first.stub_lines) == (3, 6, 6 + 3)
    assert (second.regions, second.solution_lines, second.stub_lines) == (0, 0, 2)


def test_solution_regions_holds_each_regions_lines():
    source = "def f():\n    ### BEGIN SOLUTION\n    a\n    ### END SOLUTION\n    b\n    ### BEGIN SOLUTION\n    ### END SOLUTION\n"
    assert solution_regions(source) == [["    a"], []]


def test_the_points_rule_weighs_regions_and_lines_alike():
    """Two exercises: one with all the regions, the other with all the lines, are worth the same."""
    regions_only = ExerciseSize(COURSE.exercises[0], regions=4, solution_lines=0, stub_lines=0)
    lines_only = ExerciseSize(COURSE.exercises[1], regions=0, solution_lines=40, stub_lines=0)
    assert rule_points([regions_only, lines_only]) == {COURSE.exercises[0].id: 50, COURSE.exercises[1].id: 50}


def test_largest_remainder_sums_to_the_total_and_gives_the_largest_fractions_the_rest():
    assert largest_remainder({"a": 0.5, "b": 0.25, "c": 0.25}, 10) == {"a": 5, "b": 3, "c": 2}
    thirds = largest_remainder({"a": 1, "b": 1, "c": 1}, 100)
    assert thirds == {"a": 34, "b": 33, "c": 33}
    assert largest_remainder({"a": 0.46, "b": 0.27, "c": 0.27}, 10) == {"a": 4, "b": 3, "c": 3}
