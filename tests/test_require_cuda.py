"""CUDA cases skip where CUDA is absent, and fail when grading asks for CUDA,
so a misconfigured GPU runner can never pass by skipping."""
import functools
import shutil
import subprocess
import sys

import pytest

from modlab.cli import main
from modlab.course import load_course
from modlab.engine import GradeOptions, grade_exercise, process_memory
from modlab.formats.feedback import feedback_line
from modlab.records import FAILED, PASSED, SKIPPED

from conftest import ROOT

GRADER = '''
import torch
from modlab.grading import scenario


@scenario(devices=True)
def parameter_on_device(nn, device):
    """a Parameter made on a device stays there"""
    return nn.Parameter(torch.ones(2, device=device))


@scenario()
def parameter_on_cpu(nn):
    """a Parameter made on the CPU"""
    return nn.Parameter(torch.ones(2))
'''

COURSE = '''
course: {id: cuda-demo, title: CUDA demo, package: mynn}
exercises:
  - {id: "01", slug: parameter, title: Parameter, points: 10, files: [parameter.py]}
'''


@pytest.fixture(scope="module")
def tiny_course(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    (root / "course.yaml").write_text(COURSE)
    shutil.copytree(ROOT / "solutions", root / "solutions")
    (root / "graders" / "01_parameter").mkdir(parents=True)
    (root / "graders" / "01_parameter" / "test_01_parameter.py").write_text(GRADER)
    (root / "graders" / "conftest.py").write_text('pytest_plugins = ["modlab.instructor.pytest_plugin"]\n')
    return load_course(root / "course.yaml")


@pytest.fixture(scope="module")
def cuda_here(tiny_course):
    return process_memory().oracle(tiny_course).cuda


def outcomes(course, device):
    result = grade_exercise(course, course.exercise("01"), course.solutions, GradeOptions(device=device))
    return {t.name: (t.outcome, feedback_line(t)) for t in result.tests}, result


def test_auto_skips_cuda_cases_where_cuda_is_absent(tiny_course, cuda_here):
    seen, result = outcomes(tiny_course, "auto")
    if cuda_here:
        assert seen["parameter_on_device[cuda]"][0] == PASSED
    else:
        assert seen["parameter_on_device[cuda]"] == (SKIPPED, "CUDA not available")
    assert seen["parameter_on_device[cpu]"][0] == PASSED
    assert result.score == result.max_score  # skipped cases do not count


def test_device_cpu_skips_cuda_cases(tiny_course):
    seen, _ = outcomes(tiny_course, "cpu")
    assert seen["parameter_on_device[cuda]"][0] == SKIPPED


def test_device_cuda_fails_cuda_cases_that_cannot_run(tiny_course, cuda_here):
    if cuda_here:
        pytest.skip("CUDA is available here: nothing can be missing")
    seen, result = outcomes(tiny_course, "cuda")
    outcome, feedback = seen["parameter_on_device[cuda]"]
    assert outcome == FAILED and "CUDA not available" in feedback
    assert result.score < result.max_score
    status = main(["--course", str(tiny_course.root / "course.yaml"), "grade", str(tiny_course.solutions.parent),
                   "--device", "cuda"])
    assert status == 3


@pytest.mark.parametrize("flag, expected", [([], "1 skipped"), (["--require-cuda"], "1 failed")])
def test_pytest_option_require_cuda(tiny_course, cuda_here, flag, expected):
    if cuda_here:
        pytest.skip("CUDA is available here")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tiny_course.graders),
         "--modlab-course", str(tiny_course.root / "course.yaml"), "-rs", *flag],
        capture_output=True, text=True, cwd=tiny_course.root, timeout=120)
    assert expected in run.stdout, run.stdout + run.stderr
    assert "CUDA not available" in run.stdout


@functools.cache
def cuda_probed_apart() -> bool:
    """Whether this machine has CUDA, asked of torch in a process of its own (not of modlab), once."""
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                           capture_output=True, text=True, timeout=120)
    return probe.stdout.strip() == "True"


@pytest.mark.parametrize("flag", [[], ["--require-cuda"]])
def test_env_require_cuda_fails_exactly_where_cuda_is_missing(flag, capsys):
    cuda = cuda_probed_apart()
    status = main(["--course", str(ROOT / "course.yaml"), "env", *flag])
    out = capsys.readouterr().out
    expected = 1 if flag and not cuda else 0
    assert status == expected, out
    assert f"CUDA available to workers  {'yes' if cuda else 'no'}" in out
