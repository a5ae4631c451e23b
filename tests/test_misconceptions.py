"""The misconception catalog: one place, every entry documented, and every
misconception a hidden check scores is also named by a public check."""
from modlab.grading.evidence import Evidence, RaisedView
from modlab.grading.loader import load_scenarios
from modlab.grading.misconceptions import CATALOG, detect
from modlab.instructor.catalog_doc import catalog_doc_is_stale, checks_by_misconception


def test_every_entry_says_what_the_student_reads_and_what_evidence_it_needs():
    for entry in CATALOG.values():
        assert entry.text and entry.evidence, entry.id
        assert entry.exercise.isdigit() and len(entry.exercise) == 2, entry.id


def test_hidden_checks_name_only_misconceptions_a_public_check_names_too(course):
    for exercise in course.exercises:
        public, hidden = set(), set()
        for scenario in load_scenarios(course, exercise):
            (public if scenario.public else hidden).update(scenario.misconceptions)
        assert hidden <= public, (exercise.id, hidden - public)


def test_the_catalog_doc_is_what_modlab_build_writes(course):
    assert not catalog_doc_is_stale(course), "docs/misconceptions.md is stale: run `modlab build`"


def test_every_entry_used_by_a_scenario_or_tried_on_every_exception(course):
    used = {mid for table in checks_by_misconception(course).values() for mid in table}
    assert {mid for mid, entry in CATALOG.items() if not entry.on_raise} <= used


def test_a_raised_submission_gets_only_the_exceptions_explanations():
    """A scenario that raised never gets the scenario's own misconceptions."""
    raised = {"type": "TypeError", "message": "unsupported operand", "frames": [["walk.py", 3, "Walk.named_parameters"]]}
    evidence = Evidence.of({"$dict": [["root.named_parameters()", []]]}, None, None, raised)
    assert detect(["tied-twice", "walk-order", "dotted-names"], evidence) == []


def test_a_detector_that_fails_on_odd_evidence_stays_silent():
    evidence = Evidence(torch={"p shares data's storage": RaisedView("X", "")}, yours=None)
    assert detect(["parameter-copies-data"], evidence) == []
