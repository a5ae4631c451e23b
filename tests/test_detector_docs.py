"""Every detector says which observation it requires and names a neighbour: a labelled bug
that fails one of the same checks without that observation, and so gets no such hint.

The neighbour claim is held to what grading showed (``graders/NN_slug/measured.yaml``,
written by ``modlab build --measure``): the neighbour fails a check that named the entry
for a bug labelled with it, and its own feedback never names the entry. Nothing is graded
here; tests/test_buggy_variants.py checks that measured.yaml is what grading shows.
"""
import pytest

from modlab.course import load_course
from modlab.grading.catalog import Neighbour, course_catalog, detector_doc
from modlab.grading.loader import load_catalog, load_scenarios
from modlab.instructor.catalog_doc import catalog_markdown
from modlab.instructor.measured import labelled_bugs, read_measured

from conftest import ROOT

SECOND = ROOT / "tests" / "courses" / "optim" / "course.yaml"


def catalog_of(course):
    load_catalog(course.graders)
    return course_catalog(course.graders)


@pytest.fixture(scope="module", params=[ROOT / "course.yaml", SECOND], ids=["course", "optim"])
def any_course(request):
    return load_course(request.param)


def test_every_detector_says_what_it_requires_and_names_a_neighbour(any_course):
    unwritten = [entry.id for entry in catalog_of(any_course)
                 if not entry.detector.__doc__.lstrip().startswith("Requires:")
                 or not entry.evidence or entry.neighbour_claim is None]
    assert not unwritten, f"write 'Requires: ...' and 'Neighbour: `bug` (NN, set) fails `check` too, without " \
                          f"...: ...' in the docstrings of {unwritten}"


def test_each_neighbour_is_a_labelled_bug_not_labelled_with_the_entry(any_course):
    bugs = {(variant.exercise, labelled_set, variant.name): variant for labelled_set, variant in labelled_bugs(any_course)}
    for entry in catalog_of(any_course):
        claim = entry.neighbour_claim
        variant = bugs.get((claim.exercise, claim.labelled_set, claim.bug))
        assert variant is not None, f"{entry.id}: no labelled bug {claim.bug} in {claim.exercise}'s {claim.labelled_set}"
        assert entry.id not in variant.misconceptions, f"{entry.id}: its neighbour {claim.bug} is labelled with it"


@pytest.fixture(scope="module")
def course_measured(course):
    return read_measured(course)


def checks_naming(entry, bugs, measured) -> set[tuple[str, str]]:
    """``(exercise, check)`` of every failed check that named ``entry`` for a bug of ``bugs`` labelled with it."""
    return {(variant.exercise, check) for labelled_set, variant in bugs
            if entry.id in variant.misconceptions and (variant.exercise, labelled_set, variant.name) in measured
            for check in measured[(variant.exercise, labelled_set, variant.name)].checks_naming(entry.id)}


def test_each_neighbour_fails_a_check_that_names_the_entry_and_gets_no_such_hint(course, course_measured):
    bugs = list(labelled_bugs(course))
    for entry in catalog_of(course):
        claim = entry.neighbour_claim
        shown = course_measured.get((claim.exercise, claim.labelled_set, claim.bug))
        assert shown is not None, f"{entry.id}: measured.yaml does not record {claim.bug}: run `modlab build --measure`"
        assert claim.check in shown.failed, f"{entry.id}: its neighbour {claim.bug} does not fail {claim.check}"
        assert (claim.exercise, claim.check) in checks_naming(entry, bugs, course_measured), \
            f"{entry.id}: {claim.check} never names it for a bug labelled with it"
        assert entry.id not in shown.hinted, f"{entry.id}: its neighbour {claim.bug} gets it (a wrong hint)"


def test_each_neighbour_fails_a_public_check(any_course):
    """misconceptions.py reaches the student kit, where a hidden check's name would leak."""
    public = {(exercise.id, s.name) for exercise in any_course.exercises
              for s in load_scenarios(any_course, exercise) if s.public}
    hidden_named = [(entry.id, entry.neighbour_claim.check) for entry in catalog_of(any_course)
                    if (entry.neighbour_claim.exercise, entry.neighbour_claim.check.split("[")[0]) not in public]
    assert hidden_named == [], "name a public check in these neighbour claims"


def test_a_docstring_splits_into_what_it_requires_and_its_neighbour():
    def detector(e):
        """Requires: the loss is
        negative in the submission.

        Neighbour: `mean_over_classes` (10, variants.yaml) fails `loss[cpu]` too,
        without a negative loss: it divides by the classes: not the batch."""

    requires, neighbour = detector_doc(detector)
    assert requires == "the loss is negative in the submission."
    claim = Neighbour.parse(neighbour)
    assert (claim.bug, claim.exercise, claim.labelled_set, claim.check) == (
        "mean_over_classes", "10", "variants.yaml", "loss[cpu]")


def test_a_docstring_without_the_parts_is_all_requirement_and_a_loose_claim_is_none():
    def detector(e):
        """The loss is negative.

        It divides by the classes."""

    assert detector_doc(detector) == ("The loss is negative. It divides by the classes.", "")
    assert Neighbour.parse("`mean_over_classes` fails `loss` too: it divides by the classes.") is None


def test_the_catalog_doc_shows_each_entrys_neighbour(course):
    page = catalog_markdown(course)
    for entry in catalog_of(course):
        row = next(line for line in page.splitlines() if line.startswith(f"| `{entry.id}` |"))
        assert f"| {entry.neighbour} |" in row, entry.id
