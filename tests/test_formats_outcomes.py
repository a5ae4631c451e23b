"""Every output format, on a submission that FAILS some checks.

The class below has uneven weights and fractional points, a hidden check that
fails and one that passes, a skipped CUDA case, an exercise that could not be
imported and a student whose grading itself failed. Each format is checked for
what it says about them: counts, statuses, scores, visibility. The expected
values are written out by hand here, never computed by the code under test.
"""
import csv
import io
import json
import os
from xml.etree import ElementTree as ET

import pytest

from modlab.formats.csv import gradebook_csv
from modlab.formats.feedback import check_report, fact_lines, failure_text, feedback_line, problem
from modlab.formats.gradescope import AFTER_DUE_DATE, AFTER_PUBLISHED, Visibility, gradescope_results
from modlab.formats.jsonfile import write_json
from modlab.formats.junit import junit_xml
from modlab.formats.markdown import markdown_summary
from modlab.formats.outputs import write_outputs
from modlab.formats.table import class_summary, score_table
from modlab.records import FAILED, PASSED, SKIPPED, ExerciseResult, Failure, SubmissionResult
from modlab.records import TestResult as Test

MISMATCH = Failure("mismatch", where="root.named_parameters()", torch="['a']", yours="['a', 'b']",
                   detail="extra `b`", misconceptions=[{"id": "tied-twice", "text": "tied weights counted twice"}])
RAISED = Failure("raised", raised={"type": "KeyError", "message": "'w'", "file": "walk.py", "line": 7})
IMPORT = Failure("import", message="your package did not import",
                 raised={"type": "SyntaxError", "message": "invalid syntax", "file": "calling.py", "line": 3})


def walk(score_of_b: float = 0.0) -> ExerciseResult:
    """Exercise 03 (10 points) with weights 3 : 2 : 1 : 2 over its counted tests: 6.25 of 10."""
    return ExerciseResult("03", 6.25, 10.0, seconds=1.5, tests=[
        Test("own_members_first", PASSED, 3.75, 3.75, public=True, seconds=0.25),
        Test("tied_once", FAILED, score_of_b, 2.5, public=True, reason="mismatch", doc="tied weights | once",
             failure=MISMATCH, seconds=0.5),
        Test("secret_walk", FAILED, 0.0, 1.25, public=False, reason="raised", doc="a hidden property", failure=RAISED),
        Test("on_device[cuda]", SKIPPED, 0.0, 0.0, public=True, note="CUDA not available"),
        Test("secret_order", PASSED, 2.5, 2.5, public=False),
    ])


def calling() -> ExerciseResult:
    """Exercise 04 (12 points) that did not import: two tests, both failed, nothing scored."""
    return ExerciseResult("04", 0.0, 12.0, error="your package did not import", seconds=0.125, tests=[
        Test("hooks_run", FAILED, 0.0, 8.0, public=True, reason="import", failure=IMPORT),
        Test("secret_hooks", FAILED, 0.0, 4.0, public=False, reason="import", failure=IMPORT),
    ])


@pytest.fixture
def ada() -> SubmissionResult:
    return SubmissionResult("ada", [walk(), calling()])


@pytest.fixture
def bob() -> SubmissionResult:
    return SubmissionResult("bob", [ExerciseResult("03", 10.0, 10.0, tests=[
        Test("own_members_first", PASSED, 10.0, 10.0, public=True)])])


# --- records ------------------------------------------------------------------------------

def test_records_count_each_outcome_and_add_fractional_points(ada):
    exercise = ada.exercises[0]
    assert (exercise.passed, exercise.failed, exercise.skipped) == (2, 2, 1)
    assert (ada.exercises[1].passed, ada.exercises[1].failed, ada.exercises[1].skipped) == (0, 2, 0)
    assert ada.score == 6.25 and ada.max_score == 22.0


