"""The instructor workflow on real nbgrader, end to end, with a real kernel.

A temporary copy of the course, graded on exercises 01 and 02 (02 past its due date,
late submissions score zero), five students, nbgrader's own commands from
generate_assignment to export. The students:

    ada  the reference, for both exercises
    bob  the reference for 01, with a notebook that writes to stderr; a buggy 02
    cy   the untouched stubs, with a notebook that hangs and has lost its score cell
    dee  the reference, with a notebook that kills its kernel (os._exit)
    eve  the stubs, with a notebook that fakes pytest three ways and edits the score cell
    fay  the reference, handed in with `modlab submit`: the kit's notebook has no score cell

Each exported score must equal ``modlab grade --json`` on the same files.
"""
from __future__ import annotations

import csv
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from modlab.cli import main as modlab
from modlab.course import load_course
from modlab.grading.loader import load_scenarios
from modlab.notebooks import build_notebook
from modlab.student import Workspace
from modlab.submission import submit as modlab_submit
from modlab.variants import load_variants

from conftest import ROOT

pytest.importorskip("nbgrader")
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

COURSE_ID = "modlab-nn"
DUE = {"01": "2100-01-01T00:00:00Z", "02": "2020-01-01T00:00:00Z"}
ASSIGNMENTS = {"01": "01_parameter", "02": "02_registration"}

FAKE_PYTEST = "def main(*args, **kwargs):\n    print('10 passed')\n    return 0\n"
TAMPERING = f"""\
import sys, types
import pytest
pytest.main = lambda *args, **kwargs: 0
fake = types.ModuleType("pytest")
fake.main = pytest.main
sys.modules["pytest"] = fake
open("pytest.py", "w").write({FAKE_PYTEST!r})
print("10 passed")"""


@pytest.fixture
def course_repo(tmp_path):
    """The course with due dates for 01 and 02, sharing the repository's code and graders."""
    repo = tmp_path / "repo"
    repo.mkdir()
    raw = yaml.safe_load((ROOT / "course.yaml").read_text())
    raw["exercises"] = [dict(e, due=DUE[e["id"]]) if e["id"] in DUE else e for e in raw["exercises"]]
    (repo / "course.yaml").write_text(yaml.safe_dump(raw))
    for folder in ("solutions", "exercises", "graders", "lessons"):
        (repo / folder).symlink_to(ROOT / folder)
    return load_course(repo / "course.yaml")


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """Jupyter and nbgrader see only temporary config, data and runtime folders."""
    home = tmp_path / "home"
    for variable, sub in (("HOME", ""), ("JUPYTER_CONFIG_DIR", ".jupyter"),
                          ("JUPYTER_DATA_DIR", "jupyter-data"), ("JUPYTER_RUNTIME_DIR", "jupyter-runtime")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(variable, str(home / sub))
    for variable in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH", "JUPYTERHUB_USER"):
        monkeypatch.delenv(variable, raising=False)
    # nbgrader runs `alembic` from PATH, and kernels run this interpreter
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    return tmp_path


def nbgrader(cwd: Path, command: str, *args: str) -> None:
    """``nbgrader COMMAND ARGS`` in ``cwd``, run in this process: the same app classes
    as the command line, without paying nbgrader's start-up once per call."""
    from nbgrader.apps import NbGraderApp

    app = NbGraderApp.subcommands[command][0]()
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        app.initialize(list(args))
        app.start()
    finally:
        os.chdir(previous)


def student_work(course, student: str, exercise_id: str) -> tuple[dict[str, str], list[str], bool]:
    """What a student changes in the fetched assignment: files, notebook cells added
    before the score cell, and whether the score cell is kept."""
    name = course.exercise(exercise_id).files[0]
    reference = {f"mynn/{name}": (course.solutions / name).read_text()}
    if student == "ada":
        return reference, [], True
    if student == "bob" and exercise_id == "01":
        return reference, ["import sys\nprint('a warning', file=sys.stderr)"], True
    if student == "bob":
        variant = next(v for v in load_variants(ROOT / "tests" / "buggy") if v.exercise == "02")
        return {f"mynn/{name}": variant.apply((course.solutions / name).read_text())}, [], True
    if student == "cy":
        return {}, ["import time\ntime.sleep(600)"], False
    if student == "dee":
        return reference, ["import os\nos._exit(0)"], True
    return {"pytest.py": FAKE_PYTEST}, [TAMPERING], True  # eve


SUBMISSIONS = {"01": ["ada", "bob", "cy", "dee", "eve", "fay"], "02": ["ada", "bob"]}


def submit(course, root: Path, student: str, exercise_id: str) -> None:
    if student == "fay":
        return submit_from_kit(course, root, student, exercise_id)
    assignment = ASSIGNMENTS[exercise_id]
    exchange = [f"--course={COURSE_ID}", f"--Exchange.root={root / 'exchange'}"]
    home = root / "students" / student
    home.mkdir(parents=True, exist_ok=True)
    nbgrader(home, "fetch_assignment", assignment, *exchange)
    work = home / assignment
    files, cells, keep_score_cell = student_work(course, student, exercise_id)
    for relpath, text in files.items():
        (work / relpath).write_text(text)
    notebook_path = work / f"{assignment}.ipynb"
    notebook = nbformat.read(notebook_path, as_version=4)
    score_cell = notebook.cells.pop()
    if student != "ada":  # the others cleared the lesson's examples, which take seconds to run
        notebook.cells = [cell for cell in notebook.cells if cell.cell_type == "markdown"]
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in cells]
    if student == "eve":
        score_cell.source = "10"
    if keep_score_cell:
        notebook.cells.append(score_cell)
    nbformat.write(notebook, notebook_path)
    nbgrader(work.parent, "submit", assignment, f"--student={student}", *exchange)


