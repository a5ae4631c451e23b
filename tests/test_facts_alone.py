"""Facts that stand alone when no hint fires: a failure inside the check's own code names the
line, and so the call of the student's code that returned what it failed on; the root's empty
name reads as the root itself; a random tree's smallest failing case reads as the code that
builds it."""
import pytest
import torch

from modlab.engine import GradeOptions, grade_exercise
from modlab.formats.feedback import explanation_text, feedback_line
from modlab.grading.compare import compare
from modlab.grading.explain import Graded, explain_raised
from modlab.instructor.variants import reference_package
from modlab.records import FAILED

from conftest import course_module

CPU = GradeOptions(device="cpu")
RETURNS_NONE = ("        yield from self._named_members(lambda module: module._parameters.items(), prefix, recurse, "
                "remove_duplicate)\n", "        return None\n")


@pytest.fixture(scope="module")
def walk_returning_none(course, tmp_path_factory):
    """Exercise 03 graded with a named_parameters that returns None instead of yielding."""
    text = (course.solutions / "walk.py").read_text()
    assert text.count(RETURNS_NONE[0]) == 1
    package = reference_package(course, tmp_path_factory.mktemp("none"), {"walk.py": text.replace(*RETURNS_NONE)})
    result = grade_exercise(course, course.exercise("03"), package, CPU)
    return {test.name: test for test in result.tests if test.outcome == FAILED}


def test_a_failure_in_the_checks_own_code_names_its_line_and_so_the_call(walk_returning_none):
    test = walk_returning_none["own_members_come_before_children"]
    assert test.failure.raised["type"] == "TypeError" and "file" not in test.failure.raised  # raised in no file of yours
    explanation = test.failure.explanation
    assert explanation["kind"] == "scenario" and explanation["file"] == "graders/03_walk/test_03_walk.py"
    assert "root.named_parameters()" in explanation["code"]
    assert explanation_text(explanation).startswith(f"the check's own code failed at `{explanation['code']}` "
                                                    f"(graders/03_walk/test_03_walk.py:{explanation['line']})")
    assert explanation["yours"]["root.named_parameters()"] == "None"
    assert explanation["torch"]["root.named_parameters()"] == "a generator"  # torch's worker, stopped at that line
    assert feedback_line(test).endswith("on what your package returned there: `root.named_parameters()` gave None "
                                        "in yours, a generator in torch's")


def test_a_name_the_line_reads_says_what_it_held_and_the_line_that_made_it():
    facts = {"kind": "scenario", "file": "graders/01_a/test_01_a.py", "line": 23, "code": "p.requires_grad",
             "yours": {"p": "None", "p.detach()": "raised AttributeError", "nn": "a module"},
             "torch": {"p": "a Parameter", "p.detach()": "a Tensor", "nn": "a module"},
             "made": {"p": {"line": 21, "code": "p = nn.Parameter(data)"}}}
    assert explanation_text(facts).endswith("on what your package returned there: `p` is None in yours, a Parameter "
                                            "in torch's (made by `p = nn.Parameter(data)`, line 21)")
    same = {**facts, "torch": facts["yours"]}
    assert explanation_text(same).endswith("; torch's run of that line went through")


def test_a_hidden_checks_own_code_stays_hidden(walk_returning_none):
    [hidden] = [t for t in walk_returning_none.values() if not t.public and t.failure.explanation][:1]
    assert hidden.failure.explanation == {"kind": "scenario"}
    assert explanation_text(hidden.failure.explanation) == "the check's own code failed on what your package returned"


def test_a_random_trees_smallest_case_reads_as_the_code_that_builds_it(walk_returning_none):
    case = walk_returning_none["random_trees_named_parameters"].failure.smallest_case
    assert case.startswith("root = nn.Module()")


def test_tree_code_builds_every_kind_of_member():
    tree_code = course_module("shared/trees.py").tree_code
    spec = [["c", ["module", [["a", ["param", [2], False]], ["b", ["buffer", [3], "int64", False]]]]],
            ["d", ["seq", [["leaf", 2, 3, False], ["list", []]]]], ["e", ["tied", "c.a"]],
            ["f", ["dict", [["k", ["shared", "c"]]]]], ["g", ["none", "buffer"]]]
    assert tree_code(spec).split("; ") == [
        "root = nn.Module()", "root_c = nn.Module()", "root_c.a = nn.Parameter(torch.randn([2]), requires_grad=False)",
        "root_c.register_buffer('b', torch.randint(0, 10, [3]), persistent=False)", "root.c = root_c",
        "root.d = nn.Sequential(Leaf(2, 3, bias=False), nn.ModuleList([]))", "root.e = root.c.a",
        "root.f = nn.ModuleDict({'k': root.c})", "root.register_buffer('g', None)"]


@pytest.mark.parametrize("spec", [
    [["c", ["param", [], True]], ["a", ["seq", [["leaf", 1, 1, True], ["seq", [["shared", "a.0"]]]]]]],
    [["c", ["seq", [["module", []], ["leaf", 1, 1, True], ["module", [["c", ["param", [], True]],
                                                                      ["a", ["tied", "c.1.weight"]]]]]]]],
], ids=["shared-earlier-child", "tied-inside-a-container"])
def test_tree_code_runs_and_builds_the_same_tree(spec):
    """A member shared again inside a container still being built is reached through its variable."""
    trees = course_module("shared/trees.py")
    made = {"nn": torch.nn, "torch": torch, "Leaf": lambda n_in, n_out, bias=True: torch.nn.Linear(n_in, n_out, bias)}
    exec(trees.tree_code(spec).replace("; ", "\n"), made)
    for walk in ("named_modules", "named_parameters"):
        assert [name for name, _ in getattr(made["root"], walk)(remove_duplicate=False)] == \
               [name for name, _ in getattr(trees.build_tree(torch.nn, spec), walk)(remove_duplicate=False)]


def test_the_roots_empty_name_reads_as_the_root_itself():
    missing = compare([["", "Net"], ["body", "Linear"]], [["body", "Linear"]])
    assert missing.detail == "missing the root itself ('')"
    assert compare([["", 1]], [["", 2]]).where == "the root itself ('')"


def test_a_name_the_package_lacks_is_said_so():
    """A check asking the package for a name it does not define: what is missing, not a wrong return."""
    raised = {"type": "AttributeError", "message": "module 'mynn' has no attribute 'ReLU'", "by": "scenario"}
    explanation = explain_raised(raised, Graded(exercise="08", own=("layers.py",), graft=True))
    assert explanation == {"kind": "package-lacks", "name": "ReLU"}
    assert explanation_text(explanation) == "your package provides no `ReLU`, which the check uses"


def test_an_attribute_the_reference_makes_by_name_is_not_said_to_be_missing_from_it():
    """`_modules` is missing because super().__init__() did not run, not because the reference lacks it."""
    raised = {"type": "AttributeError", "message": "'Sequential' object has no attribute '_modules'",
              "by": "submission", "frames": [["containers.py", 214, "__init__"]]}
    sources = {"registration.py": 'object.__setattr__(self, "_modules", {})\n'}
    graded = Graded(exercise="05", own=("containers.py",), graft=True, reference_sources=sources)
    assert explain_raised(raised, graded) is None or explain_raised(raised, graded)["kind"] != "missing-name"
    graded = Graded(exercise="05", own=("containers.py",), graft=True, reference_sources={"registration.py": ""})
    assert explain_raised(raised, graded)["kind"] == "missing-name"