def test_json_rounds_to_four_places_and_reads_back_the_same_records(ada, tmp_path):
    ada.exercises[0].tests[0].score = 1 / 3
    data = ada.to_json()
    assert data["score"] == 6.25 and data["max_score"] == 22.0
    assert data["exercises"][0]["tests"][0]["score"] == 0.3333
    assert data["exercises"][0]["tests"][1]["max_score"] == 2.5
    assert data["exercises"][0]["seconds"] == 1.5 and data["exercises"][1]["error"] == "your package did not import"
    assert data["exercises"][0]["tests"][2]["failure"]["raised"]["file"] == "walk.py"
    write_json(tmp_path / "ada.json", data)
    back = SubmissionResult.from_json(json.loads((tmp_path / "ada.json").read_text()))
    assert back.exercises[0].tests[1] == walk().tests[1]
    assert back.exercises[0].tests[2].failure == RAISED and back.exercises[1].tests[0].failure == IMPORT
    assert back.exercises[0].tests[3].outcome == SKIPPED and not back.exercises[0].tests[4].public
    assert back.score == 6.25 and back.exercises[1].error == "your package did not import"


def test_the_json_of_a_class_lists_every_submission(course, ada, bob, tmp_path):
    args = Options(json=tmp_path / "class.json")
    write_outputs(args, course, [ada, bob])
    data = json.loads(args.json.read_text())
    assert [s["student"] for s in data["submissions"]] == ["ada", "bob"]
    assert [s["score"] for s in data["submissions"]] == [6.25, 10.0]


def failed_with(failure, doc=""):
    return Test("t", FAILED, 0.0, 1.0, doc=doc, failure=failure)


def test_a_failures_one_line_text_names_each_fact():
    assert problem(MISMATCH) == "torch gave ['a'], yours gave ['a', 'b'] at root.named_parameters() (extra `b`)"
    assert problem(RAISED) == "yours raised KeyError (walk.py:7): 'w'"
    assert problem(IMPORT) == "your package did not import: SyntaxError (calling.py:3): invalid syntax"
    assert feedback_line(failed_with(Failure("timeout", message="scenario exceeded 2 s"), "t")) == \
        "t: scenario exceeded 2 s"
    assert feedback_line(failed_with(MISMATCH)) == problem(MISMATCH) + ". Hint: tied weights counted twice"
    assert len(feedback_line(failed_with(Failure("crash", message="x" * 2000)))) == 900


def test_the_json_feedback_is_rendered_from_the_facts_and_never_read_back(ada):
    from modlab.formats.jsonfile import result_json

    tests = result_json(ada)["exercises"][0]["tests"]
    assert [t["feedback"] for t in tests] == ["", feedback_line(walk().tests[1]), feedback_line(walk().tests[2]),
                                             "CUDA not available", ""]
    tests[1]["feedback"] = "something else"
    assert SubmissionResult.from_json(result_json(ada)).exercises[0].tests[1] == walk().tests[1]


# --- JUnit --------------------------------------------------------------------------------

def test_junit_counts_failures_and_skips_per_suite_and_marks_each_case(ada, bob):
    root = ET.fromstring(junit_xml([ada, bob]))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == ["ada.03", "ada.04", "bob.03"]
    counts = {name: (s.get("tests"), s.get("failures"), s.get("skipped"), s.get("errors"), s.get("time"))
              for name, s in suites.items()}
    assert counts == {"ada.03": ("5", "2", "1", "0", "1.500"), "ada.04": ("2", "2", "0", "0", "0.125"),
                      "bob.03": ("1", "0", "0", "0", "0.000")}
    cases = {c.get("name"): c for c in suites["ada.03"].iter("testcase")}
    assert cases["tied_once"].get("classname") == "ada.exercise_03" and cases["tied_once"].get("time") == "0.500"
    assert [(child.tag, child.get("message")) for c in cases.values() for child in c] == [
        ("failure", "mismatch"), ("failure", "raised"), ("skipped", "CUDA not available")]
    assert list(cases["own_members_first"]) == [] and list(cases["secret_order"]) == []
    assert "where   root.named_parameters()" in cases["tied_once"].find("failure").text
    assert [c.find("failure").get("message") for c in suites["ada.04"].iter("testcase")] == ["import", "import"]


