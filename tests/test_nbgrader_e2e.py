"""The instructor workflow on real nbgrader, end to end, with a real kernel.

A temporary copy of the course is graded on exercises 01 and 02 (02 is past its
due date, and late work scores zero) with nbgrader's own commands, from
generate_assignment to export, once for the whole module. The students:

    ada  the reference, for both exercises
    bob  the reference for 01, with a notebook that writes to stderr; a buggy 02
    cy   the untouched stubs, with a notebook that hangs and has lost its score cell
    dee  the reference, with a notebook that kills its kernel (os._exit)
    eve  the stubs, with a notebook that fakes pytest three ways, edits the score cell
         and marks a cell of her own as graded
    fay  the reference, handed in with `modlab submit`: the kit's notebook has no score cell

Every exported score must equal ``modlab grade --json`` on the same files.
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
from modlab.course import Course, load_course
from modlab.grading.loader import load_scenarios
from modlab.instructor.notebooks import build_notebook
from modlab.instructor.variants import load_variants
from modlab.student.submit import submit as modlab_submit
from modlab.student.workspace import open_workspace

from conftest import ROOT

pytest.importorskip("nbgrader")
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

COURSE_ID = "modlab-nn"
DUE = {"01": "2100-01-01T00:00:00Z", "02": "2020-01-01T00:00:00Z"}
ASSIGNMENTS = {"01": "01_parameter", "02": "02_registration"}
SUBMISSIONS = {"01": ["ada", "bob", "cy", "dee", "eve", "fay"], "02": ["ada", "bob"]}
# cy's cell hangs until this; a lesson's cell must not, even while the suite runs other tests beside it.
CELL_TIMEOUT_S = 20

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


@dataclasses.dataclass
class Run:
    """What the workflow left behind."""

    root: Path
    course: Course
    course_dir: Path
    autograde_log: str  # `nbgrader autograde 01_parameter`
    progress: str  # `modlab nbgrader grade 02`
    grade_log: str  # its stderr
    rows: dict  # grades.csv by (assignment, student)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    root = tmp_path_factory.mktemp("nbgrader")
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, root)
        yield grade_a_course(course_copy(root), root)


def isolate(patch: pytest.MonkeyPatch, root: Path) -> None:
    """Jupyter and nbgrader see only temporary config, data and runtime folders."""
    home = root / "home"
    for variable, sub in (("HOME", ""), ("JUPYTER_CONFIG_DIR", ".jupyter"),
                          ("JUPYTER_DATA_DIR", "jupyter-data"), ("JUPYTER_RUNTIME_DIR", "jupyter-runtime")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        patch.setenv(variable, str(home / sub))
    for variable in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH", "JUPYTERHUB_USER"):
        patch.delenv(variable, raising=False)
    # nbgrader runs `alembic` from PATH, and kernels run this interpreter
    patch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])


def course_copy(root: Path) -> Course:
    """The course with due dates for 01 and 02, sharing the repository's code and graders."""
    repo = root / "repo"
    repo.mkdir()
    raw = yaml.safe_load((ROOT / "course.yaml").read_text())
    raw["exercises"] = [dict(e, due=DUE[e["id"]]) if e["id"] in DUE else e for e in raw["exercises"]]
    (repo / "course.yaml").write_text(yaml.safe_dump(raw))
    for folder in ("solutions", "exercises", "graders", "lessons"):
        (repo / folder).symlink_to(ROOT / folder)
    return load_course(repo / "course.yaml")


def grade_a_course(course: Course, root: Path) -> Run:
    course_dir = root / "course"
    assert modlab(["--course", str(course.root / "course.yaml"), "nbgrader", "init", str(course_dir),
                   "--exchange", str(root / "exchange"), "--late-penalty", "zero", "--cell-timeout", str(CELL_TIMEOUT_S)]) == 0
    # a careless instructor leaves a hidden grader in source/: it must not travel
    shutil.copy(ROOT / "graders" / "01_parameter" / "test_01_parameter.py", course_dir / "source" / "01_parameter")
    for assignment in ASSIGNMENTS.values():
        nbgrader(course_dir, "generate_assignment", assignment)
        nbgrader(course_dir, "release_assignment", assignment)
    for exercise_id, students in SUBMISSIONS.items():
        for student in students:
            submit(course, root, student, exercise_id)
    for assignment in ASSIGNMENTS.values():
        nbgrader(course_dir, "collect", assignment, "--CollectApp.check_owner=False")

    # 01 with nbgrader's own command line; 02, a clean class, with `modlab nbgrader grade`. cy's
    # notebook waits out its cell's timeout in an autograde of its own, as the others are graded.
    autograde = [sys.executable, "-m", "nbgrader", "autograde", "01_parameter"]
    hanging = subprocess.Popen([*autograde, "--student=cy"], cwd=course_dir, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    plain = subprocess.run([*autograde, "--CourseDirectory.student_id_exclude=cy"],
                           cwd=course_dir, capture_output=True, text=True, timeout=300)
    through_modlab = subprocess.run([sys.executable, "-m", "modlab", "nbgrader", "grade", "02"],
                                    cwd=course_dir, capture_output=True, text=True, timeout=300)
    plain.stderr += hanging.communicate(timeout=300)[1]
    assert hanging.returncode == plain.returncode == 0, plain.stderr[-3000:]
    assert through_modlab.returncode == 0, through_modlab.stderr[-3000:]

    for assignment in ASSIGNMENTS.values():
        nbgrader(course_dir, "generate_feedback", assignment)
        nbgrader(course_dir, "release_feedback", assignment)
    nbgrader(course_dir, "export", f"--to={root / 'grades.csv'}")
    rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader((root / "grades.csv").open())}
    return Run(root, course, course_dir, plain.stderr, through_modlab.stdout, through_modlab.stderr, rows)


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


