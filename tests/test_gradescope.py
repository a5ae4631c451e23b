"""Grading on Gradescope, without Gradescope: `modlab gradescope build` writes the zip, and its
`setup.sh` and `run_autograder` run here in a temporary tree laid out as Gradescope's /autograder
(run_autograder with a venv that holds this one's packages but no modlab: the zip's must be whole).

The zip of exercise 01 is built once. Its run_autograder grades, each in a tree of its own, the
reference (full marks, as `modlab grade` gives), the stubs (0), a labelled buggy variant uploaded as
`modlab submit`'s archive (its misconception named, its score `modlab grade`'s), a cheat that reads
the reference where the zip puts it and writes a results.json of its own (0), a submission that
sleeps in every scenario and one that ends its worker (0). Every results.json is checked against
Gradescope's documented fields.
What a student may upload is tested on its own, without grading, in test_gradescope_upload.py.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import pytest

from modlab.cli import main
from modlab.engine import GradeOptions, grade_submission
from modlab.formats.gradescope import Visibility
from modlab.grading.loader import load_scenarios
from modlab.instructor.gradescope import autograder
from modlab.instructor.gradescope.autograder import run_autograder
from modlab.instructor.gradescope.scripts import THIS_PYTHON
from modlab.instructor.variants import load_variants, variant_package
from modlab.pins import read_pins
from modlab.records import PASSED, ExerciseResult, SubmissionResult
from modlab.records import TestResult as Test
from modlab.student.submit import archive_bytes

from conftest import ROOT

# The zip's runs grade six submissions in fresh processes (a minute of CPU): queued first by make test.
pytestmark = pytest.mark.slow

VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
FORMAT = {"enum": ["text", "html", "simple_format", "md", "ansi"]}
NUMBER, STRING = {"type": "number"}, {"type": "string"}
# Gradescope's results.json, as https://gradescope-autograders.readthedocs.io/en/latest/specs/ documents it.
RESULTS_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["score", "tests"],
    "properties": {
        "score": NUMBER, "execution_time": NUMBER, "output": STRING, "output_format": FORMAT,
        "test_output_format": FORMAT, "test_name_format": FORMAT, "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY, "extra_data": {"type": "object"}, "leaderboard": {"type": "array"},
        "tests": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["score", "max_score", "name"],
            "properties": {
                "score": NUMBER, "max_score": NUMBER, "status": {"enum": ["passed", "failed"]}, "name": STRING,
                "name_format": FORMAT, "number": STRING, "output": STRING, "output_format": FORMAT,
                "tags": {"type": "array", "items": STRING}, "visibility": VISIBILITY, "extra_data": {"type": "object"},
            }}},
    }}
STUBS = ROOT / "exercises" / "mynn"
ATTACKS = ROOT / "tests" / "adversarial"
# A cheat for Gradescope: a results.json of its own, where Gradescope reads it.
FAKE_RESULTS = '''
import json as _json
try:
    with open({path!r}, "w") as _out:
        _json.dump({{"score": 100.0, "output": "all passed", "tests": []}}, _out)
except OSError:
    pass
'''


def valid(results: dict) -> dict:
    jsonschema.validate(results, RESULTS_SCHEMA)
    return results


# --- building the zip ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def zips(tmp_path_factory):
    """``{"course": zip of the whole course, "01": zip of exercise 01}``, built by the command."""
    folder = tmp_path_factory.mktemp("zips")
    assert main(["--course", str(ROOT / "course.yaml"), "gradescope", "build", "--out", str(folder / "course.zip")]) == 0
    assert main(["--course", str(ROOT / "course.yaml"), "gradescope", "build", "-e", "1",
                 "--out", str(folder / "01.zip")]) == 0
    return {"course": folder / "course.zip", "01": folder / "01.zip"}


def names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


def test_the_zip_holds_the_scripts_the_course_and_grading_and_nothing_else(zips, course):
    files = names(zips["course"])
    assert files[:2] == ["setup.sh", "run_autograder"]
    assert {name.split("/")[0] for name in files} == {
        "setup.sh", "run_autograder", "requirements.txt", "constraints.txt", "course.yaml", "graders", "solutions",
        "modlab"}
    assert sorted(n for n in files if n.startswith("graders/")) == sorted(
        p.relative_to(ROOT).as_posix() for p in course.graders.rglob("*.py")
        if p.name != "conftest.py" and "__pycache__" not in p.parts)
    assert sorted(n for n in files if n.startswith("solutions/")) == sorted(
        f"solutions/mynn/{p.name}" for p in course.solutions.glob("*.py"))
    tool = {n for n in files if n.startswith("modlab/")}
    assert {"modlab/engine/__init__.py", "modlab/isolation/worker.py", "modlab/instructor/gradescope/upload.py",
            "modlab/commands/gradescope.py", "modlab/__main__.py"} <= tool
    for left_out in ("modlab/cli.py", "modlab/student/", "modlab/batch/", "modlab/instructor/release.py",
                     "modlab/instructor/nbgrader/", "modlab/instructor/gradescope/bundle.py",
                     "modlab/commands/grade.py", "graders/conftest.py", "__pycache__", ".ipynb", "lessons/",
                     "exercises/", "tests/", "bench/", "docs/"):
        assert not [n for n in files if left_out in n], left_out
    assert [n for n in files if not n.endswith(".py")] == [
        "setup.sh", "run_autograder", "requirements.txt", "constraints.txt", "course.yaml"]


def test_a_zip_of_one_exercise_holds_its_scenarios_alone_and_the_whole_catalog(zips, course):
    graders = {n for n in names(zips["01"]) if n.startswith("graders/")}
    assert {n for n in graders if "/test_" in n} == {"graders/01_parameter/test_01_parameter.py"}
    assert {f"graders/{e.name}/misconceptions.py" for e in course.exercises} <= graders
    assert {"graders/__init__.py", "graders/shared/trees.py", "graders/shared/misconceptions.py"} <= graders


def test_the_scripts_are_executable_and_the_same_course_gives_the_same_zip(zips, tmp_path):
    with zipfile.ZipFile(zips["01"]) as archive:
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
    assert modes["setup.sh"] == modes["run_autograder"] == 0o100755 and modes["course.yaml"] == 0o100644
    again = tmp_path / "again.zip"
    assert main(["--course", str(ROOT / "course.yaml"), "gradescope", "build", "-e", "01", "--out", str(again)]) == 0
    assert again.read_bytes() == zips["01"].read_bytes()


def requirement_lines(text: str) -> list[str]:
    """The ``name==version`` lines of a requirements file."""
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def test_requirements_pin_what_grading_imports_to_the_courses_versions(zips):
    with zipfile.ZipFile(zips["01"]) as archive:
        requirements = requirement_lines(archive.read("requirements.txt").decode())
        setup = archive.read("setup.sh").decode()
    pins = read_pins(ROOT / "constraints.txt")
    assert [line.split("==")[0] for line in requirements] == ["torch", "numpy", "PyYAML", "hypothesis", "rich"]
    assert all(pins[name.lower()] == version for name, version in (line.split("==") for line in requirements))
    assert "--extra-index-url https://download.pytorch.org/whl/cpu -r requirements.txt -c constraints.txt" in setup


def test_setup_installs_into_the_projects_own_venv_without_the_network(zips, tmp_path):
    """setup.sh's install step, run against this venv, where every pin is already satisfied;
    no index is asked (PIP_NO_INDEX), and apt-get, if it were reached, would fail the test.
    It leaves the reference and the graders readable by root alone, modlab by everyone."""
    source = tmp_path / "source"
    zipfile.ZipFile(zips["01"]).extractall(source)
    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / f"python{THIS_PYTHON}").symlink_to(sys.executable)
    (shims / "apt-get").write_text("#!/bin/sh\necho 'apt-get was run' >&2\nexit 1\n")
    (shims / "apt-get").chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}:{os.environ['PATH']}", "MODLAB_VENV": sys.prefix, "PIP_NO_INDEX": "1"}
    done = subprocess.run(["bash", str(source / "setup.sh")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    requirements = requirement_lines((source / "requirements.txt").read_text())
    assert requirements  # at the course's pins: test_requirements_pin_what_grading_imports_to_the_courses_versions
    for requirement in requirements:
        assert f"Requirement already satisfied: {requirement}" in done.stdout
    private = [source / "solutions", source / "graders", *(source / "solutions" / "mynn").iterdir()]
    assert all(stat.S_IMODE(path.stat().st_mode) & 0o077 == 0 for path in private)
    assert stat.S_IMODE((source / "modlab" / "course.py").stat().st_mode) & 0o004


def test_build_refuses_bad_input_in_one_line(capsys, tmp_path):
    course = ["--course", str(ROOT / "course.yaml"), "gradescope", "build"]
    for extra, says in ((["-e", "42"], "unknown exercise '42'"), (["--out", str(tmp_path / "x.tar")], "ending in .zip"),
                        (["--python", "3.11; curl evil"], "expected 3.X")):
        assert main(course + extra) == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


def copy_course(folder: Path) -> Path:
    """A copy of the course's grading side (course.yaml, constraints.txt, graders/, solutions/) in ``folder``."""
    for name in ("course.yaml", "constraints.txt"):
        shutil.copy(ROOT / name, folder / name)
    for name in ("graders", "solutions"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    return folder / "course.yaml"


def test_the_zip_leaves_out_the_test_data_beside_the_graders_and_other_solutions(tmp_path):
    """The labelled and the blind buggy submissions and their measurements (the project's test data,
    yaml beside each grader), a solution other than the reference, notes beside the reference."""
    course_yaml = copy_course(tmp_path)
    (tmp_path / "graders" / "01_parameter" / "student_bugs.yaml").write_text("bugs: []\n")
    (tmp_path / "solutions" / "alternative").mkdir()
    (tmp_path / "solutions" / "alternative" / "parameter.py").write_text("ANSWER = 1\n")
    (tmp_path / "solutions" / "mynn" / "NOTES.md").write_text("how the reference works\n")
    assert main(["--course", str(course_yaml), "gradescope", "build", "--out", str(tmp_path / "a.zip")]) == 0
    files = names(tmp_path / "a.zip")
    assert {"graders/01_parameter/variants.yaml", "graders/01_parameter/measured.yaml"} <= {
        p.relative_to(tmp_path).as_posix() for p in (tmp_path / "graders").rglob("*.yaml")}
    for left_out in ("student_bugs", "measured", "variants", "alternative", "NOTES"):
        assert not [n for n in files if left_out in n], left_out
    assert {n for n in files if n.startswith("solutions/")} == {
        f"solutions/mynn/{p.name}" for p in (ROOT / "solutions" / "mynn").glob("*.py")}


def test_build_refuses_a_course_it_cannot_grade_on_gradescope(capsys, tmp_path):
    """An exercise without a grader, or something grading imports that constraints.txt does not pin."""
    copy_course(tmp_path)
    shutil.rmtree(tmp_path / "graders" / "02_registration")
    pins = (ROOT / "constraints.txt").read_text()
    (tmp_path / "constraints.txt").write_text(pins.replace("rich==", "# rich=="))
    build = ["--course", str(tmp_path / "course.yaml"), "gradescope", "build", "--out", str(tmp_path / "a.zip")]
    assert main(build + ["-e", "01"]) == 2
    assert "constraints.txt pins no version of rich: pin it" in capsys.readouterr().err
    (tmp_path / "constraints.txt").write_text(pins)
    assert main(build + ["-e", "02"]) == 2
    assert "no grader for graders/02_registration/test_02_registration.py" in capsys.readouterr().err
    assert main(build + ["-e", "01"]) == 0 and (tmp_path / "a.zip").is_file()


def test_help_names_the_guide(capsys):
    with pytest.raises(SystemExit):
        main(["gradescope", "build", "--help"])
    assert "docs/gradescope.md" in capsys.readouterr().out
    assert (ROOT / "docs" / "gradescope.md").is_file()


# --- run_autograder in a tree like Gradescope's ----------------------------------------------

def autograder_tree(folder: Path, zip_path: Path) -> Path:
    """``folder/autograder``: source/ (the zip, unpacked), submission/ (empty), as Gradescope lays it out."""
    root = folder / "autograder"
    zipfile.ZipFile(zip_path).extractall(root / "source")
    (root / "submission").mkdir()
    return root


def image_venv(folder: Path) -> Path:
    """A venv like the one setup.sh makes on Gradescope: the packages of this one, and no modlab but the zip's.

    This venv's own site-packages are a plain path of the new one (a ``.pth`` line), so that its
    ``.pth`` files are not run: modlab's editable install, whose import hook would supply from
    this checkout any module of modlab the zip lacks, is not there.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    ours = {sysconfig.get_path(kind) for kind in ("purelib", "platlib")}
    where = "import sysconfig; print(sysconfig.get_path('purelib'))"
    theirs = subprocess.run([str(folder / "bin" / "python"), "-c", where],
                            check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    (Path(theirs) / "this_projects_packages.pth").write_text("".join(f"{path}\n" for path in sorted(ours)))
    return folder


def run_in(root: Path, venv: Path) -> dict:
    """run_autograder, as Gradescope runs it (from /autograder), with ``venv`` for the image's."""
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "MODLAB_VENV": str(venv)}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return {"stdout": done.stdout, **valid(json.loads((root / "results" / "results.json").read_text()))}