def test_a_failure_without_a_reason_still_fails_in_junit():
    result = SubmissionResult("eve", [ExerciseResult("03", 0.0, 1.0, [Test("t", FAILED, 0.0, 1.0)])])
    [failure] = ET.fromstring(junit_xml([result])).iter("failure")
    assert failure.get("message") == "failed"


# --- Gradescope ---------------------------------------------------------------------------

def test_gradescope_gives_each_test_its_status_points_and_visibility(ada):
    data = gradescope_results(ada)
    assert data["score"] == 6.25 and data["execution_time"] == 1.625
    assert data["output"] == "6.25 of 22 points\nexercise 04: your package did not import"
    assert [(t["name"], t["status"], t["score"], t["max_score"], t["visibility"]) for t in data["tests"]] == [
        ("03 own_members_first", "passed", 3.75, 3.75, "visible"),
        ("03 tied_once", "failed", 0.0, 2.5, "visible"),
        ("03 secret_walk", "failed", 0.0, 1.25, "hidden"),
        ("03 on_device[cuda]", "passed", 0.0, 0.0, "visible"),
        ("03 secret_order", "passed", 2.5, 2.5, "hidden"),
        ("04 hooks_run", "failed", 0.0, 8.0, "visible"),
        ("04 secret_hooks", "failed", 0.0, 4.0, "hidden"),
    ]
    outputs = [t["output"] for t in data["tests"]]
    assert outputs[0] == "" and outputs[4] == "" and outputs[3] == "skipped: CUDA not available"
    assert outputs[1].startswith("tied weights | once\nwhere   root.named_parameters()")
    assert "raised  KeyError (walk.py:7): 'w'" in outputs[2]


def test_gradescope_rounds_fractional_scores(ada):
    ada.exercises[0].tests[0].score = 2 / 3
    assert gradescope_results(ada)["tests"][0]["score"] == 0.6667


def test_hidden_checks_students_will_see_are_numbered_unnamed_and_withhold_the_score(ada):
    data = gradescope_results(ada, Visibility(hidden=AFTER_PUBLISHED))
    assert [(t["name"], t["number"], t["visibility"]) for t in data["tests"]] == [
        ("03 own_members_first", "03.1", "visible"), ("03 tied_once", "03.2", "visible"),
        ("03 hidden check 1", "03.3", AFTER_PUBLISHED), ("03 on_device[cuda]", "03.4", "visible"),
        ("03 hidden check 2", "03.5", AFTER_PUBLISHED), ("04 hooks_run", "04.1", "visible"),
        ("04 hidden check 1", "04.2", AFTER_PUBLISHED)]
    assert data["tests"][2]["output"] == "raised  KeyError (walk.py:7): 'w'"  # not "a hidden property"
    assert "secret" not in json.dumps(data) and "a hidden property" not in json.dumps(data)
    assert data["output"] == ("1 of 3 public checks passed; the hidden checks and your score are shown once the "
                              "grades are published\nexercise 04: your package did not import")
    assert data["stdout_visibility"] == "hidden" and data["test_output_format"] == data["test_name_format"] == "text"
    assert {t["name_format"] for t in data["tests"]} == {t["output_format"] for t in data["tests"]} == {"text"}
    assert gradescope_results(ada, Visibility(hidden=AFTER_DUE_DATE))["output"].startswith(
        "1 of 3 public checks passed; the hidden checks and your score are shown after the due date\n")


def test_gradescope_visibility_takes_gradescopes_words_only():
    assert Visibility(public="after_due_date", hidden="visible").public == "after_due_date"
    with pytest.raises(ValueError, match="hidden checks' visibility 'soon': expected one of hidden, after_due_date"):
        Visibility(hidden="soon")
    with pytest.raises(ValueError, match="public checks' visibility"):
        Visibility(public="Visible")
    assert Visibility(hidden=AFTER_DUE_DATE).withholds_score and Visibility(hidden=AFTER_PUBLISHED).withholds_score
    assert not Visibility().withholds_score and not Visibility(hidden="visible").withholds_score


