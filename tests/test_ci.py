"""CI grading that no student can turn against the course.

The workflows the project ships keep the trust rules (read from the files
themselves, the kit's as `modlab release` writes them), zizmor finds nothing
in them, every modlab command they run exists with those options, and the
course-side flow works end to end on CPU: a roster of local student
repositories -> fetch as data -> two shards -> merge, equal to one unsharded run.
"""
import http.server
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import yaml

from modlab.cli import build_parser, main
from modlab.course import load_course
from modlab.instructor import release
from modlab.instructor.ci.commit_status import CONTEXT, statuses
from modlab.instructor.ci.fetch import TOKEN_VARIABLE, Git, fetch_class
from modlab.instructor.ci.roster import RosterError, load_roster, parse_roster, usable_shards
from modlab.instructor.kit_ci import GITHUB_WORKFLOW, GITLAB_PIPELINE, kit_ci_files

from conftest import ROOT

COURSE = ["--course", str(ROOT / "course.yaml")]

POINTS_01 = load_course(ROOT / "course.yaml").exercise("01").points  # what a full exercise 01 scores
COURSE_WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
GITLAB_COURSE = ROOT / "docs" / "gitlab-ci.yml"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"@[0-9a-f]{40}\s+# v\d+\.\d+\.\d+\s*$")
DEADLINE = "2026-03-01T23:59:00Z"
BEFORE, AFTER = "2026-02-20T12:00:00+00:00", "2026-03-02T08:00:00+00:00"
# What the workflows' shell variables stand for when their modlab commands are parsed.
SAMPLE_VALUES = {"ROSTER": "roster.yaml", "SHARDS": "4", "SHARD": "1/4", "DEADLINE": DEADLINE, "DEVICE": "cpu",
                 "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4", "id": "01"}
RUNNER_VARIABLES = {"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"}
COURSE_PROGRAMS = {"python", "make", ".venv/bin/modlab", "echo", "cat", "cp", "set"}


# --- the shipped files --------------------------------------------------------------------

def load_yaml(text: str) -> dict:
    data = yaml.safe_load(text)
    data["on"] = data.pop(True, data.get("on"))  # PyYAML reads the key `on` as True
    return data


@pytest.fixture(scope="module")
def kit_files(course):
    return kit_ci_files(course)


@pytest.fixture(scope="module")
def github_workflows(kit_files):
    """Every GitHub workflow the project ships: ``{name: (text, parsed)}``."""
    texts = {path.name: path.read_text() for path in COURSE_WORKFLOWS}
    texts["kit " + GITHUB_WORKFLOW] = kit_files[GITHUB_WORKFLOW]
    return {name: (text, load_yaml(text)) for name, text in texts.items()}


@pytest.fixture(scope="module")
def grade_class():
    return load_yaml((ROOT / ".github" / "workflows" / "grade-class.yml").read_text())


def steps(workflow: dict):
    for job_name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, job, step


def github_scripts(workflow: dict):
    return [step["run"] for _, _, step in steps(workflow) if "run" in step]


def gitlab_scripts(pipeline: dict):
    return [line for name, job in pipeline.items() if isinstance(job, dict)
            for line in job.get("script", [])]


def simple_commands(script: str):
    """The simple commands of a shell script, as word lists with variables
    left in (``$SHARD``); assignments, shell keywords and redirections taken off."""
    for substitution in re.findall(r"\$\(([^()]*)\)", script):
        yield from simple_commands(substitution)
    script = re.sub(r"\$\([^()]*\)", "SUBSTITUTED", script)
    for line in script.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        words: list[str] = []
        redirected = False
        for token in [*lexer, ";"]:
            if redirected:
                redirected = False
            elif set(token) & set("<>"):
                redirected = True
                if words and words[-1].isdigit():
                    words.pop()  # the 2 of 2>&1
            elif set(token) <= set(";&|"):
                while words and (re.match(r"^\w+=", words[0]) or words[0] in {"do", "then", "else", "if", "{"}):
                    words.pop(0)
                if words and words[0] not in {"for", "done", "fi", "}"}:
                    yield words
                words = []
            else:
                words.append(token)


