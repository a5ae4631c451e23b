"""pytest front-end for the graders: ``pytest graders/ --submission PATH``.

Collects every :class:`~modlab.grading.scenario.Scenario` in a grader file as
one test per case, and runs it through the same engine as ``modlab grade``,
so a failure prints the same teaching feedback. CUDA cases carry the ``cuda``
marker; ``--require-cuda`` turns their "CUDA not available" skip into a
failure, so a misconfigured GPU runner cannot pass silently.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from modlab.course import load_course
from modlab.engine import GRAFT, WHOLE, ExerciseGrading, GradeOptions
from modlab.folders import package_folder
from modlab.formats.feedback import feedback_line
from modlab.grading.scenario import Scenario
from modlab.records import FAILED, SKIPPED


def pytest_addoption(parser):
    group = parser.getgroup("modlab", "grading a submission against torch.nn")
    group.addoption("--submission", default=None, metavar="PATH",
                    help="folder holding the graded package (default: the course's solutions/)")
    group.addoption("--mode", choices=(GRAFT, WHOLE), default=GRAFT,
                    help="graft: each exercise's files inside the reference package; whole: the package as it is")
    group.addoption("--require-cuda", action="store_true",
                    help="fail CUDA cases that cannot run instead of skipping them")
    group.addoption("--modlab-course", default=None, metavar="FILE", help="the course.yaml (default: nearest)")


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: a grader case that runs on a CUDA device")
    config.addinivalue_line("markers", "public: a grader case released to students")


def pytest_pycollect_makeitem(collector, name, obj):
    if isinstance(obj, Scenario):
        return [ScenarioItem.from_parent(collector, name=case.name, case=case) for case in obj.cases()]
    return None


class ScenarioFailed(Exception):
    """A case failed; its message is the feedback."""


class ScenarioItem(pytest.Item):
    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        if case.needs_cuda:
            self.add_marker("cuda")
        if case.scenario.public:
            self.add_marker("public")

    def runtest(self):
        test = _grading_for(self.config, self.case.scenario.exercise).check(self.case)
        if test.outcome == SKIPPED:
            pytest.skip(test.note)
        if test.outcome == FAILED:
            raise ScenarioFailed(feedback_line(test))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"exercise {self.case.scenario.exercise}: {self.case.name}"


def _grading_for(config, exercise_id: str) -> ExerciseGrading:
    """One grading (one worker) per exercise for the whole pytest session."""
    gradings = config.stash.setdefault(_GRADINGS, {})
    if exercise_id not in gradings:
        course = load_course(config.getoption("modlab_course"))
        given = config.getoption("submission")
        package = package_folder(Path(given), course) if given else course.solutions
        options = GradeOptions(mode=config.getoption("mode"),
                               device="cuda" if config.getoption("require_cuda") else "auto")
        gradings[exercise_id] = ExerciseGrading(course, course.exercise(exercise_id), package, options)
    return gradings[exercise_id]


_GRADINGS = pytest.StashKey[dict]()


def pytest_unconfigure(config):
    for grading in config.stash.get(_GRADINGS, {}).values():
        grading.close()
