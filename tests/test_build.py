"""modlab build: solutions/ -> exercises/ stubs."""
import pytest

from modlab.instructor.build import BuildError, stale_exercises, strip_solutions

SOLUTION = '''\
class Walk:
    def named_parameters(self, prefix=""):
        """Yield (name, parameter) pairs."""
        ### BEGIN SOLUTION
        yield from self._parameters.items()
        ### END SOLUTION

    def given(self):
        return 1
'''


def test_regions_become_not_implemented_errors_naming_the_function():
    stub = strip_solutions(SOLUTION, "03")
    assert 'raise NotImplementedError("exercise 03: named_parameters")' in stub
    assert '"""Yield (name, parameter) pairs."""' in stub
    assert "self._parameters.items()" not in stub
    assert "def given(self):\n        return 1" in stub
    compile(stub, "walk.py", "exec")


@pytest.mark.parametrize("source, problem", [
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "never closed"),
    ("def f():\n    ### END SOLUTION\n", "without"),
    ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "inside a function body"),
])
def test_malformed_regions_are_rejected(source, problem):
    with pytest.raises(BuildError, match=problem):
        strip_solutions(source, "01", "f.py")


def test_committed_exercises_match_the_build(course):
    assert stale_exercises(course) == [], "run `modlab build` and commit exercises/"


def test_stubs_keep_every_public_signature(course):
    import ast

    for path in course.solutions.glob("*.py"):
        stub = course.root / "exercises" / course.package / path.name
        names = lambda tree: sorted(n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        assert names(ast.parse(path.read_text())) == names(ast.parse(stub.read_text())), path.name
