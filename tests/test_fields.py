"""Fields shared by name: a detector reads the very names its scenarios observe under, and a
course whose detector reads a name none of its scenarios observes is refused when it loads."""
import textwrap
from pathlib import Path

import pytest

from modlab.course import load_course
from modlab.grading.catalog import course_catalog
from modlab.grading.evidence import Evidence
from modlab.grading.fields import Field, UndeclaredField, fields_reached
from modlab.grading.loader import import_course_module, load_course_scenarios

COURSE = """\
course: {id: tiny, title: A course of one exercise, package: tinypkg}
exercises:
  - {id: "01", slug: adding, title: Adding, points: 1, files: [adding.py]}
"""
VIEWS = '''\
from modlab.grading.fields import Field

TOTAL = Field("a + b")
EXTRA = Field("a - b")


def totals(nn):
    return {TOTAL: nn.add(1, 2)}
'''
CATALOG = '''\
from modlab.grading.catalog import misconception

from .views import {imported}


@misconception("subtracts", "01", "adding is not subtracting")
def subtracts(e):
    """The total is torch's difference."""
    return any(t != y for t, y in e.pairs({reads}))
'''
GRADER = '''\
from modlab.grading import scenario

from .misconceptions import subtracts
from .views import totals


@scenario(public=True, misconceptions=[subtracts])
def adds(nn):
    """a + b"""
    return totals(nn)
'''


def tiny_course(root: Path, reads: str):
    """A course whose one detector reads ``reads`` (a Field of its views)."""
    folder = root / "graders" / "01_adding"
    folder.mkdir(parents=True)
    (root / "course.yaml").write_text(COURSE)
    (folder / "views.py").write_text(VIEWS)
    imported = reads if reads.isidentifier() else "TOTAL"
    (folder / "misconceptions.py").write_text(CATALOG.format(reads=reads, imported=imported))
    (folder / "test_01_adding.py").write_text(GRADER)
    return load_course(root / "course.yaml")


def test_a_detector_reading_what_its_scenarios_observe_loads(tmp_path):
    course = tiny_course(tmp_path, "TOTAL")
    [scenario] = load_course_scenarios(course)
    assert scenario.misconception_ids == ["subtracts"]
    views = import_course_module(course.graders, "01_adding/views.py")
    assert fields_reached(scenario.body, course.graders) == {views.TOTAL}


def test_a_detector_reading_a_field_no_scenario_observes_is_refused_at_load(tmp_path):
    course = tiny_course(tmp_path, "EXTRA")
    with pytest.raises(ValueError, match=r"misconception subtracts reads 'a - b', which none of the scenarios "
                                         r"listing it observes \(adds\)"):
        load_course_scenarios(course)


def test_fields_are_found_through_helpers_modules_defaults_and_nested_code(tmp_path):
    folder = tmp_path / "graders" / "shared"
    folder.mkdir(parents=True)
    (folder / "things.py").write_text(textwrap.dedent('''\
        from modlab.grading.fields import Field

        A, B, C, D = Field("a"), Field("b"), Field("c"), Field("d")
        PAIR = (C, D)
        UNUSED = Field("never reached")


        def helper():
            return {A: 1}


        def with_default(key=B):
            return {key: 2}


        def top():
            inner = lambda: PAIR  # noqa: E731
            return [helper(), with_default(), inner(), str(len)]
        '''))
    things = import_course_module(tmp_path / "graders", "shared/things.py")
    assert fields_reached(things.top, tmp_path / "graders") == {things.A, things.B, things.C, things.D}
    assert fields_reached(things.helper, tmp_path / "elsewhere") == {things.A}  # helpers are followed only inside


def test_a_detector_reads_fields_by_their_field_never_by_a_string():
    evidence = Evidence(torch={"a + b": 3}, yours={"a + b": 4})
    assert evidence.pairs(Field("a + b")) == [(3, 4)]
    with pytest.raises(UndeclaredField, match="'a \\+ b': a detector reads fields by the Field"):
        evidence.pairs("a + b")
    with pytest.raises(UndeclaredField):
        evidence.dicts_holding("a + b")


def test_a_detector_that_reads_a_string_is_a_course_bug_said_loudly(tmp_path):
    course = tiny_course(tmp_path, '"a + b"')  # not the Field: the string written out again
    load_course_scenarios(course)
    [entry] = course_catalog(course.graders)
    with pytest.raises(UndeclaredField):
        entry.fires(Evidence(torch={"a + b": 3}, yours={"a + b": 4}))
