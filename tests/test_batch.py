"""Grading a class: every submission gets a record; shards, -j and reruns agree byte for byte;
an interrupted or killed batch resumes without regrading what it finished."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modlab.batch.grading import Batch, pending
from modlab.batch.layout import find_submissions, shard_of
from modlab.batch.pool import grade_in_processes
from modlab.batch.store import ResultStore
from modlab.cli import main
from modlab.commands.grade_class import student_note
from modlab.engine import GradeOptions, Memory, grade_exercise
from modlab.formats.feedback import feedback_line
from modlab.formats.terminal import Progress
from modlab.instructor.variants import load_variants, variant_package

from modlab.course import load_course

from conftest import ROOT, as_in_a_terminal

COURSE = ["--course", str(ROOT / "course.yaml")]

POINTS_01 = load_course(ROOT / "course.yaml").exercise("01").points  # what a full exercise 01 scores
SHARDS = 4


def write_package(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)


def reference_files(course) -> dict[str, str]:
    return {p.name: p.read_text() for p in course.solutions.glob("*.py")}


def make_class(course, root: Path, slow: bool = False) -> Path:
    """A small class in both layouts: the reference, the stubs, each buggy variant of
    exercise 01, a package that does not import, nbgrader assignment folders, nothing."""
    reference = reference_files(course)
    stubs = {p.name: p.read_text() for p in (ROOT / "exercises" / course.package).glob("*.py")}
    write_package(root / "ada" / course.package, reference)
    write_package(root / "bob" / course.package, stubs)
    variants = [v for v in load_variants(course) if v.exercise == "01"]
    for index, variant in enumerate(variants):
        write_package(root / f"buggy{index}" / course.package,
                      {**reference, variant.file: variant.apply(reference[variant.file])})
    write_package(root / "hal" / course.package, {**reference, "parameter.py": "raise ValueError('no')\n"})
    write_package(root / "fay" / "01_parameter", {"parameter.py": reference["parameter.py"]})  # nbgrader's
    (root / "gus").mkdir()  # submitted nothing: still gets a record
    if slow:  # slow enough to interrupt: a package that takes a second to import
        for name in ("yan", "zed"):
            write_package(root / name / course.package,
                          {**reference, "parameter.py": "import time\ntime.sleep(1)\n" + reference["parameter.py"]})
    return root


def grade(*args) -> int:
    return main([*COURSE, "grade", *map(str, args)])


@pytest.fixture(scope="module")
def klass(course, tmp_path_factory):
    return make_class(course, tmp_path_factory.mktemp("class") / "class")


@pytest.fixture(scope="module")
def one_run(klass, tmp_path_factory):
    """The class graded in one go, with two processes."""
    out = tmp_path_factory.mktemp("one") / "results"
    assert grade(klass, "-e", "01", "-j", 2, "--out", out) == 0
    return out


def outcomes(results: Path) -> dict:
    """Every record without its timings."""
    seen = {}
    for path in sorted((results / "students").glob("*.json")):
        record = json.loads(path.read_text())
        seen[path.stem] = [(e["id"], e["score"], e["error"], [(t["name"], t["outcome"], t["feedback"])
                                                             for t in e["tests"]]) for e in record["exercises"]]
    return seen


def test_every_student_gets_a_record_in_either_layout(klass, one_run):
    gradebook = (one_run / "gradebook.csv").read_text().splitlines()
    assert gradebook[0] == "student,01_parameter,total,max_score,status"
    rows = {line.split(",")[0]: line.split(",") for line in gradebook[1:]}
    assert sorted(rows) == sorted(p.name for p in klass.iterdir())
    assert rows["ada"][1:4] == rows["fay"][1:4] == [f"{POINTS_01:.2f}", f"{POINTS_01:.2f}", f"{POINTS_01:g}"]
    assert rows["bob"][1] == rows["gus"][1] == rows["hal"][1] == "0.00"
    buggy = [row for name, row in rows.items() if name.startswith("buggy")]
    # Every labelled bug loses points; most keep some (one whose Parameter() returns nothing keeps none).
    assert len(buggy) >= 3 and all(float(row[1]) < POINTS_01 for row in buggy)
    assert sum(float(row[1]) > 0 for row in buggy) > len(buggy) / 2
    gus = json.loads((one_run / "students" / "gus.json").read_text())
    assert "parameter.py, which is missing" in gus["exercises"][0]["error"]
    assert all(row[-1] == "graded" for row in rows.values())


def test_one_process_grades_as_two_do(klass, one_run, tmp_path):
    assert grade(klass, "-e", "01", "-j", 1, "--out", tmp_path) == 0
    assert (tmp_path / "gradebook.csv").read_bytes() == (one_run / "gradebook.csv").read_bytes()
    assert outcomes(tmp_path) == outcomes(one_run)


def test_four_merged_shards_equal_one_run_byte_for_byte(klass, one_run, tmp_path, capsys):
    shards = [tmp_path / f"shard{i}" for i in range(1, SHARDS + 1)]
    for index, out in enumerate(shards, 1):
        assert grade(klass, "-e", "01", "-j", 1, "--shard", f"{index}/{SHARDS}", "--out", out) == 0
    sizes = [len(list((s / "students").glob("*.json"))) for s in shards]
    assert sum(sizes) == len(list(klass.iterdir())) and sum(n > 0 for n in sizes) >= 3, sizes
    assert main([*COURSE, "merge", *map(str, shards), "--out", str(tmp_path / "merged")]) == 0
    assert (tmp_path / "merged" / "gradebook.csv").read_bytes() == (one_run / "gradebook.csv").read_bytes()
    assert outcomes(tmp_path / "merged") == outcomes(one_run)

    capsys.readouterr()
    assert main([*COURSE, "merge", *map(str, shards[:3]), "--out", str(tmp_path / "m2")]) == 2
    assert f"shard {SHARDS}/{SHARDS} missing" in capsys.readouterr().err
    assert main([*COURSE, "merge", *map(str, shards + shards[:1]), "--out", str(tmp_path / "m3")]) == 2
    assert "are both shard 1/4" in capsys.readouterr().err


def test_nbgrader_assignment_folders_are_found(course, tmp_path):
    """nbgrader's course folder, its submitted/<student>/<assignment>/ with the files
    beside the notebook or in a package folder; an assignment never submitted is expected
    where nbgrader would put it."""
    write_package(tmp_path / "submitted" / "ada" / "01_parameter", {"parameter.py": "", "01_parameter.ipynb": "{}"})
    write_package(tmp_path / "submitted" / "ada" / "02_registration" / course.package, {"registration.py": ""})
    [ada] = find_submissions(tmp_path, course)
    assert ada.folder("01") == tmp_path / "submitted" / "ada" / "01_parameter"
    assert ada.folder("02") == tmp_path / "submitted" / "ada" / "02_registration" / course.package
    assert ada.folder("03") == tmp_path / "submitted" / "ada" / "03_walk"


def test_shards_split_a_class_by_name_alone():
    names = [f"student{i}" for i in range(200)]
    split = {n: shard_of(n, SHARDS) for n in names}
    assert set(split.values()) == set(range(1, SHARDS + 1))
    assert {n: shard_of(n, SHARDS) for n in reversed(names)} == split  # no dependence on the others


@pytest.mark.parametrize("argument, message", [("--shard=0/4", "1 <= I <= N"), ("--shard=5/4", "1 <= I <= N"),
                                               ("--shard=a/b", "expected I/N"), ("--gradescope=x.json", "one submission"),
                                               ("--jobs=0", "at least 1")])
def test_bad_class_options_are_one_line_errors(klass, tmp_path, capsys, argument, message):
    assert grade(klass, argument, "--out", tmp_path / "results") == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_folder_without_submissions_is_refused(course, tmp_path, capsys):
    (tmp_path / "class" / "notes").mkdir(parents=True)
    assert grade(tmp_path / "class", "--out", tmp_path / "results") == 2
    assert "no submissions found" in capsys.readouterr().err
    assert grade(tmp_path / "class", "--out", tmp_path / "class" / "results") == 2
    assert "where it would pass for one" in capsys.readouterr().err


class DiesOnBob(Batch):
    """A grading process that dies (a bug, the OOM killer) while grading bob."""

    def grade(self, submission):
        if submission.student == "bob":
            os._exit(7)
        return super().grade(submission)


def test_a_grading_process_that_dies_costs_a_failure_record_not_the_batch(course, klass, tmp_path):
    batch = DiesOnBob(course, [course.exercise("01")], GradeOptions(device="cpu"))
    submissions = find_submissions(klass, course)
    store = ResultStore(tmp_path)
    store.begin(batch.manifest([s.student for s in submissions], (1, 1)))
    grade_in_processes(batch, submissions, store, 2, lambda record: None)
    records = {r.student: r for r in store.records([s.student for s in submissions])}
    assert records["bob"].failure == "the grading process exited with code 7"
    assert records["ada"].failure == "" and records["ada"].result.score == POINTS_01
    assert [s.student for s in pending(batch, store, submissions)] == ["bob"]  # graded again next run
    gradebook = store.write_gradebook(course, list(records.values())).read_text()
    assert f"bob,0.00,0.00,{POINTS_01:g},grading failed: the grading process exited with code 7" in gradebook


class RecordsASearchEach(Batch):
    """Grading records a failing search named after the student, and notes which it knew."""

    notes: Path

    def grade(self, submission):
        from modlab.batch.store import Record
        from modlab.records import SubmissionResult

        known = sorted(key for key, _ in self.memory.failing_searches)
        (self.notes / submission.student).write_text(" ".join(known))
        time.sleep(0.5)
        self.memory.remember_failing((submission.student, None), [])
        return Record(SubmissionResult(submission.student), self.key, "", "")


def test_grading_processes_pass_on_the_failing_searches_they_record(course, tmp_path):
    """What one grading process learns from a failing search, the others follow too."""
    from modlab.batch.layout import Submission

    batch = RecordsASearchEach(course, [course.exercise("01")], GradeOptions(device="cpu"), Memory())
    batch.notes = tmp_path
    students = [Submission(f"s{index}", ()) for index in range(1, 7)]
    store = ResultStore(tmp_path / "results")
    store.begin(batch.manifest([s.student for s in students], (1, 1)))
    grade_in_processes(batch, students, store, 2, lambda record: None)
    knew = {s.student: set((tmp_path / s.student).read_text().split()) for s in students}
    assert knew["s1"] == knew["s2"] == set()
    # s1 and s2 were graded side by side, one in each process: the last two each know both
    assert {"s1", "s2"} <= knew["s5"] and {"s1", "s2"} <= knew["s6"], knew


def start_batch(klass: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "modlab", *COURSE, "grade", str(klass), "-e", "01",
                             "-j", "2", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=as_in_a_terminal)


def wait_for_records(out: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while len(list((out / "students").glob("*.json"))) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def session_alive(session: int) -> bool:
    """Whether any process of this session (the batch and its grading processes) still runs."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            return True
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_interrupted_and_killed_batches_resume_without_regrading(course, one_run, tmp_path):
    klass = make_class(course, tmp_path / "class", slow=True)
    out = tmp_path / "results"

    batch = start_batch(klass, out)
    wait_for_records(out, 2, batch)
    batch.send_signal(signal.SIGINT)  # Ctrl-C: the terminal signals the batch's process group
    _, err = batch.communicate(timeout=60)
    assert batch.returncode == 130 and "run the same command again to resume" in err
    assert not session_alive(batch.pid), "grading processes outlived an interrupted batch"

    batch = start_batch(klass, out)
    wait_for_records(out, 5, batch)
    os.kill(batch.pid, signal.SIGKILL)  # killed outright: grading processes finish what they hold, then stop
    batch.wait()
    deadline = time.monotonic() + 60
    while session_alive(batch.pid):
        assert time.monotonic() < deadline, "grading processes outlived their killed parent"
        time.sleep(0.1)

    finished = {p.name: p.stat().st_mtime_ns for p in (out / "students").glob("*.json")}
    assert all(json.loads((out / "students" / name).read_text()) for name in finished)  # never half written
    batch = start_batch(klass, out)
    _, err = batch.communicate(timeout=180)
    assert batch.returncode == 0, err
    assert f"resuming: {len(finished)} of {len(list(klass.iterdir()))} students already graded" in err
    left = len(list(klass.iterdir())) - len(finished)
    progress = [line for line in err.splitlines() if line.startswith("grading ")]
    assert progress[0] == f"grading 0/{left}: warming up on the reference", err
    assert progress[-1].startswith(f"grading {left}/{left} 100% "), err
    assert {name: (out / "students" / name).stat().st_mtime_ns for name in finished} == finished
    assert not list((out / "students").glob(".*.tmp"))


