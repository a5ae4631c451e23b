"""The student's side: check, submit and status on a released kit, bad input,
the nbgrader exchange, and the whole path from a fresh virtual environment."""
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest

from modlab.cli import main
from modlab.course import load_course
from modlab.errors import UsageError
from modlab.student.status import status_rows, status_table
from modlab.student.submit import MANIFEST, read_submissions, student_id, submit
from modlab.student.workspace import open_workspace

from student_kit import kit_copy


@pytest.fixture
def kit(tmp_path):
    """A fresh student kit holding the reference code of exercises 01 to 03."""
    return kit_copy(tmp_path / "kit", reference=("parameter.py", "registration.py", "walk.py"))


def modlab(kit, *args):
    return main(["--course", str(kit / "course.yaml"), *args, "--path", str(kit)])


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_an_unknown_exercise_lists_the_known_ones(kit, capsys):
    assert modlab(kit, "check", "42") == 2
    assert "unknown exercise '42'; known exercises: 01, 02, 03" in one_line_error(capsys)


def test_a_renamed_file_is_named_with_its_new_name(kit, capsys):
    (kit / "mynn" / "walk.py").rename(kit / "mynn" / "walk_v2.py")
    assert modlab(kit, "check", "03") == 2
    assert "mynn/walk.py is missing: exercise 03 is written in mynn/walk.py; found walk_v2.py" in one_line_error(capsys)
    assert modlab(kit, "submit", "03", "--student", "ada") == 2
    one_line_error(capsys)
    assert not (kit / "submissions").exists()


def test_a_syntax_error_shows_file_and_line(kit, capsys):
    (kit / "mynn" / "walk.py").write_text('"""Walk."""\n\ndef named_parameters(self:\n    pass\n')
    assert modlab(kit, "check", "03") == 2
    assert "mynn/walk.py:3: SyntaxError: " in one_line_error(capsys)
    assert modlab(kit, "submit", "03", "--student", "ada") == 2
    assert "mynn/walk.py:3: SyntaxError" in one_line_error(capsys)
    assert not (kit / "submissions").exists()


def test_a_bad_student_id_is_refused(kit, capsys):
    assert modlab(kit, "submit", "01", "--student", "ada lovelace") == 2
    assert "student id 'ada lovelace' (from --student)" in one_line_error(capsys)


def test_the_student_id_comes_from_the_flag_then_jupyterhub_then_the_login(monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "hub-user")
    monkeypatch.setattr("getpass.getuser", lambda: "login-user")
    assert student_id("flag-user") == "flag-user"
    assert student_id() == "hub-user"
    monkeypatch.delenv("JUPYTERHUB_USER")
    assert student_id() == "login-user"


def test_a_check_failing_in_an_earlier_exercise_says_which_to_fix_first(tmp_path):
    """The kit has no reference code: exercise 03 is checked on the student's
    whole package, and a stubbed 02 under it must be named as the cause."""
    kit = kit_copy(tmp_path / "kit", reference=("parameter.py", "walk.py"))
    done = subprocess.run([sys.executable, "-m", "modlab", "check", "03"], cwd=kit, capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "in registration.py (exercise 02)" in done.stdout and "Traceback" not in done.stderr


def read_archive(path: Path) -> tuple[dict, dict[str, bytes]]:
    with zipfile.ZipFile(path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    return json.loads(files.pop(MANIFEST)), files


def test_a_submission_holds_exactly_the_exercise_files_and_a_manifest(kit):
    workspace = open_workspace(load_course(kit / "course.yaml"), kit)
    exercise = workspace.course.exercise("08")
    first = submit(workspace, exercise, "ada")
    second = submit(workspace, exercise, "ada")
    assert first != second and first.is_file(), "a resubmission never overwrites"
    assert first.name.startswith("ada-08-") and first.parent == kit / "submissions"
    manifest, files = read_archive(first)
    assert sorted(files) == ["mynn/layers.py", "mynn/printing.py"]
    assert {f["path"]: f["sha256"] for f in manifest["files"]} == \
           {name: hashlib.sha256((kit / name).read_bytes()).hexdigest() for name in files}
    assert (manifest["student"], manifest["exercise"], manifest["tool"]) == ("ada", "08", "modlab 0.1.0")
    assert manifest["submitted_at"].endswith("Z")
    whole = read_archive(submit(workspace, workspace.course.exercise("09"), "ada"))[1]
    assert sorted(whole) == sorted(f"mynn/{p.name}" for p in (kit / "mynn").glob("*.py")), \
        "the capstone is graded on the whole package, so all of it is submitted"
    submissions, problems = read_submissions(workspace)
    assert len(submissions["08"]) == 2 and problems == []
    row = next(r for r in status_rows(workspace, submissions) if r.exercise.id == "08")
    assert row.submitted.startswith(manifest["submitted_at"][:10]) and row.checks == "not run"


def test_status_warns_about_foreign_archives_and_marks_stale_checks(kit, capsys):
    (kit / "submissions").mkdir()
    (kit / "submissions" / "holiday-photos.zip").write_text("not a zip")
    (kit / ".modlab").mkdir()
    (kit / ".modlab" / "checks.json").write_text(json.dumps(
        {"01": {"passed": 4, "failed": 0, "sha256": {"mynn/parameter.py": "edited since"}}}))
    assert modlab(kit, "status") == 0
    out, err = capsys.readouterr()
    assert "holiday-photos.zip: not a modlab submission" in err
    assert "4/4 passed *" in out and "changed since that check" in out
    assert "09" in status_table(status_rows(open_workspace(load_course(kit / "course.yaml"), kit), {}))


@pytest.fixture
def exchange_kit(kit, tmp_path, monkeypatch):
    """The kit of a course that names an nbgrader exchange, with exercise 03 released there."""
    pytest.importorskip("nbgrader")
    course_file = kit / "course.yaml"
    course_file.write_text(course_file.read_text().replace("exercises:", "exchange: ../exchange\nexercises:", 1))
    course = load_course(course_file)
    released = kit.parent / "exchange" / course.id / "outbound" / "03_walk"
    released.mkdir(parents=True)
    (released / "03_walk.ipynb").write_text('{"released": "by nbgrader, with its score cell"}')
    (kit.parent / "exchange" / course.id / "inbound").mkdir()
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))  # nbgrader's submit cache
    return kit