def test_one_gradescope_file_describes_one_submission(course, ada, bob, tmp_path):
    with pytest.raises(ValueError, match="one submission"):
        write_outputs(Options(gradescope=tmp_path / "gs.json"), course, [ada, bob])
    write_outputs(Options(gradescope=tmp_path / "gs.json"), course, [ada])
    assert json.loads((tmp_path / "gs.json").read_text())["score"] == 6.25


# --- CSV gradebook ------------------------------------------------------------------------

def test_the_gradebook_has_a_row_per_student_with_fractional_points_and_status(course, ada, bob):
    bob.exercises[0].score = 7.125
    text = gradebook_csv(course, [bob, ada], {"bob": "exercise 04: RuntimeError: boom"})
    assert list(csv.reader(io.StringIO(text))) == [
        ["student", "03_walk", "04_calling", "total", "max_score", "status"],
        ["ada", "6.25", "0.00", "6.25", "22", "graded"],
        ["bob", "7.12", "", "7.12", "10", "grading failed: exercise 04: RuntimeError: boom"],
    ]
    assert text.endswith("grading failed: exercise 04: RuntimeError: boom\n") and "\r" not in text


# --- Markdown summary and the score tables -------------------------------------------------

def test_the_markdown_summary_counts_and_lists_the_failed_tests(course, ada, bob):
    text = markdown_summary(course, [ada, bob])
    lines = text.split("\n")
    assert lines[:6] == ["### ada: 6.25 / 22", "", "| exercise | score | passed | failed | skipped |",
                         "| --- | ---: | ---: | ---: | ---: |", "| 03 The recursive walk | 6.25 / 10 | 2 | 2 | 1 |",
                         "| 04 __call__, hooks and modes | 0.00 / 12 | 0 | 2 | 0 |"]
    assert ("- `03 tied_once`: tied weights / once: torch gave ['a'], yours gave ['a', 'b'] at "
            "root.named_parameters() (extra `b`). Hint: tied weights counted twice") in lines
    assert ("- `04 secret_hooks`: your package did not import: SyntaxError (calling.py:3): invalid syntax" in lines
            and "- `03 own_members_first`" not in text)
    bob_part = text.split("### bob")[1]
    assert "<details>" not in bob_part and ": 10.00 / 10" in bob_part


def test_the_score_table_shows_each_exercise_and_each_failure(course, ada):
    text = score_table(course, ada)
    rows = [line.split() for line in text.split("\n")[:4]]
    assert rows[0] == ["ex", "title", "score", "passed", "failed", "skipped"]
    assert rows[1][0] == "03" and rows[1][-6:] == ["6.25", "/", "10", "2", "2", "1"]
    assert rows[2][0] == "04" and rows[2][-6:] == ["0.00", "/", "12", "0", "2", "0"]
    assert rows[3] == ["total", "6.25", "/", "22"]
    assert "03 FAILED tied_once" in text and "03 FAILED secret_walk" in text and "own_members_first" not in text
    assert "\n04: your package did not import" in text and "FAILED hooks_run" not in text
    assert "FAILED" not in score_table(course, ada, feedback=False)


def test_the_class_summary_gives_mean_median_full_and_zero(course, ada, bob):
    eve = SubmissionResult("eve", [ExerciseResult("03", 0.0, 10.0)])
    text = class_summary(course, [ada, bob, eve], {"eve": "the worker died"})
    rows = {line.split()[0]: line.split()[-5:] for line in text.split("\n")[1:3]}
    assert rows["03"] == ["5.42", "6.25", "10", "1", "1"]  # mean of 6.25, 10, 0; one full, one zero
    assert rows["04"] == ["0.00", "0.00", "12", "0", "1"]
    assert text.split("\n")[3].split()[-5:] == ["5.42", "6.25", "22", "0", "1"]
    assert text.endswith("3 students graded; grading failed for 1:\n  eve: the worker died")
    assert class_summary(course, [bob], {}).endswith("\n1 students graded")


