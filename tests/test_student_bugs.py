"""The student bugs (``graders/NN_slug/student_bugs.yaml``) are well formed, without grading them.

They were written and labelled without looking at the misconception detectors, so that the
detectors' precision and recall can be measured on mistakes they were not tuned on. Each bug
is an edit that applies to the reference exactly once, inside the solution region of the
function it names; its labels are ids of the course's catalog; every exercise of the course
has the file, and every solution region of each gets at least one bug.
"""
import ast
from functools import cache

import pytest

from modlab.course import load_course
from modlab.grading.catalog import course_catalog
from modlab.grading.loader import load_catalog
from modlab.instructor.build import BEGIN, END
from modlab.instructor.variants import STUDENT_BUGS, Variant, load_variants

from conftest import ROOT

COURSE = load_course(ROOT / "course.yaml")
BUGS = load_variants(COURSE, STUDENT_BUGS)
COVERED = [e for e in COURSE.exercises if (COURSE.grading_folder(e) / STUDENT_BUGS).is_file()]


def solution_regions(source: str) -> dict[str, range]:
    """The line numbers (1-based) inside each function's solution region, by qualified name.

    Args:
        source: a reference file's text.

    Returns:
        ``{"Class.method" or "function": range of the lines between its markers}``, for
        each function whose own body holds a ``### BEGIN SOLUTION`` ... ``### END SOLUTION``.

    Example::

        >>> solution_regions("def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION\\n")
        {'f': range(3, 4)}
    """
    lines = [line.strip() for line in source.splitlines()]
    functions = list(_functions(ast.parse(source)))
    regions = {}
    for begin in (number for number, line in enumerate(lines, start=1) if line == BEGIN):
        end = lines.index(END, begin) + 1
        # The marker comments are no statements: BEGIN lies within its function's lines, END may not.
        name = max((f for f in functions if f[1].lineno < begin <= f[1].end_lineno), key=lambda f: f[1].lineno)[0]
        regions[name] = range(begin + 1, end)
    return regions


def _functions(tree: ast.Module):
    """``(qualified name, node)`` for each top-level function and each method of a top-level class."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield f"{node.name}.{item.name}", item


@cache
def reference(file: str) -> str:
    return (COURSE.solutions / file).read_text(encoding="utf-8")


def test_every_exercise_has_bugs():
    assert {e.id for e in COVERED} == {bug.exercise for bug in BUGS}
    assert {e.id for e in COURSE.exercises} == {e.id for e in COVERED}


@pytest.mark.parametrize("bug", BUGS, ids=lambda bug: f"{bug.exercise}-{bug.name}")
def test_bug_edits_its_own_region_once(bug: Variant):
    assert bug.file in COURSE.exercise(bug.exercise).files, f"{bug.file} is not a file of exercise {bug.exercise}"
    source = reference(bug.file)
    changed = bug.apply(source)  # raises unless each `old` occurs exactly once
    assert changed != source
    compile(changed, bug.file, "exec")
    regions = solution_regions(source)
    assert bug.region in regions, f"{bug.region} is not a function of {bug.file} with a solution region"
    for old, _ in bug.edits:
        start = source.index(old)
        first, last = source.count("\n", 0, start) + 1, source.count("\n", 0, start + len(old.rstrip("\n"))) + 1
        assert first in regions[bug.region] and last in regions[bug.region], (
            f"`{old.strip()[:40]}` (lines {first}-{last}) is outside {bug.region}'s solution region")


def test_bug_names_are_unique_within_an_exercise():
    names = [(bug.exercise, bug.name) for bug in BUGS]
    assert len(names) == len(set(names))


def test_every_label_is_a_catalog_id():
    load_catalog(COURSE.graders)
    ids = {entry.id for entry in course_catalog(COURSE.graders)}
    unknown = {(bug.name, mid) for bug in BUGS for mid in bug.misconceptions if mid not in ids}
    assert not unknown


@pytest.mark.parametrize("exercise", COVERED, ids=lambda exercise: exercise.id)
def test_every_solution_region_has_a_bug(exercise):
    regions = {(file, region) for file in exercise.files for region in solution_regions(reference(file))}
    covered = {(bug.file, bug.region) for bug in BUGS if bug.exercise == exercise.id}
    assert regions - covered == set()


def test_solution_regions_finds_methods_and_functions():
    source = ("class A:\n    def m(self):\n        ### BEGIN SOLUTION\n        return 1\n        ### END SOLUTION\n\n"
              "    def given(self):\n        return 2\n\n"
              "def f():\n    x = 0\n    ### BEGIN SOLUTION\n    x += 1\n    return x\n    ### END SOLUTION\n")
    assert solution_regions(source) == {"A.m": range(4, 5), "f": range(13, 15)}