def test_submit_hands_the_files_to_nbgraders_exchange(exchange_kit):
    workspace = open_workspace(load_course(exchange_kit / "course.yaml"), exchange_kit)
    archive = submit(workspace, workspace.course.exercise("03"), "ada")
    inbound = list((exchange_kit.parent / "exchange" / workspace.course.id / "inbound").iterdir())
    assert len(inbound) == 1 and inbound[0].name.startswith("ada+03_walk+")
    sent = {str(p.relative_to(inbound[0])) for p in inbound[0].rglob("*") if p.is_file()}
    assert {"mynn/walk.py", MANIFEST, "03_walk.ipynb", "timestamp.txt"} <= sent
    assert "score cell" in (inbound[0] / "03_walk.ipynb").read_text(), "the released notebook, not the kit's"
    assert archive.is_file()


def test_an_unwritable_exchange_fails_cleanly_and_leaves_no_archive(exchange_kit):
    workspace = open_workspace(load_course(exchange_kit / "course.yaml"), exchange_kit)
    shutil.rmtree(exchange_kit.parent / "exchange")
    with pytest.raises(UsageError, match="refused the submission: Unwritable directory"):
        submit(workspace, workspace.course.exercise("03"), "ada")
    assert not list((exchange_kit / "submissions").glob("*.zip"))


def fresh_venv(where: Path) -> Path:
    """A new virtual environment that sees this one's packages (torch and the
    rest, so nothing is downloaded) but not its editable modlab."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    # A path listed in a .pth file is searched, but the .pth files inside it
    # (the editable modlab's finder) are not run.
    (Path(purelib) / "modlab-test-base.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.mark.slow
def test_the_student_path_from_a_fresh_venv(tmp_path):
    """Release, install in a fresh venv, write exercise 01, check, submit
    (with spawned workers, as on macOS and Windows), status."""
    started = time.monotonic()
    kit = kit_copy(tmp_path / "kit", reference=("parameter.py",))
    timings = {"release": time.monotonic() - started}

    pytest.importorskip("setuptools", reason="installing the kit offline needs setuptools here")
    python = fresh_venv(tmp_path / "venv")
    extra = "[notebook]" if importlib.util.find_spec("jupyterlab") else ""  # as the README says, where possible
    started = time.monotonic()
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation",
                    f"{kit}{extra}"], check=True, cwd=tmp_path)
    timings["pip install"] = time.monotonic() - started
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MODLAB_START_METHOD")}

    def student(*args, **extra_env):
        started = time.monotonic()
        done = subprocess.run([str(python.parent / "modlab"), *args], cwd=kit, capture_output=True, text=True,
                              env={**env, **extra_env})
        timings[" ".join(args[:2])] = time.monotonic() - started
        assert "Traceback" not in done.stderr, done.stderr
        return done

    where = subprocess.run([str(python), "-c", "import modlab; print(modlab.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout
    assert str(tmp_path / "venv") in where, "the fresh venv must run the released modlab"

    checked = student("check", "01")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "exercise 01: 9 of 9 public checks passed (all passed)" in checked.stdout

    submitted = student("submit", "01", "--student", "ada", MODLAB_START_METHOD="spawn")
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    assert "started with 'spawn'" in submitted.stderr and submitted.stderr.count("\n") == 1
    assert "public checks passed (all passed)" in submitted.stdout
    archives = list((kit / "submissions").glob("ada-01-*.zip"))
    assert len(archives) == 1
    manifest, files = read_archive(archives[0])
    assert list(files) == ["mynn/parameter.py"]
    assert manifest["files"] == [{"path": "mynn/parameter.py", "bytes": len(files["mynn/parameter.py"]),
                                  "sha256": hashlib.sha256(files["mynn/parameter.py"]).hexdigest()}]
    assert manifest["public_checks"] == {"passed": 9, "failed": 0}

    status = student("status", MODLAB_START_METHOD="spawn")
    row = next(line for line in status.stdout.splitlines() if line.startswith("01 "))
    assert "9/9 passed" in row and manifest["submitted_at"][:10] in row
    print("student path:", ", ".join(f"{step} {seconds:.1f} s" for step, seconds in timings.items()))