def test_a_changed_submission_is_graded_again(course, klass, tmp_path):
    batch = Batch(course, [course.exercise("01")], GradeOptions(device="cpu"))
    submissions = find_submissions(klass, course)
    store = ResultStore(tmp_path)
    ada = next(s for s in submissions if s.student == "ada")
    store.save(batch.grade(ada))
    assert ada not in pending(batch, store, submissions)
    package = klass / "ada" / course.package
    original = (package / "parameter.py").read_text()
    try:
        (package / "parameter.py").write_text(original + "\n# fixed a typo\n")
        assert ada in pending(batch, store, submissions)
    finally:
        (package / "parameter.py").write_text(original)


class FakeTerminal:
    def __init__(self, tty: bool):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


@pytest.mark.parametrize("tty", [True, False])
def test_progress_draws_a_bar_on_a_terminal_and_prints_tenths_in_a_log(course, klass, tmp_path, tty):
    batch = Batch(course, [course.exercise("01")], GradeOptions(device="cpu"))
    record = batch.failed(find_submissions(klass, course)[0], "just a display test")
    stream, now = FakeTerminal(tty), [0.0]
    with Progress("grading", 40, stream, clock=lambda: now[0]) as progress:
        for _ in range(40):
            now[0] += 1  # each student takes a second
            progress.advance(student_note(record))
    lines = stream.text.rstrip("\n").split("\n")
    if tty:  # one line redrawn in place (then the cursor shown again), the last drawing complete
        assert len(lines) == 2 and stream.text.count("\r") >= 40
        last = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", lines[0].split("\r")[-1])
        assert re.fullmatch(rf"grading \S+ 40/40 100% 0:00:40 ETA 0:00:00 ada 0\.00/{POINTS_01:g} GRADING FAILED", last), last
    else:
        assert len(lines) == 10 and "\r" not in stream.text and "\x1b" not in stream.text
        assert lines[-1] == f"grading 40/40 100% 40s elapsed, ETA 0s  ada 0.00/{POINTS_01:g} GRADING FAILED"