def stub_with(*parts: str) -> str:
    return "\n\n".join([(STUBS / "parameter.py").read_text(), *parts])


def buggy_archive(course, folder: Path) -> bytes:
    """The labelled variant copies_the_data, as `modlab submit 01` packs it."""
    variant = next(v for v in load_variants(course) if v.name == "copies_the_data")
    package = variant_package(course, variant, folder)
    contents = {"mynn/parameter.py": (package / "parameter.py").read_bytes()}
    manifest = {"format": "modlab-submission/1", "course": course.id, "student": "ada", "exercise": "01",
                "slug": "parameter", "submitted_at": "2027-01-15T10:15:00Z", "files": [], "tool": "modlab 0.1.0"}
    return archive_bytes(manifest, contents)


@pytest.fixture(scope="module")
def runs(zips, course, tmp_path_factory):
    """Each kind of submission, uploaded and graded by the zip's run_autograder in a tree of its own."""
    folder = tmp_path_factory.mktemp("gradescope")
    uploads = {
        "reference": lambda sub: (sub / "parameter.py").write_bytes((course.solutions / "parameter.py").read_bytes()),
        "stubs": lambda sub: shutil.copytree(STUBS, sub / "mynn"),
        "buggy": lambda sub: (sub / "ada-01-20270115T101500Z.zip").write_bytes(buggy_archive(course, folder / "v")),
        "cheat": lambda sub: (sub / "parameter.py").write_text(stub_with(
            (ATTACKS / "reads_solutions.py").read_text(),
            FAKE_RESULTS.format(path=str(sub.parent / "results" / "results.json")))),
        "hang": lambda sub: (sub / "parameter.py").write_text(stub_with((ATTACKS / "sleeps_every_scenario.py").read_text())),
        "crash": lambda sub: (sub / "parameter.py").write_text(stub_with((ATTACKS / "os_exit_mid_scenario.py").read_text())),
    }
    venv, roots = image_venv(folder / "venv"), {}
    for kind, upload in uploads.items():
        roots[kind] = autograder_tree(folder / kind, zips["01"])
        upload(roots[kind] / "submission")
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = dict(zip(roots, pool.map(run_in, roots.values(), [venv] * len(roots))))
    results["roots"] = roots
    return results