def test_the_check_report_counts_the_public_checks(course, ada):
    report = check_report(course.exercise("03"), ada.exercises[0])
    lines = report.split("\n")
    assert lines[0] == "  passed   own_members_first" and lines[1] == "  FAILED tied_once"
    assert lines[2] == "      tied weights | once"
    assert "  skipped  on_device[cuda]: CUDA not available" in lines
    assert lines[-1] == "exercise 03: 2 of 4 public checks passed (2 failed) in 1.5 s"
    clean = ExerciseResult("03", 1.0, 1.0, [Test("a", PASSED, 1.0, 1.0)], error="")
    assert check_report(course.exercise("03"), clean).endswith("1 of 1 public checks passed (all passed) in 0.0 s")
    assert check_report(course.exercise("04"), ada.exercises[1]).startswith("error: your package did not import\n")


def test_hidden_failures_lose_their_description_in_failure_text():
    test = walk().tests[2]
    assert failure_text(test) == "a hidden property\nraised  KeyError (walk.py:7): 'w'"
    assert failure_text(test, hidden=True) == "raised  KeyError (walk.py:7): 'w'"


class Options:
    """What ``modlab grade``'s output options parse to, with every file left out unless given."""

    def __init__(self, **files):
        self.json = files.get("json")
        self.junit = files.get("junit")
        self.gradescope = files.get("gradescope")
        self.summary = files.get("summary")


def test_write_outputs_writes_each_file_asked_for_and_no_other(course, ada, tmp_path):
    args = Options(json=tmp_path / "a.json", junit=tmp_path / "j.xml", summary=tmp_path / "s.md")
    write_outputs(args, course, [ada])
    assert json.loads(args.json.read_text())["student"] == "ada"
    assert ET.fromstring(args.junit.read_text()).find("testsuite").get("failures") == "2"
    assert args.summary.read_text().startswith("### ada: 6.25 / 22")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "j.xml", "s.md"]


def test_a_raised_failure_without_a_line_or_a_file_says_so():
    no_line = Failure("raised", raised={"type": "KeyError", "message": "'w'", "file": "walk.py"})
    assert problem(no_line) == "yours raised KeyError (walk.py:?): 'w'"
    nowhere = Failure("raised", torch="3", raised={"type": "KeyError", "message": "'w'"})
    assert problem(nowhere) == "torch gave 3, yours raised KeyError: 'w'"
    bare_import = Failure("import", message="did not import", raised={"type": "E", "message": "m", "file": "a.py"})
    assert problem(bare_import) == "did not import: E (a.py:?): m"
    assert problem(Failure("raised", message="worker said nothing")) == "worker said nothing"
    assert problem(Failure("mismatch", torch="1", yours="2")) == "torch gave 1, yours gave 2"


STUB = {"kind": "stub", "function": "named_modules", "file": "walk.py", "exercise": ""}


def test_a_failures_line_joins_case_explanation_and_every_hint_in_order():
    failure = Failure("raised", raised={"type": "E", "message": "m"}, smallest_case="[1]",
                      explanation=STUB, misconceptions=[{"id": "a", "text": "first"}, {"id": "b", "text": "second"}])
    assert feedback_line(failed_with(failure, "lead")) == (
        "lead: yours raised E: m. Smallest failing case: [1]. still the stub: fill in named_modules in walk.py. "
        "Hint: first; second")
    assert failure.misconception_ids == ["a", "b"]
    assert feedback_line(failed_with(Failure("crash", message="a\n  b\tc"))) == "a b c"
    long = feedback_line(failed_with(Failure("crash", message="y" * 1000)))
    assert long == "y" * 897 + "..."
    assert feedback_line(Test("t", PASSED, 1.0, 1.0)) == "" and feedback_line(Test("t", SKIPPED, 0, 0, note="n")) == "n"


