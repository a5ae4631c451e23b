"""A second course proves that modlab is the engine and the course its content.

``tests/courses/optim/`` rebuilds ``torch.optim.SGD`` (package ``myoptim``, oracle
``torch.optim``): two exercises, each with its scenarios, one catalog entry and its
labelled variants. No file of modlab/ is special to it (``tests/test_course_apart.py``
scans for its names too). Here it is built, graded, released and set up for nbgrader
exactly as the project's own course is.
"""
import shutil

import pytest
import yaml

from modlab.cli import main
from modlab.course import load_course
from modlab.engine import GradeOptions, grade_exercise, grade_submission
from modlab.formats.feedback import feedback_line
from modlab.instructor.release import build_release
from modlab.instructor.variants import load_variants, variant_package
from modlab.records import FAILED

from conftest import ROOT

CPU = GradeOptions(device="cpu")


@pytest.fixture(scope="module")
def optim(tmp_path_factory):
    """The second course, copied and built (its stubs, notebooks and catalog page)."""
    root = tmp_path_factory.mktemp("optim") / "course"
    shutil.copytree(ROOT / "tests" / "courses" / "optim", root, ignore=shutil.ignore_patterns("__pycache__"))
    assert main(["--course", str(root / "course.yaml"), "build"]) == 0
    return load_course(root / "course.yaml")


def test_the_course_reads_its_own_oracle_and_package(optim):
    assert (optim.package, optim.oracle.module, optim.oracle.watch) == ("myoptim", "torch.optim", ("Optimizer",))
    assert sorted(p.name for p in (optim.root / "exercises" / "myoptim").glob("*.py")) == \
        ["__init__.py", "momentum.py", "sgd.py"]
    assert 'raise NotImplementedError("exercise 02: direction")' in \
        (optim.root / "exercises" / "myoptim" / "momentum.py").read_text()
    page = (optim.root / "docs" / "misconceptions.md").read_text()
    assert "`weight-decay-ignored`" in page and "`momentum-buffer-not-kept`" in page


def test_the_reference_scores_full_marks_and_the_stubs_nothing(optim):
    reference = grade_submission(optim, optim.solutions, options=CPU)
    assert reference.score == pytest.approx(reference.max_score) == 10
    stubs = grade_submission(optim, optim.root / "exercises" / "myoptim", options=CPU)
    assert stubs.score == 0
    assert all("still the stub" in feedback_line(t) for e in stubs.exercises for t in e.tests)


@pytest.mark.parametrize("name", ["weight_decay_left_out", "weight_decay_subtracted", "buffer_made_afresh_each_step",
                                  "dampening_left_out", "momentum_scales_the_gradient"])
def test_each_labelled_variant_gets_exactly_its_misconceptions(optim, tmp_path, name):
    [variant] = [v for v in load_variants(optim) if v.name == name]
    result = grade_exercise(optim, optim.exercise(variant.exercise), variant_package(optim, variant, tmp_path), CPU)
    assert result.score < result.max_score
    shown = {m for t in result.tests if t.outcome == FAILED for m in t.failure.misconception_ids}
    assert shown == set(variant.misconceptions), [feedback_line(t) for t in result.tests if t.outcome == FAILED]


def test_build_measure_records_what_grading_showed_and_the_page_gives_recall_and_precision(optim, tmp_path, capsys):
    root = tmp_path / "course"
    # Not its bytecode: pytest's rewritten graders keep the path they were compiled at, and
    # copied beside their sources (same times) they would be read back as this course's.
    shutil.copytree(optim.root, root, ignore=shutil.ignore_patterns("__pycache__"))
    assert main(["--course", str(root / "course.yaml"), "build", "--measure"]) == 0
    assert "wrote graders/01_sgd/measured.yaml" in capsys.readouterr().out
    measured = yaml.safe_load((root / "graders" / "02_momentum" / "measured.yaml").read_text())
    assert set(measured["variants.yaml"]) == {"buffer_made_afresh_each_step", "dampening_left_out",
                                                 "momentum_scales_the_gradient"}
    assert list(measured["variants.yaml"]["buffer_made_afresh_each_step"]["hinted"]) == ["momentum-buffer-not-kept"]
    page = (root / "docs" / "misconceptions.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| `momentum-buffer-not-kept`"))
    labelled = [v for v in load_variants(optim) if "momentum-buffer-not-kept" in v.misconceptions]
    assert row.endswith(f"| {len(labelled)}/{len(labelled)} | {len(labelled)}/{len(labelled)} |")


def test_a_submission_building_on_torch_optim_is_tamper(optim, tmp_path):
    """The oracle is the course's: delegating to torch.optim is what this course calls tamper."""
    sgd = (optim.solutions / "sgd.py").read_text().replace("class SGD:", "class SGD(torch.optim.SGD):")
    package = tmp_path / "cheat" / "myoptim"
    shutil.copytree(optim.solutions, package)
    (package / "sgd.py").write_text(sgd)
    result = grade_exercise(optim, optim.exercise("01"), package, CPU)
    assert result.score == 0
    assert all(t.reason == "tamper" and "torch.optim" in feedback_line(t) for t in result.tests)


def test_the_kit_holds_the_courses_public_checks_and_checks_a_student(optim, tmp_path):
    kit = tmp_path / "kit"
    written = {p.as_posix() for p in build_release(optim, kit)}
    assert {"graders/01_sgd/test_01_sgd.py", "graders/01_sgd/views.py", "graders/01_sgd/misconceptions.py",
            "graders/02_momentum/test_02_momentum.py", "myoptim/sgd.py", "01_sgd.ipynb"} <= written
    assert "zero_grad_forgets_the_gradients" not in (kit / "graders" / "01_sgd" / "test_01_sgd.py").read_text()
    assert yaml.safe_load((kit / "course.yaml").read_text())["oracle"] == {"module": "torch.optim",
                                                                           "watch": ["Optimizer"]}
    shutil.copy(optim.solutions / "sgd.py", kit / "myoptim" / "sgd.py")
    assert main(["--course", str(kit / "course.yaml"), "check", "01", "--path", str(kit)]) == 0


def test_nbgrader_gets_an_assignment_per_exercise(optim, tmp_path):
    assert main(["--course", str(optim.root / "course.yaml"), "nbgrader", "init", str(tmp_path / "nb")]) == 0
    for name in ("01_sgd", "02_momentum"):
        folder = tmp_path / "nb" / "source" / name
        assert (folder / f"{name}.ipynb").is_file() and (folder / "myoptim" / "sgd.py").is_file()
        assert not list(folder.rglob("test_*.py"))
