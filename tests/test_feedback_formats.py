"""Every output is written from the structured failure record, never from parsed prose."""
import json
from xml.etree import ElementTree as ET

from modlab import records
from modlab.formats.feedback import failure_block, feedback_line
from modlab.formats.jsonfile import result_json
from modlab.formats.gradescope import gradescope_results
from modlab.formats.junit import junit_xml
from modlab.instructor.nbgrader.report import score_text
from modlab.records import FAILED, PASSED, ExerciseResult, Failure, SubmissionResult

HINT = {"id": "tied-twice", "text": "tied weights counted twice"}
DOC = "a Parameter registered in two modules is yielded once"


def failing(public: bool) -> records.TestResult:
    failure = Failure("mismatch", where="root.named_parameters()", torch="['a', 'b']", yours="['a', 'b', 'c']",
                      detail="extra `c`", smallest_case="[['c', 1]]", misconceptions=[HINT])
    return records.TestResult("tied_weights_are_yielded_once", FAILED, 0.0, 2.0, public=public, reason="mismatch",
                              doc=DOC, failure=failure)


def result(public: bool = True) -> SubmissionResult:
    tests = [records.TestResult("own_members_come_before_children", PASSED, 1.0, 1.0, public=True), failing(public)]
    return SubmissionResult("ada", [ExerciseResult("03", 1.0, 3.0, tests)])


def test_the_one_line_feedback_holds_every_fact_in_order():
    text = feedback_line(failing(True))
    assert text == (f"{DOC}: torch gave ['a', 'b'], yours gave ['a', 'b', 'c'] at root.named_parameters() "
                    "(extra `c`). Smallest failing case: [['c', 1]]. Hint: tied weights counted twice")


def test_the_terminal_block_labels_each_fact():
    assert failure_block(failing(True)) == [
        "FAILED tied_weights_are_yielded_once", f"  {DOC}", "  where   root.named_parameters()",
        "  torch   ['a', 'b']", "  yours   ['a', 'b', 'c']", "  detail  extra `c`", "  case    [['c', 1]]",
        "  hint    tied weights counted twice [tied-twice]"]


def test_a_raised_failure_shows_the_exception_and_its_explanation():
    failure = Failure("raised", raised={"type": "NotImplementedError", "message": "exercise 03: named_modules",
                                        "file": "walk.py", "line": 47, "exercise": "03"},
                      explanation={"kind": "stub", "function": "named_modules", "file": "walk.py", "exercise": ""})
    test = records.TestResult("t", FAILED, 0.0, 1.0, reason="raised", failure=failure)
    assert failure_block(test)[1:] == ["  raised  NotImplementedError (walk.py:47): exercise 03: named_modules",
                                       "  note    still the stub: fill in named_modules in walk.py"]


def test_json_keeps_the_feedback_and_adds_the_record():
    data = json.loads(json.dumps(result_json(result())))
    test = data["exercises"][0]["tests"][1]
    assert test["feedback"] == feedback_line(failing(True))
    assert test["failure"]["where"] == "root.named_parameters()"
    assert test["failure"]["misconceptions"] == [HINT]
    assert SubmissionResult.from_json(data).exercises[0].tests[1].failure == failing(True).failure


def test_junit_and_gradescope_show_the_labelled_facts():
    xml = ET.fromstring(junit_xml([result()]))
    failure = xml.find(".//testcase[@name='tied_weights_are_yielded_once']/failure")
    assert failure.get("message") == "mismatch"
    assert "where   root.named_parameters()" in failure.text and "[tied-twice]" not in failure.text.split("hint")[0]
    tests = gradescope_results(result())["tests"]
    assert [t["status"] for t in tests] == ["passed", "failed"]
    assert "hint    tied weights counted twice [tied-twice]" in tests[1]["output"]


def test_nbgrader_feedback_hides_a_hidden_checks_name_and_description(course):
    exercise = course.exercise("03")
    hidden = score_text(exercise, result(public=False).exercises[0])
    assert "hidden check 1" in hidden and "tied_weights_are_yielded_once" not in hidden and DOC not in hidden
    assert "hint    tied weights counted twice" in hidden
    shown = score_text(exercise, result(public=True).exercises[0])
    assert "FAILED tied_weights_are_yielded_once" in shown and DOC in shown
