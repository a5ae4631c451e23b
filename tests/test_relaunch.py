"""A grading command relaunched to load torch once: the same process and command, a zygote that
knows nothing of either.

The first tests run a small program as a command would run: it calls
:func:`modlab.isolation.relaunch.relaunch` before anything else, and then reports what the
relaunched process and its zygote hold. The secrets are planted in the command's arguments and
environment and searched for by value. The last ones check which of modlab's commands relaunch.
"""
import dataclasses
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from modlab.instructor.gradescope.bundle import AUTOGRADER_MAIN

from conftest import ROOT

REPORT = """\
import json, os, sys, tempfile
from modlab.isolation import launcher
from modlab.isolation.relaunch import relaunch

def read(path):
    return open(path, "rb").read().decode(errors="replace")

def main(status):
    relaunch("report", "main", [status + 1])
    zygote = launcher.zygote().process.pid
    print(json.dumps({
        "pid": os.getpid(), "argv": sys.argv[1:], "token": os.environ.get("COURSE_API_TOKEN"),
        "warnings": sys.warnoptions, "torch_loaded": "torch" in sys.modules, "tempdir": tempfile.gettempdir(),
        "zygote_parent": int(read(f"/proc/{zygote}/stat").rsplit(")", 1)[1].split()[1]),
        "zygote_name": read(f"/proc/{zygote}/comm").strip(),
        "seen_by_zygote": read(f"/proc/{zygote}/environ") + read(f"/proc/{zygote}/cmdline"),
        "started_with": read("/proc/self/environ") + read("/proc/self/cmdline"),
    }))
    return status
"""


@dataclasses.dataclass
class Report:
    """What a relaunched command saw, and what it was started with."""

    done: subprocess.CompletedProcess
    pid: int  # the process its starter started
    secret: str  # planted in its arguments and environment
    folder: Path
    seen: dict


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Report:
    folder = tmp_path_factory.mktemp("relaunch")
    (folder / "report.py").write_text(REPORT)
    secret = f"SECRET-{uuid.uuid4().hex}"
    command = [sys.executable, "-W", "ignore::ResourceWarning", "-c", "import sys, report; sys.exit(report.main(1))",
               f"--out={folder / secret}"]
    env = {**os.environ, "COURSE_API_TOKEN": secret, "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}",
           "TMPDIR": str(folder)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = process.communicate(timeout=120)
    done = subprocess.CompletedProcess(command, process.returncode, out, err)
    return Report(done, process.pid, secret, folder, json.loads(out) if out else {})


def test_the_command_runs_again_in_its_own_process_with_its_arguments_and_environment(report):
    assert report.done.returncode == 2, report.done.stderr  # what the relaunched call returned
    # printed once: nothing of the first run's is printed twice
    assert report.done.stdout.count("\n") == 1
    seen = report.seen
    assert seen["pid"] == report.pid  # the same process: its starter waits for it, signals reach it
    assert seen["argv"] == [f"--out={report.folder / report.secret}"] and seen["token"] == report.secret
    assert seen["tempdir"] == str(report.folder)  # nothing loaded before the environment came cached one without it
    assert "ignore::ResourceWarning" in seen["warnings"]  # the interpreter's options are kept
    assert seen["torch_loaded"]  # loaded before the command started again


def test_its_zygote_is_forked_from_it_and_holds_neither_its_arguments_nor_its_environment(report):
    seen = report.seen
    assert seen["zygote_parent"] == report.pid and seen["zygote_name"] == "modlab-zygote"
    assert report.secret not in seen["seen_by_zygote"]
    # what the zygote's memory was copied from: the process as it was exec'd, before the command was read
    assert report.secret not in seen["started_with"]


def test_where_workers_are_spawned_the_command_runs_on_where_it_is():
    code = ("import os, sys; from modlab.isolation.relaunch import relaunch; relaunch('os', 'abort', []); "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MODLAB_START_METHOD": "spawn"})
    assert done.stdout.split() == ["False"], done.stderr


def test_a_command_given_a_list_of_arguments_never_relaunches(tmp_path, monkeypatch):
    """A test or nbgrader's pipeline calls ``modlab`` in its own process: relaunched, that process
    would run its own command line (pytest's, nbgrader's) as modlab's."""
    from modlab.cli import main as modlab

    relaunched = []
    monkeypatch.setattr("modlab.isolation.relaunch.relaunch", lambda *entry: relaunched.append(entry))
    assert modlab(["grade", str(ROOT / "solutions"), "--exercise", "01", "--device", "cpu",
                   "--json", str(tmp_path / "r.json")]) == 0
    assert relaunched == []


MODLAB = [sys.executable, "-m", "modlab"]
GRADESCOPES_MODLAB = [sys.executable, "-c", AUTOGRADER_MAIN]  # the zip's `python -m modlab`


@pytest.mark.parametrize("command", [[*MODLAB, "grade", "solutions", "--exercise", "01", "--device", "cpu"],
                                     [*MODLAB, "check", "01", "--path", "solutions"],
                                     [*GRADESCOPES_MODLAB, "--root", "autograder"]],
                         ids=["grade", "check", "gradescope run"])
def test_modlab_relaunches_the_commands_that_grade(command):
    """A check here is outside a check server (no terminal): it grades in its own process. Each
    command is ended once it is seen relaunched; the rest of the suite runs them to their end."""
    env = {**os.environ, "MODLAB_CHECK_SERVER": "0"}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen, deadline = "", time.monotonic() + 60
    while process.poll() is None and "modlab.isolation.relaunch" not in seen and time.monotonic() < deadline:
        seen = Path(f"/proc/{process.pid}/cmdline").read_bytes().decode(errors="replace")
        time.sleep(0.01)
    process.kill()
    process.wait()
    assert "modlab.isolation.relaunch" in seen