def submit_from_kit(course, root: Path, student: str, exercise_id: str) -> None:
    """`modlab submit` from a student kit whose course.yaml names the exchange."""
    exercise = course.exercise(exercise_id)
    kit = root / "students" / student
    (kit / course.package).mkdir(parents=True)
    for name in exercise.files:
        shutil.copy(course.solutions / name, kit / course.package / name)
    lesson = build_notebook(course, exercise)
    lesson.cells = [cell for cell in lesson.cells if cell.cell_type == "markdown"]
    nbformat.write(lesson, kit / f"{exercise.name}.ipynb")
    with_exchange = dataclasses.replace(course, exchange=str(root / "exchange"))
    modlab_submit(Workspace(with_exchange, kit), exercise, student)


def hidden_texts(course) -> set[str]:
    """What must never reach a student: each hidden scenario's name and first doc line."""
    return {text for exercise_id in ASSIGNMENTS for s in load_scenarios(course, course.exercise(exercise_id))
            if not s.public for text in (s.name, s.doc) if text}


def leaks(folder: Path, secrets: set[str]) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            found += [f"{path.relative_to(folder)}: {secret}" for secret in secrets if secret in text]
    return found


def test_nbgrader_workflow_scores_with_the_trusted_graders(course_repo, isolated, capsys):
    course = course_repo
    root = isolated
    course_dir = root / "course"
    assert modlab(["--course", str(course.root / "course.yaml"), "nbgrader", "init", str(course_dir),
                   "--exchange", str(root / "exchange"), "--late-penalty", "zero", "--cell-timeout", "5"]) == 0
    # a careless instructor leaves a hidden grader in source/: it must not travel
    shutil.copy(ROOT / "graders" / "test_01_parameter.py", course_dir / "source" / "01_parameter")

    for assignment in ASSIGNMENTS.values():
        nbgrader(course_dir, "generate_assignment", assignment)
        nbgrader(course_dir, "release_assignment", assignment)
    for exercise_id, students in SUBMISSIONS.items():
        for student in students:
            submit(course, root, student, exercise_id)
    for assignment in ASSIGNMENTS.values():
        nbgrader(course_dir, "collect", assignment, "--CollectApp.check_owner=False")
    capsys.readouterr()

    # exercise 01 with nbgrader's command line; 02 with `modlab nbgrader grade`, without the kernel
    plain = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "01_parameter"],
                           cwd=course_dir, capture_output=True, text=True, timeout=300)
    assert plain.returncode == 0, plain.stderr[-3000:]
    assert modlab(["nbgrader", "grade", "02", "--course-dir", str(course_dir), "--no-execute"]) == 0
    progress = capsys.readouterr().out

    for assignment in ASSIGNMENTS.values():
        nbgrader(course_dir, "generate_feedback", assignment)
        nbgrader(course_dir, "release_feedback", assignment)
    nbgrader(course_dir, "export", f"--to={root / 'grades.csv'}")

    # every exported score is the trusted graders' score of the submitted files
    expected = {}
    for exercise_id, students in SUBMISSIONS.items():
        for student in students:
            out = root / f"{student}-{exercise_id}.json"
            submitted = course_dir / "submitted" / student / ASSIGNMENTS[exercise_id]
            modlab(["--course", str(course.root / "course.yaml"), "grade", str(submitted),
                    "--exercise", exercise_id, "--json", str(out)])
            expected[ASSIGNMENTS[exercise_id], student] = json.loads(out.read_text())["score"]
    rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader((root / "grades.csv").open())}
    exported = {key: float(rows[key]["raw_score"]) for key in expected}
    assert exported == expected
    assert exported[("01_parameter", "ada")] == exported[("01_parameter", "dee")] == 10.0
    assert exported[("01_parameter", "fay")] == 10.0
    assert exported[("01_parameter", "bob")] == 10.0
    assert exported[("01_parameter", "cy")] == exported[("01_parameter", "eve")] == 0.0
    assert exported[("02_registration", "ada")] == 15.0
    assert 0 < exported[("02_registration", "bob")] < 15.0

    # nbgrader's late penalty: 02 was due in 2020, and late work scores zero
    for (assignment, student), raw in exported.items():
        late = assignment == "02_registration"
        assert float(rows[assignment, student]["late_submission_penalty"]) == (raw if late else 0.0)
        assert float(rows[assignment, student]["score"]) == (0.0 if late else raw)

    # no silent zeros: each kernel trouble is a line in the log, and the score stands
    log = plain.stderr
    assert "dee 01_parameter: the notebook's kernel stopped" in log
    assert "cy 01_parameter: cell" in log and "ran past Execute.timeout" in log
    assert "bob 01_parameter: cells" in log and "wrote to stderr" in log
    assert "Missing grade cell modlab_score" in log  # cy's, put back by nbgrader
    assert "[1/2] ada" in progress and "[2/2] bob" in progress and "late:" in progress

    # hidden graders reach no student: not released, not in feedback, not beside the submission
    secrets = hidden_texts(course)
    assert secrets
    for folder in ("release", "feedback", "autograded"):
        assert leaks(course_dir / folder, secrets) == [], folder
    assert leaks(root / "exchange", secrets) == []
    assert not list((course_dir / "release").rglob("test_*.py"))
    stub = course_dir / "release" / "01_parameter" / "mynn" / "parameter.py"
    assert stub.read_text() == (ROOT / "exercises" / "mynn" / "parameter.py").read_text()
    assert (course_dir / "feedback" / "bob" / "02_registration" / "02_registration.html").is_file()


    # a submission modlab cannot grade is a failure with no score, flagged for review, not a 0
    with pytest.raises(SystemExit) as failed:
        nbgrader(course_dir, "autograde", "01_parameter", "--student=ada", "--force", "--no-execute",
                 f"--GradeSubmission.course_file={root / 'missing' / 'course.yaml'}")
    assert failed.value.code == 1
    assert "modlab could not grade 01_parameter of ada, so it has no score" in capsys.readouterr().err
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", COURSE_ID) as gradebook:
        grades = gradebook.find_submission_notebook("01_parameter", "01_parameter", "ada").grades
        assert [(g.auto_score, g.needs_manual_grade) for g in grades] == [(None, True)]