@pytest.mark.parametrize("tty", [True, False])
def test_progress_says_it_warms_up_and_counts_the_students_time_from_its_end(tty):
    stream, now = FakeTerminal(tty), [0.0]
    with Progress("grading", 40, stream, clock=lambda: now[0], first="warming up on the reference") as progress:
        warming = stream.text
        now[0] += 30  # the warm-up: 30 s before the first student
        progress.start()
        for student in range(40):
            now[0] += 1
            progress.advance(f"s{student} 10.00/10")
            if student == 3:
                at_a_tenth = stream.text
    assert "warming up on the reference" in warming
    if tty:  # rich's ETA is its own estimate: its first drawings have none yet
        plain = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", stream.text)
        assert re.search(r"grading \S+ 40/40 100% 0:00:40 ETA 0:00:00 s39 10\.00/10", plain)
    else:
        assert warming == "grading 0/40: warming up on the reference\n"
        assert at_a_tenth.split("\n")[-2] == "grading 4/40  10% 4s elapsed, ETA 36s  s3 10.00/10"
        assert stream.text.split("\n")[-2] == "grading 40/40 100% 40s elapsed, ETA 0s  s39 10.00/10"


@pytest.mark.parametrize("variant_name", ["replacing_moves_to_the_end", None])
def test_replayed_searches_give_the_verdicts_of_fresh_ones(course, tmp_path, variant_name):
    """After the reference passed, Hypothesis searches replay its specs instead of drawing
    them again; a submission failing one of them gets the same verdict and smallest case."""
    exercise = course.exercise("02")
    if variant_name:
        [variant] = [v for v in load_variants(course) if v.name == variant_name]
        package = variant_package(course, variant, tmp_path)
    else:
        package = ROOT / "exercises" / course.package  # the stubs: a search stops at once

    memory = Memory()

    def verdicts():
        result = grade_exercise(course, exercise, package, GradeOptions(device="cpu"), memory)
        return [(t.name, t.outcome, t.reason, feedback_line(t), t.score) for t in result.tests]

    fresh = verdicts()
    grade_exercise(course, exercise, course.solutions, GradeOptions(device="cpu"), memory)
    assert memory.passing_specs, "the reference's searches were not remembered"
    assert verdicts() == fresh
    assert any(outcome == "failed" for _, outcome, *_ in fresh)


