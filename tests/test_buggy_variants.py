"""The labelled buggy submissions, both sets: each loses points in its own exercise and
gets no hint it does not embody (a wrong hint fails here); each of ``variants.yaml``
(tuned with the detectors) gets exactly its misconceptions, named by the public checks
alone too, so `modlab check` shows what grading scores; and grading shows what
``graders/NN_slug/measured.yaml`` records, from which docs/misconceptions.md
gives each entry's recall and precision.

Each bug is graded once, by its own test; the bugs of one exercise go to one parallel worker
(an xdist group), where what grading one learnt serves the next: the specs a passing search
draws, a failing search another bug can follow (modlab.engine.memory). Spread over every
worker, the same bugs cost more CPU (bench/README.md has the figures).
`bench/feedback.py` prints the same figures per exercise.
"""
import functools

import pytest

from modlab.course import load_course
from modlab.engine import process_memory
from modlab.formats.feedback import feedback_line
from modlab.grading.catalog import course_catalog
from modlab.grading.loader import load_catalog
from modlab.instructor.measured import Shown, grade_bug, labelled_bugs, read_measured
from modlab.instructor.variants import VARIANTS, Variant, load_variants
from modlab.records import FAILED

from conftest import ROOT

COURSE = load_course(ROOT / "course.yaml")
BUGS = list(labelled_bugs(COURSE))
PARAMS = [pytest.param(labelled_set, variant, id=f"{variant.exercise}-{variant.name}"
                       + ("" if labelled_set == VARIANTS else "-blind"),
                       marks=[pytest.mark.xdist_group(f"bugs-{variant.exercise}"),
                              *([pytest.mark.cuda] if variant.cuda else [])]) for labelled_set, variant in BUGS]


@functools.cache
def measured() -> dict:
    """What ``measured.yaml`` records, read once per test process rather than once per bug (a
    module-scoped fixture would put every bug's test on one parallel worker: tests/conftest.py)."""
    return read_measured(COURSE)


def named(tests) -> set[str]:
    return {mid for t in tests if t.outcome == FAILED for mid in t.failure.misconception_ids}


def feedback(tests) -> str:
    return " | ".join(feedback_line(t) for t in tests if t.outcome == FAILED)


@pytest.mark.parametrize("labelled_set, variant", PARAMS)
def test_bug_loses_points_gets_no_wrong_hint_and_is_measured(course, labelled_set: str, variant: Variant):
    if variant.cuda and not process_memory().oracle(course).cuda:
        pytest.skip("CUDA not available")  # without CUDA every CUDA case fails, bug or not
    result = grade_bug(course, variant)
    shown = Shown.of(result)
    assert shown.failed and result.score < result.max_score, f"{variant.name} passed every test of {variant.exercise}"
    wrong = set(shown.hinted) - set(variant.misconceptions)
    assert not wrong, f"wrong hints {wrong}: {feedback(result.tests)}"
    if labelled_set == VARIANTS:
        public = [t for t in result.tests if t.public]
        missing = set(variant.misconceptions) - named(public)
        assert not missing, f"the public checks miss {missing}: {feedback(public)}"
    recorded = measured().get((variant.exercise, labelled_set, variant.name))
    assert recorded == shown, "graders/*/measured.yaml records otherwise: run `modlab build --measure`"


def test_measured_records_only_bugs_that_exist(course):
    bugs = {(variant.exercise, labelled_set, variant.name) for labelled_set, variant in BUGS}
    assert set(measured()) - bugs == set()


@pytest.fixture(scope="module")
def catalog(course):
    load_catalog(course.graders)
    return {entry.id for entry in course_catalog(course.graders)}


def test_every_label_is_a_catalog_entry_of_the_variants_exercise(catalog):
    for _, variant in BUGS:
        for mid in variant.misconceptions:
            assert mid in catalog, (variant.name, mid)


def test_every_catalog_entry_has_a_labelled_variant(catalog):
    labelled = {mid for variant in load_variants(COURSE, VARIANTS) for mid in variant.misconceptions}
    assert catalog - labelled == set()


def test_each_variant_edits_a_file_of_its_own_exercise_only(course):
    """Grafting grades exercise k with only exercise k's files from the submission,
    so a variant's file must belong to exactly its own exercise."""
    for _, variant in BUGS:
        owners = [e.id for e in course.exercises if variant.file in e.files]
        assert owners == [variant.exercise], variant.name


def test_every_edit_applies_exactly_once(course):
    for _, variant in BUGS:
        variant.apply((course.solutions / variant.file).read_text())


def test_a_stale_edit_fails_loudly():
    stale = Variant("01", "stale", "parameter.py", ("default-data",), (("no such text", "y"),))
    with pytest.raises(ValueError, match="occurs 0 times"):
        stale.apply("class Parameter: pass\n")
