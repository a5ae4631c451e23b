"""``modlab merge`` combines only the complete set of shards of one batch, and
a student's record is never half written.

Shards are made here as results folders holding hand-written records, so each
refusal is tested without grading anyone.
"""
import csv
import io
import json
import os

import pytest

from modlab.batch.layout import in_shard, parse_shard, shard_of
from modlab.batch.merge import merge_results
from modlab.batch.store import Record, ResultStore
from modlab.cli import main
from modlab.formats import jsonfile
from modlab.records import PASSED, ExerciseResult, SubmissionResult, TestResult as Test

from conftest import ROOT

KEY = "0123456789abcdef"


def record(student: str, score: float, key: str = KEY, failure: str = "") -> Record:
    tests = [Test("own_members_first", PASSED, score, 10.0, public=True)]
    return Record(SubmissionResult(student, [ExerciseResult("03", score, 10.0, tests)]), key, "sha-" + student, failure)


def shard(folder, index: int, count: int, scores: dict[str, float], key: str = KEY, keys: dict | None = None):
    """A results folder of shard index/count holding a record per student."""
    store = ResultStore(folder)
    store.begin({"course": "modlab-nn", "grading_key": key, "exercises": ["03"], "shard": [index, count],
                 "students": sorted(scores)})
    for student, score in scores.items():
        store.save(record(student, score, (keys or {}).get(student, key)))
    return folder


def test_two_shards_merge_into_one_gradebook(course, tmp_path):
    folders = [shard(tmp_path / "s1", 1, 2, {"bob": 2.5, "ada": 7.25}), shard(tmp_path / "s2", 2, 2, {"cy": 10.0})]
    records = merge_results(course, folders, tmp_path / "out")
    assert [r.student for r in records] == ["ada", "bob", "cy"]
    rows = list(csv.reader(io.StringIO((tmp_path / "out" / "gradebook.csv").read_text())))
    assert rows[1:] == [["ada", "7.25", "7.25", "10", "graded"], ["bob", "2.50", "2.50", "10", "graded"],
                        ["cy", "10.00", "10.00", "10", "graded"]]
    manifest = json.loads((tmp_path / "out" / "batch.json").read_text())
    assert manifest["shard"] == [1, 1] and manifest["students"] == ["ada", "bob", "cy"]
    assert manifest["grading_key"] == KEY
    assert json.loads((tmp_path / "out" / "students" / "cy.json").read_text())["score"] == 10.0


def test_shards_graded_with_different_graders_or_options_are_refused(course, tmp_path):
    folders = [shard(tmp_path / "s1", 1, 2, {"ada": 1.0}), shard(tmp_path / "s2", 2, 2, {"bob": 1.0}, key="f" * 16)]
    with pytest.raises(ValueError, match="graded under different fingerprints"):
        merge_results(course, folders, tmp_path / "out")
    assert not (tmp_path / "out" / "gradebook.csv").exists()


def test_a_record_graded_with_other_graders_than_its_shard_is_refused(course, tmp_path):
    folders = [shard(tmp_path / "s1", 1, 2, {"ada": 1.0}),
               shard(tmp_path / "s2", 2, 2, {"bob": 1.0, "cy": 2.0}, keys={"cy": "e" * 16})]
    with pytest.raises(ValueError, match=r"cy\.json: graded under another fingerprint"):
        merge_results(course, folders, tmp_path / "out")
    assert not (tmp_path / "out" / "gradebook.csv").exists()


def test_a_missing_shard_a_shard_twice_or_of_another_count_is_refused(course, tmp_path):
    one = shard(tmp_path / "s1", 1, 3, {"ada": 1.0})
    two = shard(tmp_path / "s2", 2, 3, {"bob": 1.0})
    three = shard(tmp_path / "s3", 3, 3, {"cy": 1.0})
    with pytest.raises(ValueError, match=r"^shard 3/3 missing: merge needs all 3$"):
        merge_results(course, [one, two], tmp_path / "o1")
    with pytest.raises(ValueError, match=r"^shard 2/3, 3/3 missing: merge needs all 3$"):
        merge_results(course, [one], tmp_path / "o1")
    with pytest.raises(ValueError, match=r"s2 and .*s2 are both shard 2/3$"):
        merge_results(course, [one, two, two, three], tmp_path / "o2")
    other = shard(tmp_path / "s4", 2, 4, {"dee": 1.0})
    with pytest.raises(ValueError, match=r"s4 is shard 2/4, the others are shards of 3$"):
        merge_results(course, [one, other, three], tmp_path / "o3")
    assert not any((tmp_path / o).exists() for o in ("o1", "o2", "o3"))


