"""The CI workflow is valid, runs commands the CLI has, and those commands work on CPU."""
import json
import shlex
import shutil
from xml.etree import ElementTree as ET

import pytest
import yaml

from modlab.cli import build_parser, main

from conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "autograde.yml"


@pytest.fixture(scope="module")
def workflow():
    return yaml.safe_load(WORKFLOW.read_text())


def modlab_commands(job):
    """The modlab command lines a job runs, as argument lists."""
    for step in job["steps"]:
        words = shlex.split(step.get("run", "").replace('"$GITHUB_STEP_SUMMARY"', "summary"))
        if words[:1] == ["$MODLAB"]:
            yield words[1:]


def test_workflow_has_a_gpu_job_and_a_cpu_job(workflow):
    jobs = workflow["jobs"]
    assert jobs["grade-gpu"]["runs-on"] == ["self-hosted", "gpu"]
    assert jobs["grade-cpu"]["runs-on"] == "ubuntu-latest"
    assert True in workflow or "on" in workflow  # PyYAML reads the key `on` as True


@pytest.mark.parametrize("job_name, device", [("grade-cpu", "cpu"), ("grade-gpu", "cuda")])
def test_each_job_grades_uploads_and_summarises(workflow, job_name, device):
    job = workflow["jobs"][job_name]
    runs = " ".join(step.get("run", "") for step in job["steps"])
    uses = [step.get("uses", "") for step in job["steps"]]
    assert f"grade submission --device {device}" in " ".join(runs.split())
    assert "make -C course install" in runs
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    assert "$GITHUB_STEP_SUMMARY" in runs
    assert sum(u.startswith("actions/checkout") for u in uses) == 2


def test_the_gpu_job_cannot_pass_without_cuda(workflow):
    commands = list(modlab_commands(workflow["jobs"]["grade-gpu"]))
    assert ["env", "--require-cuda"] in commands
    assert any(c[0] == "grade" and "--device" in c and c[c.index("--device") + 1] == "cuda" for c in commands)


@pytest.mark.parametrize("job_name", ["grade-cpu", "grade-gpu"])
def test_every_command_the_workflow_runs_exists_in_the_cli(workflow, job_name):
    parser = build_parser()
    commands = list(modlab_commands(workflow["jobs"][job_name]))
    assert len(commands) == 2
    for words in commands:
        args = parser.parse_args(words)
        assert hasattr(args, "run"), words


def test_the_gitlab_equivalent_parses_too():
    config = yaml.safe_load((ROOT / "docs" / "gitlab-ci.yml").read_text())
    assert config["grade-gpu"]["tags"] == ["gpu"]
    parser = build_parser()
    for job in ("grade-cpu", "grade-gpu"):
        for line in config[job]["script"]:
            parser.parse_args(shlex.split(line)[1:])


def test_the_cpu_job_commands_write_every_result_format(tmp_path, capsys):
    """Run the CPU job's grade command (on one exercise, to stay quick) and read its files."""
    submission = tmp_path / "submission"
    shutil.copytree(ROOT / "solutions", submission)
    results = tmp_path / "results"
    status = main(["--course", str(ROOT / "course.yaml"), "grade", str(submission), "--device", "cpu",
                   "--exercise", "01", "--json", str(results / "results.json"),
                   "--junit", str(results / "junit.xml"), "--gradescope", str(results / "gradescope.json"),
                   "--summary", str(results / "summary.md")])
    assert status == 0
    graded = json.loads((results / "results.json").read_text())
    [exercise] = graded["exercises"]
    suite = ET.parse(results / "junit.xml").getroot().find("testsuite")
    assert int(suite.get("tests")) == len(exercise["tests"]) == len(suite.findall("testcase"))
    assert suite.get("failures") == "0"
    gradescope = json.loads((results / "gradescope.json").read_text())
    assert gradescope["score"] == exercise["score"] == exercise["max_score"]
    assert {t["visibility"] for t in gradescope["tests"]} == {"visible", "hidden"}
    hidden = {t["name"].split(" ", 1)[1] for t in gradescope["tests"] if t["visibility"] == "hidden"}
    assert hidden == {t["name"] for t in exercise["tests"] if not t["public"]}
    assert set(gradescope["tests"][0]) == {"name", "score", "max_score", "status", "output", "visibility"}
    assert "| 01 Parameter" in (results / "summary.md").read_text()


def test_junit_reports_failures_with_their_feedback(tmp_path):
    results = tmp_path / "junit.xml"
    status = main(["--course", str(ROOT / "course.yaml"), "grade", str(ROOT / "exercises"), "--device", "cpu",
                   "--exercise", "01", "--junit", str(results)])
    assert status == 0  # a low score is a result, not a tool failure
    failures = ET.parse(results).getroot().findall(".//failure")
    assert failures and all("still the stub" in f.text for f in failures)


def test_env_reports_cuda_and_fails_when_required(capsys):
    assert main(["--course", str(ROOT / "course.yaml"), "env"]) == 0
    out = capsys.readouterr().out
    assert "torch" in out and "CUDA available to workers" in out
    cuda = "CUDA available to workers  yes" in out
    assert main(["--course", str(ROOT / "course.yaml"), "env", "--require-cuda"]) == (0 if cuda else 1)
