"""docs/AUTHORING.md is what the repository needs: every exercise of course.yaml has every
piece the guide's checklist names, and holds in it what the guide says it must."""
import dataclasses
import re

import pytest

from modlab.grading.catalog import course_catalog
from modlab.grading.loader import load_catalog, load_scenarios
from modlab.instructor.build import BEGIN, stub_sources
from modlab.instructor.notebooks import TASK_MARKER
from modlab.instructor.measured import labelled_bugs, read_measured
from modlab.instructor.variants import STUDENT_BUGS, load_variants

from conftest import ROOT

GUIDE = ROOT / "docs" / "AUTHORING.md"


def checklist() -> list[tuple[str, str]]:
    """``(piece, path)`` of each row of the guide's checklist table."""
    section = GUIDE.read_text().split("## The checklist", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| ([^|`]+?) \| `([^`]+)` \|", section, re.MULTILINE)


def paths(pattern: str, course, exercise) -> list:
    """The paths a checklist row names for one exercise (one per file where it says FILE)."""
    named = pattern.replace("NN_slug", exercise.name).replace("mynn", course.package)
    files = exercise.files if "FILE" in pattern else ("",)
    return [ROOT / named.replace("FILE", name) for name in files]


def own_entries(course, exercise) -> list:
    load_catalog(course.graders)
    return [entry for entry in course_catalog(course.graders) if entry.exercise == exercise.id]


def reference_has_regions(course, exercise, path):
    assert BEGIN in path.read_text(), f"{path}: no {BEGIN} region: the student has nothing to write"


def lesson_has_one_task(course, exercise, path):
    assert path.read_text().count(TASK_MARKER) == 1, f"{path}: needs exactly one {TASK_MARKER} line"


def stub_is_generated(course, exercise, path):
    assert path.read_text() == stub_sources(course)[path.name], f"{path}: run `modlab build`"


def notebook_exists(course, exercise, path):
    assert path.stat().st_size > 0


def grader_has_public_and_hidden(course, exercise, path):
    scenarios = load_scenarios(course, exercise)
    assert any(s.public for s in scenarios), f"{path}: no public scenario, so `modlab check` checks nothing"
    assert any(not s.public for s in scenarios), f"{path}: no hidden scenario"


def catalog_module_has_entries(course, exercise, path):
    assert any(entry.source == str(path.resolve()) for entry in own_entries(course, exercise)), \
        f"{path}: no catalog entry of exercise {exercise.id}"


def every_entry_has_a_variant(course, exercise, path):
    variants = load_variants(course)
    assert any(v.exercise == exercise.id for v in variants), f"{path}: no labelled variant"
    labelled = {mid for v in variants for mid in v.misconceptions}
    unlabelled = [entry.id for entry in own_entries(course, exercise) if entry.id not in labelled]
    assert unlabelled == [], f"catalog entries of exercise {exercise.id} no buggy variant is labelled with"


def has_student_bugs(course, exercise, path):
    # that they cover every solution region is tests/test_student_bugs.py's to check
    assert any(bug.exercise == exercise.id for bug in load_variants(course, STUDENT_BUGS)), f"{path}: no bug"


def measured_holds_every_bug(course, exercise, path):
    bugs = {(labelled_set, v.name) for labelled_set, v in labelled_bugs(course) if v.exercise == exercise.id and not v.cuda}
    measured = {(labelled_set, name) for ex, labelled_set, name in read_measured(course) if ex == exercise.id}
    assert bugs <= measured, f"{path}: run `modlab build --measure` (unmeasured: {sorted(bugs - measured)})"


def catalog_page_has_a_section(course, exercise, path):
    page = path.read_text()
    assert f"## {exercise.id} {exercise.title}\n" in page, f"{path}: no section for exercise {exercise.id}"
    tried = {mid for s in load_scenarios(course, exercise) for mid in s.misconception_ids}
    assert all(f"`{mid}`" in page for mid in tried)


def exists(course, exercise, path):
    pass  # being there is what the row asks


# What each row of the checklist must hold, by its path.
PIECES = {
    "course.yaml": exists,
    "solutions/mynn/FILE": reference_has_regions,
    "lessons/NN_slug.md": lesson_has_one_task,
    "exercises/mynn/FILE": stub_is_generated,
    "exercises/NN_slug.ipynb": notebook_exists,
    "graders/NN_slug/test_NN_slug.py": grader_has_public_and_hidden,
    "graders/NN_slug/misconceptions.py": catalog_module_has_entries,
    "graders/NN_slug/variants.yaml": every_entry_has_a_variant,
    "graders/NN_slug/student_bugs.yaml": has_student_bugs,
    "graders/NN_slug/measured.yaml": measured_holds_every_bug,
    "docs/misconceptions.md": catalog_page_has_a_section,
}


def test_the_guide_lists_exactly_the_pieces_checked_here():
    assert sorted(path for _, path in checklist()) == sorted(PIECES)


@pytest.mark.parametrize("piece, pattern", checklist())
def test_every_exercise_has_the_piece(course, piece, pattern):
    for exercise in course.exercises:
        for path in paths(pattern, course, exercise):
            assert path.is_file(), f"exercise {exercise.id} lacks its {piece}: {path.relative_to(ROOT)}"
            PIECES[pattern](course, exercise, path)


def test_a_missing_piece_is_found(course):
    """The checks can fail: an exercise 10 that is only a course entry lacks every other piece."""
    ghost = dataclasses.replace(course.exercises[0], id="10", slug="losses", title="Losses", files=("losses.py",))
    for pattern in PIECES:
        if pattern not in ("course.yaml", "docs/misconceptions.md"):
            assert not any(path.is_file() for path in paths(pattern, course, ghost)), pattern
    with pytest.raises(AssertionError, match="no section for exercise 10"):
        catalog_page_has_a_section(course, ghost, ROOT / "docs" / "misconceptions.md")