def test_the_reference_gets_full_marks_as_modlab_grade_gives(runs, course):
    reference = runs["reference"]
    graded = grade_submission(course, course.solutions, [course.exercise("01")], GradeOptions())
    assert reference["score"] == round(graded.score, 4) == course.exercise("01").points
    assert all(t["status"] == "passed" and t["score"] == t["max_score"] for t in reference["tests"])
    assert len(reference["tests"]) == len(graded.exercises[0].tests)
    assert "graded the files of the upload: parameter.py" in reference["stdout"]


def test_the_stubs_get_zero_with_every_check_failed(runs):
    stubs = runs["stubs"]
    assert stubs["score"] == 0 and stubs["tests"]
    assert all(t["status"] == "failed" and t["score"] == 0 for t in stubs["tests"])
    assert "graded the files of mynn/ in the upload" in stubs["stdout"]


def test_a_buggy_archive_loses_points_names_its_misconception_and_scores_as_modlab_grade(runs, course, tmp_path):
    buggy = runs["buggy"]
    assert 0 < buggy["score"] < course.exercise("01").points
    failed = [t for t in buggy["tests"] if t["status"] == "failed"]
    assert failed and all("[parameter-copies-data]" in t["output"] for t in failed if t["visibility"] == "visible")
    assert "graded the files of the archive ada-01-20270115T101500Z.zip" in buggy["stdout"]
    variant = next(v for v in load_variants(course) if v.name == "copies_the_data")
    package = variant_package(course, variant, tmp_path)
    assert main(["--course", str(ROOT / "course.yaml"), "grade", str(package), "-e", "01",
                 "--json", str(tmp_path / "grade.json")]) == 0
    assert buggy["score"] == json.loads((tmp_path / "grade.json").read_text())["score"]