@pytest.mark.parametrize("explanation, words", [
    (STUB, "still the stub: fill in named_modules in walk.py"),
    ({**STUB, "exercise": "02", "file": ""}, "still the stub: fill in named_modules in your package (exercise 02)"),
    ({"kind": "scenario"}, "the check's own code failed on what your package returned"),
    ({"kind": "missing-name", "name": "_join", "file": "walk.py", "line": 9, "own": ["walk.py"], "exercise": "03"},
     "your walk.py:9 uses `_join`, which the course's reference package does not provide: exercise 03 is graded "
     "with your walk.py inside the reference package, so keep what walk.py needs in walk.py"),
    ({"kind": "earlier-exercise", "file": "registration.py", "line": 4, "exercise": "02"},
     "the failure is inside exercise 02's code (registration.py:4): fix exercise 02 first (`modlab check 02`)"),
    ({"kind": "inside-reference", "file": "walk.py", "line": None, "exercise": "03", "own_file": "state.py",
      "own_line": 7}, "raised inside walk.py:? (exercise 03, the course's reference here), called from your "
                      "state.py:7: look at what your code passed to it"),
    ({"kind": "inside-reference", "file": "given.py", "line": 2, "exercise": "", "own_file": "state.py",
      "own_line": 7}, "raised inside given.py:2 (the course's reference), called from your state.py:7: look at what "
                      "your code passed to it"),
    ({"kind": "note", "text": "an older record's words"}, "an older record's words"),
    (None, ""),
])
def test_each_kind_of_explanation_in_words(explanation, words):
    from modlab.formats.feedback import explanation_text

    assert explanation_text(explanation) == words


def test_json_rounds_times_per_test_and_per_exercise(ada):
    ada.exercises[0].tests[0].seconds = 0.123456
    ada.exercises[0].seconds = 1.23456
    data = ada.to_json()
    assert data["exercises"][0]["tests"][0]["seconds"] == 0.1235 and data["exercises"][0]["seconds"] == 1.235
    assert data["exercises"][0]["tests"][0]["max_score"] == 3.75
    assert SubmissionResult.from_json(ada.to_json()).exercises[0].tests[0].seconds == 0.1235


def test_the_output_options_each_take_a_file_and_say_what_they_write():
    import argparse
    from pathlib import Path

    from modlab.formats.outputs import add_output_options

    parser = argparse.ArgumentParser()
    add_output_options(parser)
    options = {a.dest: a for a in parser._actions if a.dest != "help"}
    assert sorted(options) == ["gradescope", "json", "junit", "summary"]
    assert all(a.type is Path and a.metavar == "FILE" and a.option_strings == [f"--{d}"] for d, a in options.items())
    assert {d: a.help for d, a in options.items()} == {
        "json": "write the results as JSON",
        "junit": "write JUnit XML, one testcase per grader test (CI test reports)",
        "gradescope": "write Gradescope's results.json (hidden graders marked hidden)",
        "summary": "write the score table as Markdown (e.g. for $GITHUB_STEP_SUMMARY)",
    }
    args = parser.parse_args(["--json", "a.json", "--summary", "s.md"])
    assert (args.json, args.junit, args.gradescope, args.summary) == (Path("a.json"), None, None, Path("s.md"))


# --- the exact text of each table and file (checked by eye: numbers right-aligned, two spaces apart) ----

def test_the_score_table_is_aligned_with_numbers_to_the_right(course, ada):
    assert score_table(course, ada, feedback=False).split("\n") == [
        "ex  title                          score  passed  failed  skipped",
        "03  The recursive walk         6.25 / 10       2       2        1",
        "04  __call__, hooks and modes  0.00 / 12       0       2        0",
        "    total                      6.25 / 22"]
    lines = score_table(course, ada).split("\n")
    assert lines[4:7] == ["", "03 FAILED tied_once", "    tied weights | once"]
    assert lines[-1] == "04: your package did not import"


def test_the_class_summary_is_aligned_with_numbers_to_the_right(course, ada, bob):
    eve = SubmissionResult("eve", [ExerciseResult("03", 0.0, 10.0)])
    assert class_summary(course, [ada, bob, eve], {"eve": "died"}).split("\n") == [
        "ex  title                      mean  median  max  full  zero",
        "03  The recursive walk         5.42    6.25   10     1     1",
        "04  __call__, hooks and modes  0.00    0.00   12     0     1",
        "    total                      5.42    6.25   22     0     1",
        "", "3 students graded; grading failed for 1:", "  eve: died"]


