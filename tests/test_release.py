"""modlab release: the student kit holds what students need and nothing they must not see."""
import ast
import os
import re
import subprocess
import sys

import pytest

from modlab.cli import main
from modlab.course import load_course
from modlab.grading.loader import load_scenarios
from modlab.instructor.build import BuildError
from modlab.pins import read_pins
from modlab.instructor.release import (ReleaseError, build_release, find_leaks, public_grader_source, public_only,
                                      solution_regions)

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
    hidden = next(s.name for e in course.exercises if course.grader_file(e).is_file()
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
    for given in (p for p in course.solutions.glob("*.py") if course.exercise_of_file(p.name) is None):
        assert (stubs / given.name).read_text() == given.read_text(), f"{given.name} is given: shipped whole"
    assert (kit / "modlab" / "student_cli.py").is_file() and (kit / "pyproject.toml").is_file()
    assert not (kit / "solutions").exists() and not (kit / "graders" / "conftest.py").exists()
    readme = (kit / "README.md").read_text()
    assert ("python -m pip install -c constraints.txt --extra-index-url https://download.pytorch.org/whl/cpu "
            '".[notebook]"') in readme and "modlab status" in readme and "given files" in readme


def test_the_kits_modlab_has_the_student_commands_only(kit):
    shown = subprocess.run([sys.executable, "-m", "modlab", "--help"], cwd=kit, capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert shown.returncode == 0, shown.stderr
    listed = re.findall(r"^    ([a-z_]+) ", shown.stdout, flags=re.MULTILINE)
    assert listed == ["check", "status", "submit", "doctor", "env"]
    assert shown.stdout.rstrip().endswith("More: README.md") and (kit / "README.md").is_file()
    for tool in ("cli.py", "instructor", "batch", "commands/grade.py", "commands/release.py", "commands/nbgrader.py"):
        assert not (kit / "modlab" / tool).exists(), tool
    assert 'modlab = "modlab.student_cli:main"' in (kit / "pyproject.toml").read_text()


def test_every_modlab_import_of_the_kit_is_in_the_kit(kit):
    for path in (kit / "modlab").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
            for name in names:
                if name.split(".")[0] == "modlab":
                    target = kit.joinpath(*name.split("."))
                    assert target.with_suffix(".py").is_file() or (target / "__init__.py").is_file(), \
                        f"{path.relative_to(kit)} imports {name}, which the kit lacks"


def test_the_kit_pins_what_it_installs_to_the_courses_versions(course, kit):
    course_pins = read_pins(course.root / "constraints.txt")
    kit_pins = read_pins(kit / "constraints.txt")
    assert kit_pins["torch"] == course_pins["torch"] == "2.13.0"
    assert set(kit_pins) == {"torch", "numpy", "pyyaml", "hypothesis", "rich"}
    assert all(kit_pins[name] == course_pins[name] for name in kit_pins)
    for ci in (".github/workflows/check.yml", ".gitlab-ci.yml"):  # the kit's CI installs the same way
        assert "pip install -c constraints.txt --extra-index-url https://download.pytorch.org/whl/cpu ." in \
            (kit / ci).read_text(), ci


def test_the_leak_scan_finds_the_instructors_folder(course, tmp_path):
    (tmp_path / "check.log").write_text(f"no course.yaml in {course.root.resolve()}/autograded/ada\n")
    (tmp_path / "fine.txt").write_text("no course.yaml in autograded/ada\n")
    assert find_leaks(course, tmp_path) == ["check.log: the instructor's course folder"]


def test_released_graders_hold_exactly_the_public_scenarios(course, kit):
    for exercise in course.exercises:
        if not course.grader_file(exercise).is_file():
            continue
        public = [s.name for s in load_scenarios(course, exercise) if s.public]
        path = kit / course.grader_file(exercise).relative_to(course.root)
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


def test_what_the_workers_import_first_reaches_the_kit(course):
    """No scenario reads ``WORKER_IMPORTS``: the engine does, and a student's workers need it as much."""
    declared = 'WORKER_IMPORTS = ("colorsys",)\n'
    assert declared in public_only(GRADER + declared, {"seen"}, {"seen", "unseen"})
    assert "WORKER_IMPORTS = " in public_grader_source(course, course.exercise("08"))


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