def test_hidden_checks_show_after_the_due_date_numbered_and_unnamed(runs, course):
    buggy = runs["buggy"]
    scenarios = load_scenarios(course, course.exercise("01"))
    hidden = [t for t in buggy["tests"] if t["visibility"] == "after_due_date"]
    assert len(hidden) == sum(not s.public for s in scenarios) > 0
    assert [t["name"] for t in hidden] == [f"01 hidden check {n}" for n in range(1, len(hidden) + 1)]
    text = json.dumps(buggy)
    assert not [s.name for s in scenarios if not s.public and s.name in text]
    assert {t["visibility"] for t in buggy["tests"]} == {"visible", "after_due_date"}
    assert buggy["stdout_visibility"] == "hidden"
    public = [t for t in buggy["tests"] if t["visibility"] == "visible"]
    passed = sum(t["status"] == "passed" for t in public)
    assert buggy["output"] == (f"{passed} of {len(public)} public checks passed; the hidden checks and your score "
                               f"are shown after the due date")


def test_a_cheat_earns_nothing_and_its_own_results_file_is_replaced(runs):
    """It reads the reference where the zip puts it (source/solutions/) to run it as its own,
    and writes a results.json of full marks where Gradescope reads it."""
    cheat = runs["cheat"]
    assert cheat["score"] == 0 and cheat["tests"]
    assert all(t["status"] == "failed" for t in cheat["tests"])
    assert any("NotImplementedError" in t["output"] for t in cheat["tests"])