def test_the_markdown_summary_is_exactly_this(course, ada, bob):
    assert markdown_summary(course, [ada, bob]) == (
        "### ada: 6.25 / 22\n\n| exercise | score | passed | failed | skipped |\n| --- | ---: | ---: | ---: | ---: |\n"
        "| 03 The recursive walk | 6.25 / 10 | 2 | 2 | 1 |\n| 04 __call__, hooks and modes | 0.00 / 12 | 0 | 2 | 0 |\n"
        "\n<details><summary>failed tests</summary>\n\n- `03 tied_once`: tied weights / once: torch gave ['a'], yours "
        "gave ['a', 'b'] at root.named_parameters() (extra `b`). Hint: tied weights counted twice\n"
        "- `03 secret_walk`: a hidden property: yours raised KeyError (walk.py:7): 'w'\n"
        "- `04 hooks_run`: your package did not import: SyntaxError (calling.py:3): invalid syntax\n"
        "- `04 secret_hooks`: your package did not import: SyntaxError (calling.py:3): invalid syntax\n\n"
        "</details>\n\n### bob: 10.00 / 10\n\n| exercise | score | passed | failed | skipped |\n"
        "| --- | ---: | ---: | ---: | ---: |\n| 03 The recursive walk | 10.00 / 10 | 1 | 0 | 0 |\n")


def test_junit_is_an_indented_utf8_document(bob):
    assert junit_xml([bob]) == (
        '<?xml version="1.0" encoding="utf-8"?>\n<testsuites name="modlab">\n'
        '  <testsuite name="bob.03" tests="1" failures="0" skipped="0" errors="0" time="0.000">\n'
        '    <testcase classname="bob.exercise_03" name="own_members_first" time="0.000" />\n'
        '  </testsuite>\n</testsuites>\n')


def test_each_kind_of_failure_gets_its_labelled_lines():
    def lines(failure, note=""):
        return fact_lines(Test("t", FAILED, 0.0, 1.0, note=note, failure=failure))
    assert lines(Failure("mismatch", torch="1", yours="2")) == [
        "where   the whole result", "torch   1", "yours   2"]
    assert lines(Failure("crash", message="the worker  died\n(signal 9)")) == ["crash   the worker died (signal 9)"]
    assert lines(Failure("timeout", message="scenario exceeded 2 s", smallest_case="[]")) == [
        "timeout scenario exceeded 2 s", "case    []"]
    assert lines(Failure("import", message="did not import", explanation={"kind": "scenario"},
                         raised={"type": "E", "message": "m", "file": "calling.py", "line": 3})) == [
        "raised  did not import: E (calling.py:3): m", "note    the check's own code failed on what your package returned"]
    assert lines(Failure("raised", raised={"type": "E", "message": "m"})) == ["raised  E: m"]
    assert lines(Failure("raised", raised={"type": "E", "message": "m", "file": "a.py"})) == ["raised  E (a.py:?): m"]
    assert lines(None, note="CUDA not available") == ["CUDA not available"] and lines(None) == []


def test_a_json_file_is_two_space_indented_with_a_final_newline(tmp_path):
    write_json(tmp_path / "new" / "deeper" / "a.json", {"a": [1], "é": "ü"})
    assert (tmp_path / "new" / "deeper" / "a.json").read_bytes() == \
        b'{\n  "a": [\n    1\n  ],\n  "\\u00e9": "\\u00fc"\n}\n'


def test_a_file_is_written_beside_its_target_under_a_hidden_temporary_name(tmp_path, monkeypatch):
    from modlab.formats import jsonfile
    seen, real_replace = [], os.replace

    def replace(source, destination):
        seen.append((os.path.dirname(source), os.path.basename(source), open(source, encoding="utf-8").read()))
        real_replace(source, destination)

    monkeypatch.setattr(jsonfile.os, "replace", replace)
    jsonfile.write_atomically(tmp_path / "out" / "grades.csv", "naïve,1\n")
    [(folder, name, text)] = seen
    assert folder == str(tmp_path / "out") and name.startswith(".grades.csv.") and name.endswith(".tmp")
    assert text == "naïve,1\n" and (tmp_path / "out" / "grades.csv").read_bytes() == "naïve,1\n".encode()
    assert os.listdir(tmp_path / "out") == ["grades.csv"]


