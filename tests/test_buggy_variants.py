"""The labelled buggy submissions: each loses points in its own exercise, its
feedback names exactly the misconceptions it embodies (no wrong hint), and the
public checks alone name them too, so `modlab check` shows what grading scores.

A variant is graded once; its results are shared by the tests below.
`bench/feedback.py` prints the same figures as precision and recall.
"""
import pytest

from modlab.course import load_course
from modlab.engine import GradeOptions, grade_exercise, process_memory
from modlab.formats.feedback import feedback_line
from modlab.grading.catalog import course_catalog
from modlab.grading.loader import load_catalog
from modlab.instructor.variants import Variant, load_variants, variant_package
from modlab.records import FAILED

from conftest import ROOT

VARIANTS = load_variants(load_course(ROOT / "course.yaml"))
PARAMS = [pytest.param(v, id=f"{v.exercise}-{v.name}", marks=[pytest.mark.cuda] if v.cuda else []) for v in VARIANTS]


@pytest.fixture(scope="session")
def graded(course, tmp_path_factory):
    """Grade a variant once: ``graded(variant)`` is its exercise's result."""
    results = {}

    def grade(variant: Variant):
        if variant.name not in results:
            if variant.cuda and not process_memory().oracle(course).cuda:
                pytest.skip("CUDA not available")  # without CUDA every CUDA case fails, bug or not
            folder = tmp_path_factory.mktemp(variant.name)
            device = "cuda" if variant.cuda else "cpu"
            results[variant.name] = grade_exercise(course, course.exercise(variant.exercise),
                                                   variant_package(course, variant, folder), GradeOptions(device=device))
        return results[variant.name]

    return grade


def named(tests) -> set[str]:
    return {mid for t in tests if t.outcome == FAILED for mid in t.failure.misconception_ids}


def feedback(result) -> str:
    return " | ".join(feedback_line(t) for t in result.tests if t.outcome == FAILED)


@pytest.mark.parametrize("variant", PARAMS)
def test_variant_loses_points_and_names_exactly_its_misconceptions(graded, variant: Variant):
    result = graded(variant)
    assert any(t.outcome == FAILED for t in result.tests), f"{variant.name} passed every test of {variant.exercise}"
    assert result.score < result.max_score
    shown = named(result.tests)
    assert set(variant.misconceptions) <= shown, f"missing {set(variant.misconceptions) - shown}: {feedback(result)}"
    assert shown <= set(variant.misconceptions), f"wrong hints {shown - set(variant.misconceptions)}: {feedback(result)}"


@pytest.mark.parametrize("variant", PARAMS)
def test_public_checks_alone_name_the_misconceptions(graded, variant: Variant):
    """What a student can run before submitting shows every misconception grading scores."""
    public = [t for t in graded(variant).tests if t.public]
    assert set(variant.misconceptions) <= named(public), [feedback_line(t) for t in public if t.outcome == FAILED]


@pytest.fixture(scope="module")
def catalog(course):
    load_catalog(course.graders)
    return {entry.id for entry in course_catalog(course.graders)}


def test_every_label_is_a_catalog_entry_of_the_variants_exercise(catalog):
    for variant in VARIANTS:
        for mid in variant.misconceptions:
            assert mid in catalog, (variant.name, mid)


def test_every_catalog_entry_has_a_labelled_variant(catalog):
    labelled = {mid for variant in VARIANTS for mid in variant.misconceptions}
    assert catalog - labelled == set()


def test_each_variant_edits_a_file_of_its_own_exercise_only(course):
    """Grafting grades exercise k with only exercise k's files from the submission,
    so a variant's file must belong to exactly its own exercise."""
    for variant in VARIANTS:
        owners = [e.id for e in course.exercises if variant.file in e.files]
        assert owners == [variant.exercise], variant.name


def test_every_edit_applies_exactly_once(course):
    for variant in VARIANTS:
        variant.apply((course.solutions / variant.file).read_text())


def test_a_stale_edit_fails_loudly():
    stale = Variant("01", "stale", "parameter.py", ("default-data",), (("no such text", "y"),))
    with pytest.raises(ValueError, match="occurs 0 times"):
        stale.apply("class Parameter: pass\n")