def modlab_invocations(script: str):
    """The argument lists of every modlab command a script runs, its variables replaced by sample values."""
    for words in simple_commands(script):
        for start in ([1] if words[0] in {"modlab", ".venv/bin/modlab"} else
                      [3] if words[:3] == ["python", "-m", "modlab"] else []):
            arguments = []
            for word in words[start:]:
                if word == "$@":
                    arguments += ["--exercise", "01"]
                else:
                    arguments.append(re.sub(r"\$\{?(\w+)\}?", lambda m: SAMPLE_VALUES[m.group(1)], word))
            yield arguments


def test_the_old_student_side_workflow_is_gone():
    assert not (ROOT / ".github" / "workflows" / "autograde.yml").exists()
    assert [p.name for p in COURSE_WORKFLOWS] == ["grade-class.yml", "test.yml"]  # the class's, the contributors'


def test_the_kit_ci_holds_no_secret_and_no_self_hosted_runner(kit_files):
    for name, text in kit_files.items():
        assert "secrets." not in text and "self-hosted" not in text and "TOKEN" not in text, name
    workflow = load_yaml(kit_files[GITHUB_WORKFLOW])
    assert {job["runs-on"] for job in workflow["jobs"].values()} == {"ubuntu-latest"}
    assert workflow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in workflow["jobs"].values())
    pipeline = yaml.safe_load(kit_files[GITLAB_PIPELINE])
    assert all("tags" not in job and "variables" not in job for job in pipeline.values())


def test_the_kit_ci_runs_the_public_checks_of_every_exercise(course, kit_files):
    scripts = [*github_scripts(load_yaml(kit_files[GITHUB_WORKFLOW])),
               *gitlab_scripts(yaml.safe_load(kit_files[GITLAB_PIPELINE]))]
    checking = [script for script in scripts if "modlab check" in script]
    assert len(checking) == 2  # one on GitHub, one on GitLab
    for script in checking:
        assert re.search(r"^for id in (.*); do$", script, re.M).group(1).split() == [e.id for e in course.exercises]
        assert list(modlab_invocations(script)) == [["check", "01"], ["status"]]
    assert "$GITHUB_STEP_SUMMARY" in kit_files[GITHUB_WORKFLOW]


def test_release_puts_the_kit_ci_into_the_kit(course, kit_files):
    pytest.importorskip("nbformat", reason="the kit's files include notebooks, built with nbformat")
    released = release.kit_files(course)  # every text file `modlab release` writes
    assert {relpath: released[relpath] for relpath in kit_files} == kit_files


def test_the_contributors_ci_runs_make_test_on_every_push_and_pull_request():
    workflow = load_yaml((ROOT / ".github" / "workflows" / "test.yml").read_text())
    assert set(workflow["on"]) == {"push", "pull_request"} and workflow["permissions"] == {}
    assert [job["permissions"] for job in workflow["jobs"].values()] == [{"contents": "read"}]
    assert github_scripts(workflow) == ["make test"]
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("\nmake test")  # what CI runs here, too


def test_every_action_is_pinned_by_commit_with_its_version(github_workflows):
    pins: dict[str, set[str]] = {}
    for name, (text, workflow) in github_workflows.items():
        for _, _, step in steps(workflow):
            if "uses" in step:
                assert PINNED.match(step["uses"]), (name, step["uses"])
                action, commit = step["uses"].split("@")
                pins.setdefault(action, set()).add(commit)
        uses_lines = [line for line in text.splitlines() if "uses:" in line]
        assert uses_lines and all(VERSION_COMMENT.search(line) for line in uses_lines), name
    assert all(len(commits) == 1 for commits in pins.values()), pins  # one version of each action everywhere


def test_permissions_are_declared_and_read_only(github_workflows, grade_class):
    for name, (_, workflow) in github_workflows.items():
        assert "permissions" in workflow, name
        for job in workflow["jobs"].values():
            assert set(job.get("permissions", {}).values()) <= {"read"}, name
    assert grade_class["permissions"] == {}
    assert all(job["permissions"] == {"contents": "read"} for job in grade_class["jobs"].values())