def test_gradescope_rounds_the_time_to_milliseconds_and_writes_two_decimals(ada):
    ada.exercises[0].seconds = 1.0004
    ada.exercises[0].score = 6.255
    ada.exercises[1].score = 0.0004
    data = gradescope_results(ada)
    assert data["execution_time"] == 1.125 and data["score"] == 6.2554
    assert data["output"].startswith("6.26 of 22 points\n")


def test_records_edge_cases_read_and_written_as_they_are():
    assert feedback_line(failed_with(Failure("crash", message="z" * 900))) == "z" * 900  # at the limit: whole
    assert problem(Failure("import", message="did not import", raised={"type": "E", "message": "m"})) == \
        "did not import: E: m"
    older = {"student": "ada", "exercises": [{"id": "03", "score": 1.0, "max_score": 1.0, "error": "", "seconds": 0.0,
                                              "tests": [{"name": "t", "outcome": PASSED, "score": 1.0,
                                                         "max_score": 1.0}]}]}
    [test] = SubmissionResult.from_json(older).exercises[0].tests  # a record without failure fields
    assert test.failure is None and test.name == "t"
    skipped = {"name": "s", "outcome": SKIPPED, "score": 0.0, "max_score": 0.0, "feedback": "CUDA not available"}
    failed = {"name": "f", "outcome": FAILED, "score": 0.0, "max_score": 1.0, "feedback": "words",
              "failure": {"reason": "raised", "explanation": "still the stub: fill in f"}}
    before = {"student": "ada", "exercises": [{"id": "03", "score": 0.0, "max_score": 1.0, "error": "", "seconds": 0.0,
                                               "tests": [skipped, failed]}]}
    back = SubmissionResult.from_json(before).exercises[0].tests  # written before notes and explanations were facts
    assert back[0].note == "CUDA not available" and back[1].note == ""
    assert back[1].failure.explanation == {"kind": "note", "text": "still the stub: fill in f"}


def test_fractions_to_four_places_a_passed_checks_empty_output_and_exact_messages(course, ada, bob, tmp_path):
    ada.exercises[0].tests[0] = Test("own_members_first", PASSED, 2 / 3, 2 / 3, public=True, doc="a description")
    ada.exercises[1].score = 1 / 3 - 6.25  # the total: 1/3
    data = gradescope_results(ada)
    assert data["tests"][0]["score"] == data["tests"][0]["max_score"] == 0.6667
    assert data["tests"][0]["output"] == "" and data["score"] == 0.3333
    write_outputs(Options(gradescope=tmp_path / "gs.json"), course, [bob])
    assert (tmp_path / "gs.json").read_text().startswith('{\n  "score": 10.0,\n  "execution_time"')
    with pytest.raises(ValueError, match=r"^--gradescope describes one submission; grade one at a time$"):
        write_outputs(Options(gradescope=tmp_path / "gs.json"), course, [ada, bob])


def test_the_summary_counts_full_marks_exactly_and_aligns_wide_means(course, bob):
    near = SubmissionResult("dee", [ExerciseResult("03", 9.5, 10.0), ExerciseResult("04", 0.0, 12.0)])
    bob.exercises.append(ExerciseResult("04", 0.0, 12.0))
    assert class_summary(course, [bob, near], {}).split("\n")[:4] == [
        "ex  title                      mean  median  max  full  zero",
        "03  The recursive walk         9.75    9.75   10     1     0",  # 9.5 of 10 is not full marks
        "04  __call__, hooks and modes  0.00    0.00   12     0     2",
        "    total                      9.75    9.75   22     0     0"]
    bob.exercises.pop()
    assert class_summary(course, [bob], {}).split("\n")[:2] == [  # "mean" stands right, over "10.00"
        "ex  title                mean  median  max  full  zero",
        "03  The recursive walk  10.00   10.00   10     1     0"]


def test_the_score_table_goes_on_past_an_exercise_that_could_not_be_graded(course, ada):
    ada.exercises.reverse()  # 04, which did not import, first
    text = score_table(course, ada)
    assert "04: your package did not import" in text and "03 FAILED tied_once" in text
