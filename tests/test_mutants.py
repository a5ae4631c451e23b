"""bench/mutants.py: one small change inside a solution region, never outside one."""
import ast
import difflib

import pytest

from bench.mutants import mutants_of

SOURCE = '''\
def given(a, b):
    return a < b


def solved(a, b, flags):
    """Docstring: a < b stays as it is."""
    ### BEGIN SOLUTION
    for flag in flags:
        if not flag and a == b:
            break
    label = f"{a + 1}"
    last = flags[-1]
    return a < b or True
    ### END SOLUTION
'''


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(SOURCE)
    return path


def test_each_kind_of_change_is_made_inside_the_solution_region(sample):
    made = {mutant.change for mutant in mutants_of(sample)}
    for expected in ("a == b -> (a != b)", "not flag and a == b -> (not flag or a == b)", "not flag -> (flag)",
                     "break -> continue", "True -> False", "-1 -> -2", "a < b -> (a <= b)", "a < b or True -> (a < b and True)",
                     'label = f"{a + 1}" -> pass', "return a < b or True -> pass"):
        assert expected in made, (expected, made)


def test_nothing_outside_a_solution_region_nor_in_docstrings_or_f_strings_changes(sample):
    original = SOURCE.splitlines()
    region = range(original.index("    ### BEGIN SOLUTION") + 1, original.index("    ### END SOLUTION"))
    for mutant in mutants_of(sample):
        ast.parse(mutant.text)  # every mutant is valid Python
        changed = [line for line in difflib.unified_diff(original, mutant.text.splitlines(), n=0, lineterm="")
                   if line.startswith("-") and not line.startswith("---")]
        assert changed, mutant.change
        for line in changed:
            assert original.index(line[1:]) in region, (mutant.change, line)
        assert "a - 1" not in mutant.text and "Docstring: a < b stays" in mutant.text, mutant.change


def test_the_reference_gives_mutants_of_every_graded_file(course):
    files = [name for exercise in course.exercises for name in exercise.files]
    assert all(mutants_of(course.solutions / name) for name in files)