def test_every_checkout_keeps_no_credentials(github_workflows):
    checkouts = [(name, step) for name, (_, workflow) in github_workflows.items()
                 for _, _, step in steps(workflow) if step.get("uses", "").startswith("actions/checkout@")]
    assert len(checkouts) == 5  # grade-class.yml three times, test.yml, the kit's check.yml
    assert all(step["with"]["persist-credentials"] is False for _, step in checkouts)


def test_no_workflow_is_started_by_student_controlled_code(github_workflows, grade_class):
    for name, (_, workflow) in github_workflows.items():
        assert not {"pull_request_target", "workflow_run"} & set(workflow["on"]), name
    assert set(grade_class["on"]) == {"workflow_dispatch"}


def test_no_expression_is_pasted_into_a_script(github_workflows):
    """Template injection: an input or output reaches a script through `env:` only."""
    for name, (_, workflow) in github_workflows.items():
        assert all("${{" not in script for script in github_scripts(workflow)), name


def test_the_token_reaches_only_the_fetch_step_and_no_job_that_runs_student_code(grade_class):
    text = (ROOT / ".github" / "workflows" / "grade-class.yml").read_text()
    holders = [(job_name, step) for job_name, job, step in steps(grade_class)
               if "secrets." in json.dumps(step)]
    assert [(job, step["env"]) for job, step in holders] == [
        ("fetch", {"MODLAB_FETCH_TOKEN": "${{ secrets.MODLAB_FETCH_TOKEN }}", "DEADLINE": "${{ inputs.deadline }}"}),
        ("merge", {"MODLAB_STATUS_TOKEN": "${{ secrets.MODLAB_STATUS_TOKEN }}"}),
    ]
    assert text.count("secrets.") == 2  # nowhere else: not in a job's env, not in `with:`
    assert [list(modlab_invocations(step["run"]))[0][0] for _, step in holders] == ["fetch", "post-statuses"]
    assert holders[1][1]["if"] == "vars.MODLAB_POST_STATUSES == 'true'"  # off unless configured
    assert all(job["runs-on"] == "ubuntu-latest" for name, job in grade_class["jobs"].items() if name != "grade")


def test_no_step_of_the_course_workflow_runs_a_file_it_did_not_write(grade_class):
    """Student files are data: every program a step runs is the course's tooling or the shell's."""
    for script in github_scripts(grade_class):
        for words in simple_commands(script):
            assert words[0] in COURSE_PROGRAMS, (words, script)


def test_every_variable_a_course_script_reads_is_set_by_the_workflow(grade_class):
    defined = set(grade_class["env"]) | RUNNER_VARIABLES
    for _, job, step in steps(grade_class):
        if "run" in step:
            known = defined | set(job.get("env", {})) | set(step.get("env", {})) | {"id"}
            used = set(re.findall(r"\$\{?([A-Za-z_]\w*)", step["run"]))
            assert used <= known, (step["name"], used - known)


def test_the_gpu_jobs_cannot_pass_without_cuda(grade_class):
    grade = grade_class["jobs"]["grade"]
    assert "self-hosted" in grade["runs-on"] and "gpu" in grade["runs-on"] and "ubuntu-latest" in grade["runs-on"]
    [guard] = [s for s in grade["steps"] if "--require-cuda" in s.get("run", "")]
    assert guard["if"] == "env.DEVICE == 'cuda'"
    [grading] = [s["run"] for s in grade["steps"] if ".venv/bin/modlab grade" in s.get("run", "")]
    assert '--device "$DEVICE"' in grading and grade_class["env"]["DEVICE"] == "${{ inputs.device || 'cpu' }}"
    gitlab = yaml.safe_load(GITLAB_COURSE.read_text())
    assert gitlab["grade-cuda"]["tags"] == ["gpu"]
    commands = [c for line in gitlab["grade-cuda"]["script"] for c in modlab_invocations(line)]
    assert commands[0] == ["env", "--require-cuda"] and commands[1][commands[1].index("--device") + 1] == "cuda"