def test_a_student_in_two_shards_or_without_a_record_is_refused(course, tmp_path):
    folders = [shard(tmp_path / "s1", 1, 2, {"ada": 1.0}), shard(tmp_path / "s2", 2, 2, {"ada": 2.0, "bob": 1.0})]
    with pytest.raises(ValueError, match=r"^ada graded in two shards"):
        merge_results(course, folders, tmp_path / "out")
    lost = shard(tmp_path / "s3", 2, 2, {"bob": 1.0})
    (lost / "students" / "bob.json").unlink()
    with pytest.raises(ValueError, match=r"no record for 1 students \(bob\); grade them first"):
        merge_results(course, [folders[0], lost], tmp_path / "out2")


def test_a_folder_that_is_no_results_folder_is_named(course, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"empty: not a results folder of `modlab grade` \(no batch.json\)"):
        merge_results(course, [tmp_path / "empty"], tmp_path / "out")


def test_the_merge_command_refuses_mismatched_shards_with_one_line(course, tmp_path, capsys):
    folders = [shard(tmp_path / "s1", 1, 2, {"ada": 1.0}), shard(tmp_path / "s2", 2, 2, {"bob": 1.0}, key="f" * 16)]
    status = main(["--course", str(ROOT / "course.yaml"), "merge", *map(str, folders), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and "different fingerprints" in err


# --- shards ------------------------------------------------------------------------------

def test_shards_are_parsed_counted_from_one_and_checked():
    assert parse_shard("2/4") == (2, 4) and parse_shard("1/1") == (1, 1) and parse_shard("4/4") == (4, 4)
    for text in ("0/4", "5/4", "2", "a/b", "-1/4", "2/0", "/4"):
        with pytest.raises(ValueError, match="expected I/N"):
            parse_shard(text)


def test_a_students_shard_is_a_fixed_hash_of_the_name():
    # the first 8 bytes of sha256(name), big-endian, mod the count, plus one; worked out by hand
    # from the digests (ada fdee430d..., cy 3d30f595..., gus 70f368c3..., hal 232554ca...)
    names = ("ada", "cy", "gus", "hal")
    assert [shard_of(name, 4) for name in names] == [3, 3, 2, 4]
    assert [shard_of(name, 3) for name in names] == [3, 1, 3, 2]
    assert {shard_of(name, 1) for name in names} == {1}

    class Student:
        def __init__(self, student):
            self.student = student
    people = [Student(n) for n in names]
    assert [s.student for s in in_shard(people, 3, 4)] == ["ada", "cy"]
    assert [s.student for s in in_shard(people, 1, 4)] == []


# --- records are written atomically -------------------------------------------------------

def test_a_students_record_is_replaced_whole_never_written_in_place(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    store.save(record("ada", 1.0))
    target = store.path("ada")
    seen = []
    real_replace = os.replace

    def replace(source, destination):
        # at the moment the new record takes its place, the old one is still whole
        seen.append((json.loads(open(destination).read())["score"], json.loads(open(source).read())["score"]))
        real_replace(source, destination)

    monkeypatch.setattr(jsonfile.os, "replace", replace)
    store.save(record("ada", 7.5))
    assert seen == [(1.0, 7.5)]
    assert store.load("ada").result.score == 7.5
    assert [p.name for p in target.parent.iterdir()] == ["ada.json"]


def test_a_write_that_fails_leaves_the_old_record_and_no_temporary_file(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    store.save(record("ada", 1.0))

    def fail(source, destination):
        raise OSError("disk full")

    monkeypatch.setattr(jsonfile.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        store.save(record("ada", 9.0))
    assert store.load("ada").result.score == 1.0
    assert [p.name for p in (tmp_path / "students").iterdir()] == ["ada.json"]


def test_a_new_batch_sweeps_the_temporary_files_a_killed_run_left(tmp_path):
    store = ResultStore(tmp_path)
    store.save(record("ada", 1.0))
    (tmp_path / "students" / ".bob.json.x1.tmp").write_text("{half")
    store.begin({"shard": [1, 1], "students": ["ada"], "grading_key": KEY})
    assert [p.name for p in (tmp_path / "students").iterdir()] == ["ada.json"]
    assert store.manifest()["students"] == ["ada"]


# --- where a class's submissions lie -------------------------------------------------------

def test_a_class_is_found_in_either_layout_sorted_and_hidden_folders_skipped(course, tmp_path):
    from modlab.batch.layout import class_root, find_submissions, is_class_folder

    (tmp_path / "cy" / "mynn").mkdir(parents=True)
    (tmp_path / "cy" / "mynn" / "walk.py").write_text("x = 1\n")
    (tmp_path / "ada").mkdir()  # nothing handed in: still a student, zero for every exercise
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes.txt").write_text("not a student")
    found = find_submissions(tmp_path, course)
    assert [s.student for s in found] == ["ada", "cy"]
    assert found[1].folder("03") == tmp_path / "cy" / "mynn"
    assert [e for e, _ in found[1].folders] == [e.id for e in course.exercises]
    assert is_class_folder(tmp_path, course) and not is_class_folder(tmp_path / "cy", course)
    assert not is_class_folder(tmp_path / "notes.txt", course)
    assert class_root(tmp_path) == tmp_path


def test_nbgraders_submitted_folder_is_the_class(course, tmp_path):
    from modlab.batch.layout import class_root, find_submissions

    work = tmp_path / "submitted" / "bob" / "03_walk"
    work.mkdir(parents=True)
    (work / "walk.py").write_text("x = 1\n")
    assert class_root(tmp_path) == tmp_path / "submitted"
    [bob] = find_submissions(tmp_path, course)
    assert bob.student == "bob" and bob.folder("03") == work


def test_a_folder_holding_no_file_of_the_course_is_refused(course, tmp_path):
    from modlab.batch.layout import find_submissions

    (tmp_path / "ada" / "mynn").mkdir(parents=True)
    (tmp_path / "ada" / "mynn" / "notes.py").write_text("")
    with pytest.raises(ValueError, match=rf"^{tmp_path}: no submissions found \(expected {tmp_path}/<student>/mynn/ "
                                         r"or nbgrader's submitted/<student>/<assignment>/\)$"):
        find_submissions(tmp_path, course)


def test_a_record_reads_back_with_what_it_was_graded_from(tmp_path):
    store = ResultStore(tmp_path)
    store.save(record("ada", 2.5, failure="exercise 03: RuntimeError: boom"))
    data = json.loads(store.path("ada").read_text())
    assert (data["grading_key"], data["submission_sha256"], data["failure"]) == \
        (KEY, "sha-ada", "exercise 03: RuntimeError: boom")
    back = store.load("ada")
    assert back.student == "ada" and back.grading_key == KEY and back.submission_sha256 == "sha-ada"
    assert back.failure == "exercise 03: RuntimeError: boom" and back.result.score == 2.5
    assert store.load("bob") is None
    del data["failure"]
    store.path("old").write_text(json.dumps(data))
    assert store.load("old").failure == ""  # records written before failures were recorded


def test_the_gradebook_says_which_records_failed_to_grade(course, tmp_path):
    store = ResultStore(tmp_path)
    path = store.write_gradebook(course, [record("ada", 2.5), record("bob", 0.0, failure="worker died")])
    assert path == tmp_path / "gradebook.csv"
    assert path.read_text().splitlines()[1:] == ["ada,2.50,2.50,10,graded", "bob,0.00,0.00,10,grading failed: worker died"]


def test_one_shard_merges_alone_and_a_merge_can_be_run_again(course, tmp_path):
    folder = shard(tmp_path / "s1", 1, 1, {"ada": 2.5})
    merge_results(course, [folder], tmp_path / "out")
    first = (tmp_path / "out" / "gradebook.csv").read_bytes()
    merge_results(course, [folder], tmp_path / "out")  # into the same folder: the same result
    assert (tmp_path / "out" / "gradebook.csv").read_bytes() == first
    assert json.loads((tmp_path / "out" / "batch.json").read_text())["course"] == "modlab-nn"


def test_the_first_shard_missing_is_named(course, tmp_path):
    with pytest.raises(ValueError, match=r"^shard 1/2 missing: merge needs all 2$"):
        merge_results(course, [shard(tmp_path / "s2", 2, 2, {"bob": 1.0})], tmp_path / "out")


def test_refusals_name_the_first_five_students(course, tmp_path):
    names = ["ann", "ben", "cat", "dan", "eli", "fox"]
    folders = [shard(tmp_path / "s1", 1, 2, dict.fromkeys(names, 1.0)), shard(tmp_path / "s2", 2, 2, dict.fromkeys(names, 1.0))]
    with pytest.raises(ValueError, match=r"^ann, ben, cat, dan, eli graded in two shards: "
                                         r"were the shards cut from different classes\?$"):
        merge_results(course, folders, tmp_path / "out")
    lost = shard(tmp_path / "s3", 1, 1, dict.fromkeys(names, 1.0))
    for name in names:
        (lost / "students" / f"{name}.json").unlink()
    with pytest.raises(ValueError, match=r"no record for 6 students \(ann, ben, cat, dan, eli\); grade them first$"):
        merge_results(course, [lost], tmp_path / "out2")


def test_different_fingerprints_are_named_exactly(course, tmp_path):
    folders = [shard(tmp_path / "s1", 1, 2, {"ada": 1.0}), shard(tmp_path / "s2", 2, 2, {"bob": 1.0}, key="f" * 16)]
    with pytest.raises(ValueError, match=r"^the shards were graded under different fingerprints \(modlab, the course's "
                                         r"graders or reference, torch, numpy or Hypothesis, options or limits differ\); "
                                         r"grade them again alike$"):
        merge_results(course, folders, tmp_path / "out")