@pytest.fixture
def searches_counted(monkeypatch):
    """A count of the Hypothesis searches the engine runs."""
    from modlab.engine import search

    searches = []

    def given(**strategies):
        def counted(test):
            searched = hypothesis_given(**strategies)(test)
            return lambda: searches.append(test.__name__) or searched()
        return counted

    hypothesis_given = search.given
    monkeypatch.setattr(search, "given", given)
    return searches


@pytest.mark.parametrize("answers_alike", [True, False])
def test_a_followed_search_gives_the_verdicts_of_a_fresh_one(course, tmp_path, searches_counted, answers_alike):
    """A submission failing a replayed search where another failed before is led through
    that search's recorded specs: with every outcome alike it gets the recorded search's
    smallest case without searching; at the first outcome that differs, it is searched afresh."""
    exercise = course.exercise("03")
    [variant] = [v for v in load_variants(course) if v.name == "tied_weights_counted_twice"]
    package = variant_package(course, variant, tmp_path)
    memory = Memory()

    def verdicts():
        result = grade_exercise(course, exercise, package, GradeOptions(device="cpu"), memory)
        return [(t.name, t.outcome, t.reason, feedback_line(t), t.score) for t in result.tests]

    grade_exercise(course, exercise, course.solutions, GradeOptions(device="cpu"), memory)
    searches_counted.clear()
    fresh = verdicts()
    assert memory.failing_searches and len(searches_counted) == len(memory.failing_searches)
    assert any(outcome == "failed" and "Smallest failing case" in feedback for _, outcome, _, feedback, _ in fresh)
    if not answers_alike:  # as if an earlier submission had passed where this one fails
        for calls in memory.failing_searches.values():
            calls[-1] = (calls[-1][0], None)
    searches_counted.clear()
    assert verdicts() == fresh
    assert len(searches_counted) == (0 if answers_alike else len(memory.failing_searches))