def test_every_modlab_command_the_ci_runs_exists_with_those_options(github_workflows, kit_files):
    parser = build_parser()
    scripts = [s for _, (_, workflow) in github_workflows.items() for s in github_scripts(workflow)]
    scripts += gitlab_scripts(yaml.safe_load(GITLAB_COURSE.read_text()))
    scripts += gitlab_scripts(yaml.safe_load(kit_files[GITLAB_PIPELINE]))
    used = set()
    for script in scripts:
        for arguments in modlab_invocations(script):
            args = parser.parse_args(arguments)  # exits (and fails the test) on an unknown option
            assert hasattr(args, "run"), arguments
            used.add(arguments[0])
    assert used == {"roster", "fetch", "env", "grade", "merge", "report", "post-statuses", "check", "status"}


def test_the_gitlab_pipeline_keeps_the_same_split():
    pipeline = yaml.safe_load(GITLAB_COURSE.read_text())
    assert pipeline["fetch"]["environment"]["name"] == "fetch-students"  # the token's only scope
    roster = [c for line in pipeline["fetch"]["script"] for c in modlab_invocations(line) if c[0] == "roster"]
    assert roster == [["roster", "roster.yaml", "--shards", str(pipeline[".grade"]["parallel"]), "--exact"]]
    assert "TOKEN" not in json.dumps(pipeline)  # it reaches the fetch job through its environment scope only
    assert {pipeline["grade-cpu"]["extends"], pipeline["grade-cuda"]["extends"]} == {".grade"}
    assert "merge" in " ".join(pipeline["merge"]["script"])


# --- zizmor ---------------------------------------------------------------------------------

