"""The kit's own helpers: the one-line warning of a torch other than the
course's (in ``modlab check`` and ``modlab doctor``), and the lesson
notebooks' one-line message for a stub."""
import importlib.metadata
import os
import re
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
    grader = kit / "graders" / "test_01_parameter.py"
    assert "9 of 9 public checks passed" in check()  # the second check reads them
    grader.write_text(grader.read_text() + "\n# edited\n")
    assert "9 of 9 public checks passed" in check()
    [renewed] = (kit / ".modlab" / "torch-nn").glob("torch-*.json")
    assert renewed != kept  # another grader: another file, and the old one is gone