def submit(course: Course, root: Path, student: str, exercise_id: str) -> None:
    """Fetch, work and submit the way each student does."""
    if student == "fay":
        return submit_from_kit(course, root, student, exercise_id)
    assignment = ASSIGNMENTS[exercise_id]
    exchange = [f"--course={COURSE_ID}", f"--Exchange.root={root / 'exchange'}"]
    home = root / "students" / student
    home.mkdir(parents=True, exist_ok=True)
    nbgrader(home, "fetch_assignment", assignment, *exchange)
    work = home / assignment
    files, cells = student_work(course, student, exercise_id)
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
        own = nbformat.v4.new_code_cell("10")
        own.metadata["nbgrader"] = dict(score_cell.metadata["nbgrader"], grade_id="mine", points=100)
        notebook.cells.append(own)
    if student != "cy":
        notebook.cells.append(score_cell)
    nbformat.write(notebook, notebook_path)
    nbgrader(work.parent, "submit", assignment, f"--student={student}", *exchange)


def student_work(course: Course, student: str, exercise_id: str) -> tuple[dict[str, str], list[str]]:
    """A student's files, and the code cells they add to the notebook."""
    name = course.exercise(exercise_id).files[0]
    reference = {f"mynn/{name}": (course.solutions / name).read_text()}
    if student == "ada":
        return reference, []
    if student == "bob" and exercise_id == "01":
        return reference, ["import sys\nprint('a warning', file=sys.stderr)"]
    if student == "bob":
        variant = next(v for v in load_variants(course) if v.exercise == "02")
        return {f"mynn/{name}": variant.apply((course.solutions / name).read_text())}, []
    if student == "cy":
        return {}, ["import time\ntime.sleep(600)"]
    if student == "dee":
        return reference, ["import os\nos._exit(0)"]
    return {"pytest.py": FAKE_PYTEST}, [TAMPERING]  # eve


def submit_from_kit(course: Course, root: Path, student: str, exercise_id: str) -> None:
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
    modlab_submit(open_workspace(with_exchange, kit), exercise, student)