def zizmor(*paths: Path) -> list[dict]:
    binary = shutil.which("zizmor") or shutil.which("zizmor", path=str(Path(sys.executable).parent))
    if binary is None:
        pytest.skip("zizmor is not installed (it comes with the instructor extra: make install)")
    done = subprocess.run([binary, "--offline", "--no-ignores", "--format", "json", *map(str, paths)],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip(), done.stderr
    return json.loads(done.stdout)


def test_zizmor_finds_nothing_in_any_shipped_workflow(tmp_path, kit_files):
    kit_workflow = tmp_path / GITHUB_WORKFLOW
    kit_workflow.parent.mkdir(parents=True)
    kit_workflow.write_text(kit_files[GITHUB_WORKFLOW])
    findings = zizmor(*COURSE_WORKFLOWS, kit_workflow)
    assert findings == [], [(f["ident"], f["desc"]) for f in findings]


def test_zizmor_would_find_what_the_old_workflow_did(tmp_path):
    """The audit above can fail: an unpinned action that keeps credentials is found offline."""
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - uses: actions/checkout@v4\n")
    assert {"unpinned-uses", "artipacked", "excessive-permissions"} <= {f["ident"] for f in zizmor(bad)}


# --- the roster -----------------------------------------------------------------------------

@pytest.mark.parametrize("entry, complaint", [
    ({"student": "../ada", "repository": "org/ada"}, r"students\[0\]\.student"),
    ({"student": "submitted", "repository": "org/ada"}, r"students\[0\]\.student"),
    ({"student": "ada", "repository": "ext::sh -c reboot"}, r"students\[0\]\.repository"),
    ({"student": "ada", "repository": "org/../course"}, r"students\[0\]\.repository"),
    ({"student": "ada", "repository": "org/ada", "commit": "3f2a"}, r"students\[0\]\.commit"),
    ({"student": "ada", "repository": "org/ada", "branch": "dev"}, r"unknown key 'branch'"),
])
def test_a_malformed_roster_entry_is_named(entry, complaint):
    with pytest.raises(RosterError, match=complaint):
        parse_roster({"students": [entry]})


def test_a_student_listed_twice_or_an_insecure_host_is_refused():
    with pytest.raises(RosterError, match="listed twice"):
        parse_roster({"students": [{"student": "ada", "repository": "o/a"}, {"student": "ada", "repository": "o/b"}]})
    with pytest.raises(RosterError, match="host"):
        parse_roster({"host": "http://git.example.edu", "students": [{"student": "ada", "repository": "o/a"}]})


def test_no_planned_shard_is_empty():
    roster = parse_roster({"students": [{"student": name, "repository": f"org/{name}"}
                                        for name in ("ada", "bob", "carol", "dan", "eve")]})
    for wanted in range(1, 9):
        count = usable_shards(roster, wanted)
        assert 1 <= count <= min(wanted, 5)
        assert all(roster.in_shard(index, count) for index in range(1, count + 1))
    assert usable_shards(roster, 2) == 2


def test_roster_prints_the_matrix_and_exact_refuses_an_empty_shard(tmp_path, capsys):
    path = tmp_path / "roster.yaml"
    path.write_text("students:\n" + "".join(f"  - {{student: {n}, repository: org/{n}}}\n"
                                            for n in ("ada", "bob", "carol", "eve")))
    assert main(["roster", str(path), "--shards", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == [1, 2]
    count = usable_shards(load_roster(path), 4)
    assert count < 4 and main(["roster", str(path), "--shards", "4", "--exact"]) == 2
    assert f"use {count}" in capsys.readouterr().err


# --- fetching as data -----------------------------------------------------------------------

GIT_IDENTITY = ["-c", "user.name=Student", "-c", "user.email=student@example.edu", "-c", "commit.gpgsign=false"]


def git(folder: Path, *args: str, when: str = BEFORE) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", "-C", str(folder), *GIT_IDENTITY, *args], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def commit(repository: Path, files: dict[str, str], when: str = BEFORE, links: dict[str, str] | None = None) -> str:
    """Commit ``files`` (and symbolic ``links``) into a student repository; returns the commit."""
    if not (repository / ".git").is_dir():
        repository.mkdir(parents=True)
        git(repository, "init", "--quiet")
    for relpath, text in files.items():
        (repository / relpath).parent.mkdir(parents=True, exist_ok=True)
        (repository / relpath).write_text(text)
    for relpath, target in (links or {}).items():
        (repository / relpath).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, repository / relpath)
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "--allow-empty", "-m", "work", when=when)
    return git(repository, "rev-parse", "HEAD")


def write_roster(path: Path, entries: list[dict]) -> Path:
    path.write_text(yaml.safe_dump({"students": entries}))
    return path


def test_fetch_refuses_links_submodules_and_huge_files_and_runs_no_filter(course, tmp_path, monkeypatch):
    marker = tmp_path / "a filter ran"
    config = tmp_path / "gitconfig"  # a runner's git config that a checkout would obey
    config.write_text(f"[filter \"evil\"]\n\tsmudge = touch '{marker}'\n\trequired = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    repository = tmp_path / "repos" / "eve"
    commit(repository, {"mynn/parameter.py": "ok = 1\n", "mynn/state.py": "#" * (2 << 20),
                        ".gitattributes": "*.py filter=evil\n", "mynn/notes.txt": "not a module\n"},
           links={"mynn/walk.py": "../../graders/03_walk/test_03_walk.py"})
    head = git(repository, "rev-parse", "HEAD")
    git(repository, "update-index", "--add", "--cacheinfo", f"160000,{head},mynn/containers.py")
    git(repository, "commit", "--quiet", "-m", "a submodule")
    roster = load_roster(write_roster(tmp_path / "roster.yaml",
                                      [{"student": "eve", "repository": repository.as_uri()}]))
    [fetched] = fetch_class(course, roster, tmp_path / "class")
    assert fetched.files == ["mynn/parameter.py"] and not fetched.error
    assert sorted(why.split(":")[0] for why in fetched.refused) == ["mynn/containers.py", "mynn/state.py",
                                                                    "mynn/walk.py"]
    assert "symbolic link" in " ".join(fetched.refused) and "submodule" in " ".join(fetched.refused)
    written = sorted(p.relative_to(tmp_path / "class").as_posix() for p in (tmp_path / "class").rglob("*"))
    assert written == ["eve", "eve/mynn", "eve/mynn/parameter.py", "fetch.json"]
    assert (tmp_path / "class" / "eve" / "mynn" / "parameter.py").read_text() == "ok = 1\n"  # the raw blob
    assert not marker.exists()


def test_a_package_folder_that_is_a_link_is_refused_whole(course, tmp_path):
    repository = tmp_path / "repos" / "eve"
    commit(repository, {"solutions/mynn/walk.py": "x = 1\n"}, links={"mynn": "solutions/mynn"})
    roster = load_roster(write_roster(tmp_path / "roster.yaml",
                                      [{"student": "eve", "repository": repository.as_uri()}]))
    [fetched] = fetch_class(course, roster, tmp_path / "class")
    assert fetched.files == [] and fetched.refused == ["mynn: a symbolic link where the package folder was expected"]
    assert list((tmp_path / "class" / "eve" / "mynn").iterdir()) == []


def test_the_token_travels_in_gits_environment_for_the_roster_host_only(course, tmp_path, monkeypatch):
    token = "token-that-must-not-leak"
    monkeypatch.setenv(TOKEN_VARIABLE, token)
    seen = []
    original = subprocess.run

    def recording(command, **kwargs):
        seen.append((command, kwargs["env"]))
        return original(command, **kwargs)

    repository = tmp_path / "repos" / "ada"
    commit(repository, {"mynn/parameter.py": "ok = 1\n"})
    roster = load_roster(write_roster(tmp_path / "roster.yaml",
                                      [{"student": "ada", "repository": repository.as_uri()}]))
    monkeypatch.setattr(subprocess, "run", recording)
    fetch_class(course, roster, tmp_path / "class")
    assert seen and all(token not in " ".join(command) for command, _ in seen)
    for _, env in seen:
        headers = {env[f"GIT_CONFIG_KEY_{n}"] for n in range(int(env["GIT_CONFIG_COUNT"]))
                   if "extraheader" in env[f"GIT_CONFIG_KEY_{n}"].lower()}
        assert headers == {"http.https://github.com/.extraHeader"}
        assert env["GIT_CONFIG_GLOBAL"] == os.devnull and env["GIT_CONFIG_NOSYSTEM"] == "1"
        assert TOKEN_VARIABLE not in env
    assert all(token not in p.read_text() for p in (tmp_path / "class").rglob("*") if p.is_file())


def test_an_empty_repository_gives_an_empty_folder_an_unreachable_one_none(course, tmp_path, capsys):
    empty = tmp_path / "repos" / "emma"
    empty.mkdir(parents=True)
    git(empty, "init", "--quiet")
    roster = write_roster(tmp_path / "roster.yaml", [
        {"student": "emma", "repository": empty.as_uri()},
        {"student": "gus", "repository": (tmp_path / "repos" / "nowhere").as_uri()}])
    assert main([*COURSE, "fetch", str(roster), "--into", str(tmp_path / "class")]) == 1
    out = capsys.readouterr().out
    assert "emma: nothing to grade: the repository has no commits" in out
    assert "gus: NOT FETCHED" in out and "NOT FETCHED: gus" in out
    assert (tmp_path / "class" / "emma" / "mynn").is_dir() and not (tmp_path / "class" / "gus").exists()
    assert main([*COURSE, "fetch", str(roster), "--into", str(tmp_path / "class")]) == 2  # not into a used folder


def test_git_runs_without_hooks_or_templates(tmp_path):
    repository = Git(tmp_path / "student.git", {"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    repository.init()
    assert sorted(p.name for p in repository.git_dir.iterdir()) == ["HEAD", "config", "objects", "refs"]


# --- the course-side flow, end to end on CPU ------------------------------------------------

@pytest.fixture(scope="module")
def class_roster(tmp_path_factory, course):
    """Four students' repositories: ada's last commit before the deadline is the stub (a later
    fix must not count), bob's is the reference, carol's pinned commit is the reference under a
    broken newer one, eve's parameter.py is a link to the hidden grader."""
    root = tmp_path_factory.mktemp("ci")
    reference = (course.solutions / "parameter.py").read_text()
    stub = (ROOT / "exercises" / course.package / "parameter.py").read_text()
    repos = root / "repos"
    commits = {"ada": commit(repos / "ada", {"mynn/parameter.py": stub})}
    commit(repos / "ada", {"mynn/parameter.py": reference}, when=AFTER)
    commits["bob"] = commit(repos / "bob", {"mynn/parameter.py": reference})
    commits["carol"] = commit(repos / "carol", {"mynn/parameter.py": reference})
    commit(repos / "carol", {"mynn/parameter.py": "raise ImportError('broken')\n"})
    commits["eve"] = commit(repos / "eve", {"mynn/walk.py": "x = 1\n"},
                            links={"mynn/parameter.py": "../../graders/01_parameter/test_01_parameter.py"})
    entries = [{"student": name, "repository": (repos / name).as_uri()} for name in ("ada", "bob", "carol", "eve")]
    entries[2]["commit"] = commits["carol"]
    roster = write_roster(root / "roster.yaml", entries)
    return root, roster, commits


@pytest.fixture(scope="module")
def graded(class_roster):
    """The workflow's jobs, in order: fetch; grade unsharded and as two shards; merge; report."""
    root, roster, _ = class_roster
    assert main(["roster", str(roster), "--shards", "2"]) == 0
    assert main([*COURSE, "fetch", str(roster), "--deadline", DEADLINE, "--into", str(root / "class")]) == 0
    graded_once = ["--exercise", "01", "--device", "cpu", "-j", "2"]
    assert main([*COURSE, "grade", str(root / "class"), *graded_once, "--out", str(root / "whole"),
                 "--summary", str(root / "whole.md")]) == 0
    for index in (1, 2):
        assert main([*COURSE, "grade", str(root / "class"), *graded_once, "--shard", f"{index}/2",
                     "--out", str(root / "shards" / f"shard-{index}")]) == 0
    merged = root / "results"
    assert main([*COURSE, "merge", *map(str, sorted((root / "shards").iterdir())), "--out", str(merged),
                 "--json", str(merged / "results.json"), "--junit", str(merged / "junit.xml"),
                 "--summary", str(merged / "summary.md"), "--gradescope-dir", str(merged / "gradescope")]) == 0
    return root


def test_fetch_takes_the_last_commit_before_the_deadline_or_the_pinned_one(class_roster, graded):
    _, _, commits = class_roster
    record = json.loads((graded / "class" / "fetch.json").read_text())
    assert {f["student"]: f["commit"] for f in record["fetched"]} == commits
    [eve] = [f for f in record["fetched"] if f["student"] == "eve"]
    assert eve["files"] == ["mynn/walk.py"] and eve["refused"][0].startswith("mynn/parameter.py: a symbolic link")
    assert not any(p.is_symlink() for p in (graded / "class").rglob("*"))


def test_the_merged_shards_equal_one_unsharded_run(graded):
    whole, merged = graded / "whole", graded / "results"
    assert (merged / "gradebook.csv").read_bytes() == (whole / "gradebook.csv").read_bytes()
    assert (merged / "summary.md").read_text() == (graded / "whole.md").read_text()
    for record in sorted((whole / "students").glob("*.json")):
        assert without_timings(json.loads((merged / "students" / record.name).read_text())) == \
            without_timings(json.loads(record.read_text()))
    scores = {r["student"]: r["score"] for r in json.loads((merged / "results.json").read_text())["submissions"]}
    assert scores == {"ada": 0.0, "bob": POINTS_01, "carol": POINTS_01, "eve": 0.0}  # ada's late fix did not count


def without_timings(data):
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k != "seconds"}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return data


def test_the_merge_writes_every_result_format(graded):
    merged = graded / "results"
    results = json.loads((merged / "results.json").read_text())["submissions"]
    cases = ET.parse(merged / "junit.xml").getroot().findall(".//testcase")
    assert len(cases) == sum(len(e["tests"]) for r in results for e in r["exercises"]) > 0
    for result in results:
        gradescope = json.loads((merged / "gradescope" / f"{result['student']}.json").read_text())
        assert gradescope["score"] == result["score"]
    pytest.importorskip("matplotlib", reason="the HTML report needs matplotlib (the instructor extra)")
    assert main([*COURSE, "report", str(merged)]) == 0
    assert (merged / "report" / "report.html").is_file()


class StatusAPI(http.server.BaseHTTPRequestHandler):
    """Just enough of GitHub's commit status API to see what is posted."""

    posted: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.posted.append((self.path, self.headers["Authorization"], body))
        self.send_response(404 if "/carol/" in self.path else 201)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_scores_are_posted_on_the_graded_commits_and_nothing_else(graded, class_roster, monkeypatch, capsys):
    _, _, commits = class_roster
    merged = graded / "results"
    shutil.copy(graded / "class" / "fetch.json", merged / "fetch.json")  # as the merge job does
    record = json.loads((merged / "fetch.json").read_text())
    for item in record["fetched"]:  # as a roster of owner/name repositories would have said
        item["repository"] = f"course-org/{item['student']}"
    (merged / "fetch.json").write_text(json.dumps(record))
    assert [s.commit for s in statuses(merged)] == [commits[n] for n in ("ada", "bob", "carol", "eve")]
    server = http.server.HTTPServer(("127.0.0.1", 0), StatusAPI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("MODLAB_STATUS_TOKEN", "status-token")
    try:
        status = main(["post-statuses", str(merged), "--api", f"http://127.0.0.1:{server.server_port}"])
    finally:
        server.shutdown()
    assert status == 1 and "carol: status NOT posted" in capsys.readouterr().err  # the 404 is reported
    paths = {path: (auth, body) for path, auth, body in StatusAPI.posted}
    auth, body = paths[f"/repos/course-org/bob/statuses/{commits['bob']}"]
    assert auth == "Bearer status-token"
    assert body == {"state": "success", "description": f"{POINTS_01:.2f} of {POINTS_01:g} points", "context": CONTEXT}
    assert len(paths) == 4


def test_the_workflows_own_grade_merge_and_report_commands_make_the_results_artifact(graded, grade_class, tmp_path,
                                                                                    monkeypatch):
    """The commands are taken from grade-class.yml itself, not retyped here, and run in a folder laid
    out as the jobs' artifacts are (class/, shards/shard-N/): the artifact README lists comes out."""
    pytest.importorskip("matplotlib", reason="the report step needs matplotlib (the instructor extra)")
    shutil.copytree(graded / "class", tmp_path / "class")
    monkeypatch.chdir(tmp_path)
    runs = {step["name"]: step["run"] for _, _, step in steps(grade_class) if "run" in step}
    [grading] = [list(modlab_invocations(s)) for s in runs.values() if ".venv/bin/modlab grade" in s]
    for index in (1, 2):
        [arguments] = grading
        arguments = [f"{index}/2" if word == SAMPLE_VALUES["SHARD"] else word for word in arguments]
        assert "--shard" in arguments and arguments[arguments.index("--out") + 1] == "results"
        assert main([*COURSE, *arguments]) == 0
        shutil.move("results", f"shards/shard-{index}")
    merging = [s for s in runs.values() if ".venv/bin/modlab merge" in s]
    assert len(merging) == 1
    commands = list(modlab_invocations(merging[0])) + [c for s in runs.values() if "modlab report" in s
                                                        for c in modlab_invocations(s)]
    assert [c[0] for c in commands] == ["merge", "report"]
    for arguments in commands:
        arguments = [w for a in arguments for w in (sorted(map(str, Path("shards").iterdir())) if a == "shards/*"
                                                      else [a])]
        assert main([*COURSE, *arguments]) == 0
    results = tmp_path / "results"
    for name in ("gradebook.csv", "results.json", "junit.xml", "summary.md", "report/report.html",
                 "gradescope/bob.json", "students/bob.json"):
        assert (results / name).is_file(), name
    assert (results / "gradebook.csv").read_bytes() == (graded / "results" / "gradebook.csv").read_bytes()
    assert json.loads((results / "gradescope" / "bob.json").read_text())["score"] == POINTS_01
