"""Uneven weights and fractional points, end to end through real nbgrader.

A one-exercise course worth 7 points whose grader has two checks weighted 1
and 2. Three students hand in through nbgrader's exchange; ``modlab nbgrader
grade`` autogrades them and ``nbgrader export`` writes the gradebook:

    ada  the reference: both checks             7 points
    bob  ignores requires_grad=False: the 1     7 * 1/3 = 2.3333
    cy   always requires_grad=False: the 2      7 * 2/3 = 4.6667

Equal shares would give 3.5 for both bob and cy; a score rounded to a whole
number would give 2 and 5. The expected figures are worked out by hand.
"""
from __future__ import annotations

import contextlib
import csv
import io
import shutil

import nbformat
import pytest

pytest.importorskip("nbgrader")

from modlab.cli import main as modlab  # noqa: E402
from modlab.course import load_course  # noqa: E402

from conftest import ROOT  # noqa: E402
from test_nbgrader_e2e import isolate, nbgrader  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

COURSE = '''
course: {id: weights-demo, title: Weights demo, package: mynn}
exercises:
  - {id: "01", slug: parameter, title: Parameter, points: 7, files: [parameter.py]}
'''

GRADER = '''
import torch
from modlab.grading import scenario


@scenario(public=True, points=1)
def requires_grad_by_default(nn):
    """a Parameter requires grad by default"""
    return nn.Parameter(torch.ones(2)).requires_grad


@scenario(points=2)
def requires_grad_can_be_off(nn):
    """Parameter(data, requires_grad=False) does not require grad"""
    return nn.Parameter(torch.ones(2), requires_grad=False).requires_grad
'''

ALWAYS = '''
import torch


class Parameter(torch.Tensor):
    def __new__(cls, data=None, requires_grad=True):
        return torch.Tensor._make_subclass(cls, torch.empty(0) if data is None else data, {value})
'''
WORK = {"ada": None, "bob": ALWAYS.format(value=True), "cy": ALWAYS.format(value=False)}
EXPECTED = {"ada": 7.0, "bob": 2.3333, "cy": 4.6667}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("weights")
    repo = root / "repo"
    repo.mkdir()
    (repo / "course.yaml").write_text(COURSE)
    shutil.copytree(ROOT / "solutions", repo / "solutions")
    for path in (repo / "solutions" / "mynn").glob("*.py"):  # only exercise 01's file is the student's here
        if path.name != "parameter.py":
            lines = path.read_text().splitlines(keepends=True)
            path.write_text("".join(l for l in lines if l.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")))
    (repo / "lessons").mkdir()
    shutil.copy(ROOT / "lessons" / "01_parameter.md", repo / "lessons")
    (repo / "graders").mkdir()
    (repo / "graders" / "01_parameter").mkdir(parents=True, exist_ok=True)
    (repo / "graders" / "01_parameter" / "test_01_parameter.py").write_text(GRADER)
    (repo / "graders" / "conftest.py").write_text('pytest_plugins = ["modlab.instructor.pytest_plugin"]\n')
    course = load_course(repo / "course.yaml")
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, root)
        course_dir = root / "course"
        yaml_path = str(repo / "course.yaml")
        assert modlab(["--course", yaml_path, "nbgrader", "init", str(course_dir),
                       "--exchange", str(root / "exchange")]) == 0
        nbgrader(course_dir, "generate_assignment", "01_parameter")
        nbgrader(course_dir, "release_assignment", "01_parameter")
        exchange = ["--course=weights-demo", f"--Exchange.root={root / 'exchange'}"]
        for student, text in WORK.items():
            home = root / "students" / student
            home.mkdir(parents=True)
            nbgrader(home, "fetch_assignment", "01_parameter", *exchange)
            work = home / "01_parameter"
            reference = (course.solutions / "parameter.py").read_text()
            (work / "mynn" / "parameter.py").write_text(reference if text is None else text)
            notebook = nbformat.read(work / "01_parameter.ipynb", as_version=4)
            notebook.cells = [c for c in notebook.cells if c.cell_type == "markdown" or "nbgrader" in c.metadata]
            nbformat.write(notebook, work / "01_parameter.ipynb")
            nbgrader(home, "submit", "01_parameter", f"--student={student}", *exchange)
        nbgrader(course_dir, "collect", "01_parameter", "--CollectApp.check_owner=False")
        with contextlib.redirect_stdout(io.StringIO()):
            assert modlab(["--course", yaml_path, "nbgrader", "grade", "01", "--course-dir", str(course_dir),
                           "--no-execute"]) == 0
        nbgrader(course_dir, "export", f"--to={root / 'grades.csv'}")
    return {row["student_id"]: row for row in csv.DictReader((root / "grades.csv").open())}


def test_exported_scores_keep_uneven_weights_and_fractions(exported):
    assert {student: float(row["raw_score"]) for student, row in exported.items()} == EXPECTED
    assert {row["max_score"] for row in exported.values()} == {"7.0"}
