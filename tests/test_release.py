"""modlab release: the student kit holds what students need and nothing they must not see."""
import ast

import pytest

from modlab.cli import main
from modlab.course import load_course
from modlab.grading.loader import grader_file, load_scenarios
from modlab.instructor.build import BuildError
from modlab.instructor.release import ReleaseError, build_release, find_leaks, public_only, solution_regions

from student_kit import released_kit

GRADER = '''\
"""Exercise 01: a toy grader."""
import torch

from modlab.grading import scenario


def shared(m):
    return m


def only_hidden(m):
    return m


SECRET_INPUT = only_hidden(3)


@scenario(public=True)
def seen(nn):
    return shared(1)


# Why the hidden check exists, which must not reach students.
@scenario(points=2)
def unseen(nn):
    return only_hidden(SECRET_INPUT)
'''


@pytest.fixture(scope="module")
def kit():
    return released_kit()


def test_the_kit_leaks_no_hidden_scenario_and_no_solution(course, kit):
    assert find_leaks(course, kit) == []


def test_the_leak_scan_finds_planted_secrets(course, kit, tmp_path):
    hidden = next(s.name for e in course.exercises if grader_file(course, e).is_file()
                  for s in load_scenarios(course, e) if not s.public)
    where, region = solution_regions(course)[0]
    (tmp_path / "notes.md").write_text(f"psst: {hidden}\n")
    (tmp_path / "answer.py").write_text(f"def f():\n    {region}\n")
    leaks = find_leaks(course, tmp_path)
    assert f"notes.md: hidden scenario {hidden}" in leaks
    assert f"answer.py: solution region {where}" in leaks


def test_the_kit_holds_stubs_notebooks_public_graders_and_the_tool(course, kit):
    stubs = kit / course.package
    assert sorted(p.name for p in stubs.glob("*.py")) == sorted(p.name for p in course.solutions.glob("*.py"))
    for exercise in course.exercises:
        assert (kit / f"{exercise.name}.ipynb").is_file()
        for name in exercise.files:
            assert 'NotImplementedError("exercise' in (stubs / name).read_text() or name == "module.py"
    assert (kit / "modlab" / "cli.py").is_file() and (kit / "pyproject.toml").is_file()
    assert not (kit / "solutions").exists() and not (kit / "graders" / "conftest.py").exists()
    readme = (kit / "README.md").read_text()
    assert 'python -m pip install ".[notebook]"' in readme and "modlab status" in readme


def test_released_graders_hold_exactly_the_public_scenarios(course, kit):
    for exercise in course.exercises:
        if not grader_file(course, exercise).is_file():
            continue
        public = [s.name for s in load_scenarios(course, exercise) if s.public]
        path = kit / "graders" / grader_file(course, exercise).name
        assert path.is_file() == bool(public), exercise.id
        if public:
            tree = ast.parse(path.read_text())
            scenarios = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                         and any("scenario(" in ast.unparse(d) for d in node.decorator_list)]
            assert scenarios == public, exercise.id


def test_the_student_course_yaml_has_no_grading_internals(course, kit):
    text = (kit / "course.yaml").read_text()
    assert "limits" not in text and "timeout" not in text
    released = load_course(kit / "course.yaml")
    assert [(e.id, e.files, e.points, e.due, e.cumulative) for e in released.exercises] == \
           [(e.id, e.files, e.points, e.due, e.cumulative) for e in course.exercises]


def test_hidden_scenarios_go_with_their_comments_and_helpers():
    text = public_only(GRADER, {"seen"}, {"seen", "unseen"})
    assert "def seen(nn):" in text and "def shared(m):" in text and "import torch" in text
    for secret in ("unseen", "only_hidden", "SECRET_INPUT", "Why the hidden check"):
        assert secret not in text
    compile(text, "test_01_toy.py", "exec")


def test_a_scenario_that_is_not_a_top_level_function_cannot_be_released():
    with pytest.raises(BuildError, match="not top-level functions"):
        public_only(GRADER, {"seen"}, {"seen", "made_in_a_loop"})


def test_release_refuses_a_folder_in_use(course, tmp_path, capsys):
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "homework.txt").write_text("mine")
    with pytest.raises(ReleaseError, match="not empty"):
        build_release(course, tmp_path / "kit")
    assert main(["--course", str(course.root / "course.yaml"), "release", str(tmp_path / "kit")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not empty" in err
    assert (tmp_path / "kit" / "homework.txt").read_text() == "mine"
