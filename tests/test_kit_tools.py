"""The kit's own helpers: the one-line warning of a torch other than the
course's (in ``modlab check`` and ``modlab doctor``), the lesson notebooks'
one-line message for a stub, torch.nn's answers kept between checks; and, on
nbgrader's side, an assignment's earlier work, paths and student ids."""
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from modlab.cli import main
from modlab.pins import read_pins, version_mismatch

from conftest import ROOT
from student_kit import kit_copy

REAL_VERSION = importlib.metadata.version


@pytest.fixture
def torch_installed(monkeypatch):
    """Pretend the installed torch is another version: ``torch_installed("2.14.1")``."""
    def pretend(version: str) -> None:
        monkeypatch.setattr(importlib.metadata, "version",
                            lambda name: version if name == "torch" else REAL_VERSION(name))
    return pretend


def test_a_different_torch_is_one_line_naming_both_versions(torch_installed):
    pinned = read_pins(ROOT / "constraints.txt")["torch"]
    torch_installed("2.14.1")
    line = version_mismatch(ROOT)
    assert line.startswith(f"warning: this course grades with torch {pinned}, but torch 2.14.1 is installed here")
    assert "\n" not in line and "pip install -c constraints.txt" in line


def test_the_same_release_built_for_the_cpu_is_no_difference(torch_installed, tmp_path):
    torch_installed(read_pins(ROOT / "constraints.txt")["torch"] + "+cpu")
    assert version_mismatch(ROOT) == ""
    assert version_mismatch(tmp_path) == ""  # a folder without pins: nothing to compare with


def test_check_warns_in_one_line_and_still_checks(tmp_path, torch_installed, capsys):
    kit = kit_copy(tmp_path / "kit", reference=("parameter.py",))
    torch_installed("2.4.0")
    assert main(["--course", str(kit / "course.yaml"), "check", "01", "--path", str(kit)]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("warning: this course grades with torch 2.13.0, but torch 2.4.0")
    assert "exercise 01: 9 of 9 public checks passed (all passed)" in out


def test_doctor_warns_in_one_line_inside_a_course(tmp_path, torch_installed, capsys, monkeypatch):
    kit = kit_copy(tmp_path / "kit")
    (kit / "model.py").write_text("import torch\n\ndef model():\n    return torch.nn.Linear(2, 2)\n")
    monkeypatch.chdir(kit)
    torch_installed("2.14.1")
    assert main(["doctor", "model.py:model"]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "but torch 2.14.1 is installed here" in err
    assert "every module and trainable tensor it holds is registered" in out


LESSON_CELLS = """\
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "modlab.student.lesson")
shell.run_cell("import torch, mynn\\nmynn.Parameter(torch.zeros(2))")
print("--- next cell")
shell.run_cell("raise ValueError('mine')")
"""


def test_a_lesson_cell_on_a_stub_says_what_to_write_in_one_line(tmp_path):
    pytest.importorskip("IPython")
    kit = kit_copy(tmp_path / "kit")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    shown = subprocess.run([sys.executable, "-c", LESSON_CELLS], cwd=kit, capture_output=True, text=True, env=env)
    stub, other = re.sub(r"\x1b\[[0-9;]*m", "", shown.stdout).split("--- next cell\n")  # no colours
    assert stub == ("NotImplementedError: still the stub: fill in __new__ in mynn/parameter.py (exercise 01), "
                    "then restart the kernel and run this cell again (Python imports a module once)\n")
    assert "Traceback" in other and "ValueError: mine" in other  # any other error keeps its traceback


def test_torch_nns_answers_are_kept_per_version_of_everything_they_depend_on(tmp_path):
    kit = kit_copy(tmp_path / "kit", reference=("parameter.py",))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def check() -> str:  # each check a process of its own, as a student runs them
        done = subprocess.run([sys.executable, "-m", "modlab", "check", "01"], cwd=kit, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    check()
    [kept] = (kit / ".modlab" / "torch-nn").glob("torch-*.json")
    grader = kit / "graders" / "01_parameter" / "test_01_parameter.py"
    assert "9 of 9 public checks passed" in check()  # the second check reads them
    grader.write_text(grader.read_text() + "\n# edited\n")
    assert "9 of 9 public checks passed" in check()
    [renewed] = (kit / ".modlab" / "torch-nn").glob("torch-*.json")
    assert renewed != kept  # another grader: another file, and the old one is gone


def test_an_nbgrader_assignment_brings_in_the_students_earlier_work(tmp_path):
    from modlab.student.lesson import bring_earlier_work

    stubs = ROOT / "exercises" / "mynn"
    for assignment in ("01_parameter", "02_registration", "03_walk"):
        shutil.copytree(stubs, tmp_path / assignment / "mynn")
    finished = (ROOT / "solutions" / "mynn" / "parameter.py").read_text()
    (tmp_path / "01_parameter" / "mynn" / "parameter.py").write_text(finished)
    (tmp_path / "03_walk" / "mynn" / "walk.py").write_text("# my own start\n")
    assert bring_earlier_work(tmp_path / "03_walk") == ["mynn/parameter.py: your work from ../01_parameter/ (exercise 01)"]
    assert (tmp_path / "03_walk" / "mynn" / "parameter.py").read_text() == finished
    assert (tmp_path / "03_walk" / "mynn" / "registration.py").read_text() == (stubs / "registration.py").read_text()
    assert (tmp_path / "03_walk" / "mynn" / "walk.py").read_text() == "# my own start\n"  # work here is kept
    assert bring_earlier_work(tmp_path / "01_parameter") == []  # nothing comes from a later exercise
    assert bring_earlier_work(tmp_path / "03_walk") == []  # once brought in, it is the student's file here


def test_check_outside_a_course_names_no_absolute_path(tmp_path, monkeypatch, capsys):
    assignment = tmp_path / "autograded" / "ada" / "01_parameter"
    assignment.mkdir(parents=True)
    monkeypatch.chdir(assignment)
    assert main(["check", "01"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("modlab check: error: no course.yaml in this folder or any folder above it")
    assert str(tmp_path) not in err and err.count("\n") == 1


@pytest.mark.parametrize("layout", ["{student}/01_parameter/mynn", "{student}/01_parameter", "{student}/mynn"])
def test_a_graded_record_names_the_student_in_nbgraders_layout_and_a_class(tmp_path, layout):
    for student in ("ada", "bob"):
        package = tmp_path / "submitted" / layout.format(student=student)
        package.mkdir(parents=True)
        shutil.copy(ROOT / "solutions" / "mynn" / "parameter.py", package)
        out = tmp_path / f"{student}.json"
        assert main(["--course", str(ROOT / "course.yaml"), "grade", str(package.parent if layout.endswith("mynn")
                     else package), "--exercise", "01", "--json", str(out)]) == 0
        assert json.loads(out.read_text())["student"] == student
