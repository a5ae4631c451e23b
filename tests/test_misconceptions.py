"""The misconception catalog: beside each exercise's scenarios, every entry documented, and
every misconception a hidden check scores is also named by a public check."""
import pytest

from modlab.grading.catalog import course_catalog, detect
from modlab.grading.evidence import Evidence, RaisedView
from modlab.grading.loader import load_catalog, load_scenarios
from modlab.grading.scenario import scenario
from modlab.instructor.catalog_doc import catalog_doc_is_stale, checks_by_misconception


@pytest.fixture(scope="module")
def catalog(course):
    load_catalog(course.graders)
    return {entry.id: entry for entry in course_catalog(course.graders)}


def test_every_entry_says_what_the_student_reads_and_what_evidence_it_needs(catalog):
    assert len(catalog) > 50
    for entry in catalog.values():
        assert entry.text and entry.evidence, entry.id
        assert entry.exercise.isdigit() and len(entry.exercise) == 2, entry.id


def test_hidden_checks_name_only_misconceptions_a_public_check_names_too(course):
    for exercise in course.exercises:
        public, hidden = set(), set()
        for scenario in load_scenarios(course, exercise):
            (public if scenario.public else hidden).update(scenario.misconception_ids)
        assert hidden <= public, (exercise.id, hidden - public)


def test_the_catalog_doc_is_what_modlab_build_writes(course):
    assert not catalog_doc_is_stale(course), "docs/misconceptions.md is stale: run `modlab build`"


def test_every_entry_used_by_a_scenario_or_tried_on_every_exception(course, catalog):
    used = {mid for table in checks_by_misconception(course).values() for mid in table}
    assert {mid for mid, entry in catalog.items() if not entry.on_raise} <= used


def test_a_raised_submission_gets_only_the_exceptions_explanations(course, catalog):
    """A scenario that raised never gets the scenario's own misconceptions."""
    raised = {"type": "TypeError", "message": "unsupported operand", "frames": [["walk.py", 3, "Walk.named_parameters"]]}
    evidence = Evidence.of({"$dict": [["root.named_parameters()", []]]}, None, None, raised)
    listed = tuple(catalog[mid] for mid in ("tied-twice", "walk-order", "dotted-names"))
    assert detect(listed, course.graders, evidence) == []


def test_a_detector_that_fails_on_odd_evidence_stays_silent(course, catalog):
    evidence = Evidence(torch={"p shares data's storage": RaisedView("X", "")}, yours=None)
    assert detect((catalog["parameter-copies-data"],), course.graders, evidence) == []


ENTRY = """from modlab.grading.catalog import misconception


@misconception("same-id", "{exercise}", "a text")
def detector(e):
    \"\"\"Any evidence.\"\"\"
    return True
"""


def test_a_scenario_lists_entries_not_ids_and_an_id_belongs_to_one_file_of_its_course(tmp_path):
    with pytest.raises(TypeError, match="list the catalog entries themselves"):
        scenario(misconceptions=["tied-twice"])
    for course in ("one", "two"):  # two courses may use one id; one course may not define it twice
        for exercise in ("01_a", "02_b"):
            (tmp_path / course / "graders" / exercise).mkdir(parents=True)
            (tmp_path / course / "graders" / exercise / "misconceptions.py").write_text(ENTRY.format(exercise=exercise[:2]))
    with pytest.raises(ValueError, match=r"'same-id' is defined twice: in \S+01_a/misconceptions.py and \S+02_b/"):
        load_catalog(tmp_path / "one" / "graders")
    [found] = course_catalog(tmp_path / "one" / "graders")
    assert found.exercise == "01" and course_catalog(tmp_path / "two" / "graders") == []