def trusted_score(run: Run, student: str, exercise_id: str) -> float:
    """``modlab grade --json`` on the files the student submitted."""
    out = run.root / f"{student}-{exercise_id}.json"
    submitted = run.course_dir / "submitted" / student / ASSIGNMENTS[exercise_id]
    assert modlab(["--course", str(run.course.root / "course.yaml"), "grade", str(submitted),
                   "--exercise", exercise_id, "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["student"] == student  # from nbgrader's submitted/<student>/<assignment>/
    return record["score"]


def test_exported_scores_are_the_trusted_graders_scores(run):
    exported = {(a, s): float(run.rows[ASSIGNMENTS[a], s]["raw_score"])
                for a, students in SUBMISSIONS.items() for s in students}
    assert exported == {(a, s): trusted_score(run, s, a) for a, s in exported}
    full = run.course.exercise("01").points
    assert exported["01", "ada"] == exported["01", "bob"] == exported["01", "dee"] == exported["01", "fay"] == full
    assert exported["01", "cy"] == exported["01", "eve"] == 0  # eve's tampering gained nothing
    assert exported["02", "ada"] == run.course.exercise("02").points
    assert 0 < exported["02", "bob"] < run.course.exercise("02").points


def test_late_work_follows_nbgraders_penalty(run):
    for exercise_id, students in SUBMISSIONS.items():
        late = exercise_id == "02"
        for student in students:
            row = run.rows[ASSIGNMENTS[exercise_id], student]
            assert row["duedate"] == DUE[exercise_id].replace("T", " ").replace("Z", "")
            assert float(row["late_submission_penalty"]) == (float(row["raw_score"]) if late else 0)
            assert float(row["score"]) == (0 if late else float(row["raw_score"]))
    assert "late:" in run.progress


def test_kernel_trouble_is_a_log_line_not_a_lost_score(run):
    log = run.autograde_log
    assert "dee 01_parameter: the notebook's kernel stopped" in log
    assert "cy 01_parameter: cell" in log and "ran past Execute.timeout" in log
    assert "bob 01_parameter: cells" in log and "wrote to stderr" in log
    assert "Missing grade cell modlab_score" in log  # cy's, put back by nbgrader
    assert "eve 01_parameter: cell" in log and "nbgrader marks the assignment never gave it" in log
    assert "[1/2] ada" in run.progress and "[2/2] bob" in run.progress


def test_hidden_graders_reach_no_student(run):
    secrets = {text for exercise_id in ASSIGNMENTS
               for s in load_scenarios(run.course, run.course.exercise(exercise_id))
               if not s.public for text in (s.name, s.doc) if text}
    assert secrets
    for folder in (run.course_dir / "release", run.course_dir / "feedback", run.course_dir / "autograded",
                   run.root / "exchange"):
        leaks = [f"{path}: {secret}" for path in folder.rglob("*") if path.is_file()
                 for secret in secrets if secret in path.read_text(errors="replace")]
        assert leaks == []
    assert not list((run.course_dir / "release").rglob("test_*.py"))
    stub = run.course_dir / "release" / "01_parameter" / "mynn" / "parameter.py"
    assert stub.read_text() == (ROOT / "exercises" / "mynn" / "parameter.py").read_text()
    assert (run.course_dir / "feedback" / "bob" / "02_registration" / "02_registration.html").is_file()


def test_init_refuses_to_overwrite_and_grade_names_known_assignments(run, capsys):
    init = ["--course", str(run.course.root / "course.yaml"), "nbgrader", "init", str(run.course_dir)]
    assert modlab(init) == 2 and "pass --force" in capsys.readouterr().err
    assert modlab(["nbgrader", "grade", "42", "--course-dir", str(run.course_dir)]) == 2
    assert "known: 01_parameter, 02_registration" in capsys.readouterr().err
    assert (run.course_dir / "source" / "09_capstone" / "mynn" / "module.py").is_file()  # cumulative: whole package


def test_autograding_a_clean_class_through_modlab_logs_no_warning(run):
    """ada and bob's 02 (bob's code is buggy, nothing else): no SQLAlchemy
    SAWarning, no kernel warning, nothing an instructor cannot act on; only
    nbgrader's word that 02 came in after its due date, which it did."""
    late = ("seconds late", "Late submission penalty")
    unexpected = [line for line in run.grade_log.splitlines() if not any(word in line for word in late)]
    assert unexpected == [], "\n".join(unexpected)
    for noise in ("SAWarning", "running over TCP", "not recognized by"):
        assert noise not in run.autograde_log, noise


def test_the_lessons_run_in_each_assignment_on_the_package_as_it_stands(run):
    """ada's notebook of 01 ran its lesson cells on her whole package (the other
    exercises' files as stubs): each error a cell shows is a stub's one line,
    and the check cell names no instructor's folder."""
    notebook = nbformat.read(run.course_dir / "autograded" / "ada" / "01_parameter" / "01_parameter.ipynb",
                             as_version=4)
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert all(o.ename == "NotImplementedError" and o.traceback[0].startswith("NotImplementedError: still the stub")
               for o in errors), errors
    text = json.dumps(notebook)
    assert "AttributeError" not in text and str(run.course_dir) not in text
    release = run.course_dir / "release" / "02_registration" / "mynn"
    assert sorted(p.name for p in release.glob("*.py")) == sorted(p.name for p in run.course.solutions.glob("*.py"))


def test_a_submission_modlab_cannot_grade_fails_loudly_with_no_score(run, capsys):
    from nbgrader.api import Gradebook

    with pytest.raises(SystemExit) as failed:
        nbgrader(run.course_dir, "autograde", "01_parameter", "--student=ada", "--force", "--no-execute",
                 f"--GradeSubmission.course_file={run.root / 'missing' / 'course.yaml'}")
    assert failed.value.code == 1
    assert "modlab could not grade 01_parameter of ada, so it has no score" in capsys.readouterr().err
    with Gradebook(f"sqlite:///{run.course_dir / 'gradebook.db'}", COURSE_ID) as gradebook:
        grades = gradebook.find_submission_notebook("01_parameter", "01_parameter", "ada").grades
        assert [(g.auto_score, g.needs_manual_grade) for g in grades] == [(None, True)]

