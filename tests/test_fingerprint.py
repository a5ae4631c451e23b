"""One fingerprint of everything a grade depends on (modlab/fingerprint.py), and what it serves:
change any input and the fingerprint changes, a resumed batch regrades everyone, and
`modlab merge` refuses shards graded under different ones."""
import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from modlab import fingerprint as fingerprints
from modlab.batch.grading import Batch, pending
from modlab.batch.layout import find_submissions
from modlab.batch.store import ResultStore
from modlab.cli import main
from modlab.course import load_course
from modlab.engine import GradeOptions
from modlab.fingerprint import fingerprint, tool_digest

from conftest import ROOT

CPU = GradeOptions(device="cpu")


@pytest.fixture
def course_copy(tmp_path):
    """A copy of the course's grading files, to change one at a time."""
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(ROOT / "course.yaml", root)
    for folder in ("solutions", "graders"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return load_course(root / "course.yaml")


def appended(path, text="\n# changed\n"):
    path.write_text(path.read_text() + text)


def changes(course_copy, tmp_path, monkeypatch):
    """Each input a grade depends on, changed in turn: yields what was changed, after changing it."""
    grader = course_copy.grader_file(course_copy.exercise("03"))
    appended(grader)
    yield "a grader"
    helper = next(p for p in sorted(course_copy.graders.rglob("*.py")) if p != grader and p.name != "conftest.py")
    appended(helper)
    yield "a file the graders import"
    appended(course_copy.solutions / "walk.py")
    yield "the reference"
    tool = tmp_path / "tool"  # modlab's code, copied: a copy digests as the original does, until it changes
    shutil.copytree(Path(fingerprints.__file__).parent, tool, ignore=shutil.ignore_patterns("__pycache__"))
    assert tool_digest(tool) == tool_digest()
    monkeypatch.setattr(fingerprints, "tool_digest", lambda: fingerprints.files_digest(sorted(tool.rglob("*.py")), tool))
    appended(tool / "records.py")
    yield "modlab's code"
    for package in ("torch", "numpy", "hypothesis"):
        monkeypatch.setattr(fingerprints, "versions", lambda real=fingerprints.versions, package=package:
                            {**real(), package: "0.0.1"})
        yield f"the {package} version"


def test_every_input_changes_the_fingerprint_and_nothing_else_does(course_copy, tmp_path, monkeypatch):
    options = CPU.key()
    first = fingerprint(course_copy, options)
    assert fingerprint(course_copy, options) == first
    assert fingerprint(course_copy, GradeOptions(device="cpu", oracle_cache=tmp_path).key()) == first
    seen = {first}
    for what in changes(course_copy, tmp_path, monkeypatch):
        now = fingerprint(course_copy, options)
        assert now not in seen, f"changing {what} left the fingerprint as it was"
        seen.add(now)
    for other in (GradeOptions(device="auto"), GradeOptions(device="cpu", public_only=True),
                  GradeOptions(device="cpu", mode="whole")):
        assert fingerprint(course_copy, other.key()) not in seen
    stricter = dataclasses.replace(course_copy, limits=dataclasses.replace(course_copy.limits, scenario_timeout_s=3))
    assert fingerprint(stricter, options) not in seen
    assert fingerprint(course_copy, options, [course_copy.exercise("03")]) not in seen


def test_a_copy_of_the_course_elsewhere_has_the_same_fingerprint(course_copy, tmp_path):
    """Shards graded on runners that check the course out in different folders merge."""
    moved = tmp_path / "elsewhere"
    shutil.copytree(course_copy.root, moved)
    assert fingerprint(load_course(moved / "course.yaml"), CPU.key()) == fingerprint(course_copy, CPU.key())


def test_a_resumed_batch_regrades_everyone_after_any_input_changed(course_copy, tmp_path, monkeypatch):
    klass = tmp_path / "class"
    shutil.copytree(course_copy.solutions, klass / "ada" / course_copy.package)
    submissions = find_submissions(klass, course_copy)
    exercises = [course_copy.exercise("01")]
    store = ResultStore(tmp_path / "results")
    store.save(Batch(course_copy, exercises, CPU).grade(submissions[0]))
    assert pending(Batch(course_copy, exercises, CPU), store, submissions) == []
    for what in changes(course_copy, tmp_path, monkeypatch):
        assert pending(Batch(course_copy, exercises, CPU), store, submissions) == submissions, what


def test_merge_refuses_shards_graded_under_different_fingerprints(course_copy, tmp_path, monkeypatch, capsys):
    klass = tmp_path / "class"
    for student in ("ada", "bob"):
        shutil.copytree(course_copy.solutions, klass / student / course_copy.package)
    course = ["--course", str(course_copy.root / "course.yaml")]
    graded = ["-e", "01", "--device", "cpu"]
    assert main([*course, "grade", str(klass), *graded, "--shard", "1/2", "--out", str(tmp_path / "s1")]) == 0
    monkeypatch.setattr(fingerprints, "versions", lambda real=fingerprints.versions: {**real(), "torch": "0.0.1"})
    assert main([*course, "grade", str(klass), *graded, "--shard", "2/2", "--out", str(tmp_path / "s2")]) == 0
    keys = {json.loads((tmp_path / s / "batch.json").read_text())["grading_key"] for s in ("s1", "s2")}
    assert len(keys) == 2
    capsys.readouterr()
    assert main([*course, "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "all")]) == 2
    assert "graded under different fingerprints" in capsys.readouterr().err
    assert not (tmp_path / "all").exists() or not any((tmp_path / "all").iterdir())


def test_the_oracle_cache_file_is_named_by_the_fingerprint(course, tmp_path):
    from modlab.engine import WHOLE, grade_exercise

    options = GradeOptions(mode=WHOLE, device="cpu", public_only=True, oracle_cache=tmp_path / "cache")
    grade_exercise(course, course.exercise("01"), course.solutions, options)
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [f"torch-{fingerprint(course, options.key())}.json"]