def course_with_a_wrong_reference(course, tmp_path):
    """The course, but its reference's exercise 01 copies the data it is given."""
    from modlab.course import load_course

    (tmp_path / "course.yaml").write_text((ROOT / "course.yaml").read_text())
    for folder in ("graders", "exercises"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    [variant] = [v for v in load_variants(course) if v.name == "copies_the_data"]
    variant_package(course, variant, tmp_path / "solutions")
    return load_course(tmp_path / "course.yaml")


def test_the_warm_up_says_when_the_reference_loses_points(course, tmp_path):
    """A batch first grades the reference; a reference short of full marks means a grader to check."""
    wrong = course_with_a_wrong_reference(course, tmp_path)
    doubts = Batch(wrong, [wrong.exercise("01")], GradeOptions(device="cpu")).warm()
    assert len(doubts) == 1 and doubts[0].startswith("exercise 01: the reference scores")
    assert Batch(course, [course.exercise("01")], GradeOptions(device="cpu")).warm() == []


def _searches_of(course, exercise) -> set:
    from modlab.grading.loader import load_scenarios

    return {(s.key, c.name) for s in load_scenarios(course, exercise) if s.specs is not None for c in s.cases()}


@pytest.mark.parametrize("helper_dies", [False, True])
def test_a_shared_warm_up_leaves_the_parent_knowing_both_halves(course, monkeypatch, helper_dies):
    """With two jobs a helper warms every other exercise; the parent learns its answers and
    specs (or, if it dies, warms them itself), so grading processes forked next know them all."""
    from modlab.batch import pool

    if helper_dies:
        monkeypatch.setattr(pool, "_warm_helper", lambda *args: os._exit(3))
    exercises = [course.exercise("02"), course.exercise("03")]
    batch = Batch(course, exercises, GradeOptions(device="cpu"), Memory())
    warmed_here = []
    warm = batch.warm
    monkeypatch.setattr(batch, "warm", lambda chosen=None: warmed_here.append([e.id for e in chosen]) or warm(chosen))
    assert pool.warm(batch, jobs=2) == []
    assert warmed_here == ([["02"], ["03"]] if helper_dies else [["02"]])
    for exercise in exercises:
        assert _searches_of(course, exercise) <= set(batch.memory.passing_specs), exercise.id
    [oracle] = batch.memory.oracles.values()
    asked = {json.loads(key)["scenario"] for key in oracle.cache}
    assert {key for e in exercises for key, _ in _searches_of(course, e)} <= asked
    oracle.worker.close()


def test_the_helper_of_a_shared_warm_up_reports_its_doubts(course, tmp_path):
    from modlab.batch import pool

    wrong = course_with_a_wrong_reference(course, tmp_path)
    batch = Batch(wrong, [wrong.exercise("02"), wrong.exercise("01")], GradeOptions(device="cpu"))
    doubts = pool.warm(batch, jobs=2)  # 01, the helper's half, is the one that loses points
    assert len(doubts) == 1 and doubts[0].startswith("exercise 01: the reference scores")