def test_a_submission_that_sleeps_still_ends_with_its_results(runs):
    hang = runs["hang"]
    assert hang["score"] == 0 and hang["tests"] and all(t["status"] == "failed" for t in hang["tests"])
    assert any("exceed" in t["output"] for t in hang["tests"])


def test_a_submission_that_ends_its_worker_still_ends_with_its_results(runs):
    crash = runs["crash"]
    assert crash["score"] == 0 and crash["tests"] and all(t["status"] == "failed" for t in crash["tests"])
    assert any("exited with code 0" in t["output"] for t in crash["tests"])


# --- what run_autograder writes besides grades --------------------------------------------------

def test_an_upload_with_nothing_to_grade_gets_zero_and_one_line(course, tmp_path):
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "essay.pdf").write_bytes(b"%PDF")
    (root / "submission_metadata.json").write_text('{"previous_submissions": []}')
    lines = []
    data = run_autograder(course, root, [course.exercise("01")], Visibility(), log=lines.append)
    written = valid(json.loads((root / "results" / "results.json").read_text()))
    for private in (root / "results" / "results.json", root / "submission_metadata.json"):
        assert stat.S_IMODE(private.stat().st_mode) == 0o600  # what a submission's user cannot read
    assert written == data and data["score"] == 0 and data["tests"] == []
    assert data["output"].startswith("nothing to grade: upload parameter.py (exercise 01)")
    assert data["output"].endswith("found essay.pdf") and "\n" not in data["output"]
    assert lines == [f"not graded: {data['output']}"]


def test_results_say_grading_did_not_finish_until_it_has(course, tmp_path, monkeypatch):
    """What Gradescope keeps if it stops the run at its own time limit, exercise by exercise."""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "parameter.py").write_text("")
    seen = []

    def grading(course, package, exercises, options, student, progress):
        seen.append(json.loads((root / "results" / "results.json").read_text()))
        progress(ExerciseResult("01", 10.0, 10.0, [Test("t", PASSED, 10.0, 10.0, public=True)]))
        seen.append(json.loads((root / "results" / "results.json").read_text()))
        return SubmissionResult("s", [ExerciseResult("01", 10.0, 10.0), ExerciseResult("02", 0.0, 15.0)])

    monkeypatch.setattr(autograder, "grade_submission", grading)
    data = run_autograder(course, root, [course.exercise("01"), course.exercise("02")], Visibility(), log=lambda _: None)
    assert seen[0]["output"].startswith("grading did not finish (the autograder's time limit?): exercises 01, 02 not")
    assert seen[1]["output"] == ("grading did not finish (the autograder's time limit?): exercises 02 not graded\n"
                                 "10.00 of 10 points")
    assert seen[1]["score"] == 10 and len(seen[1]["tests"]) == 1
    assert data["output"] == "10.00 of 25 points"


def test_a_fault_of_the_grading_leaves_no_results_so_gradescope_reports_it(course, tmp_path, monkeypatch):
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "parameter.py").write_text("")

    def broken(*args, **kwargs):
        raise RuntimeError("a grader's bug")

    monkeypatch.setattr(autograder, "grade_submission", broken)
    with pytest.raises(RuntimeError, match="a grader's bug"):
        run_autograder(course, root, [course.exercise("01")], Visibility(), log=lambda _: None)
    assert list((root / "results").iterdir()) == []
