"""The instructor report: right statistics, a page that names the class's misconceptions,
figures that exist, and a page a real browser renders with its figures."""
import json
import shutil
import subprocess
import tempfile

import pytest

pytest.importorskip("matplotlib")

from modlab.cli import main
from modlab.report import class_statistics, misconception, write_report
from modlab.runner.batch import Record, ResultStore
from modlab.runner.records import FAILED, PASSED, SKIPPED, ExerciseResult, SubmissionResult
from modlab.runner import records

from conftest import ROOT

COURSE = ["--course", str(ROOT / "course.yaml")]
BARE = "a bare tensor where a Parameter was meant"
HISTOGRAM_BLUE = (0x4C, 0x72, 0xB0)


def student(name: str, first: str, second: str, hint: str = BARE) -> SubmissionResult:
    """A student with two tests in exercise 01: outcomes as given, 5 points each."""
    tests = []
    for test_name, outcome in (("keeps_storage", first), ("registers_it", second)):
        passed = outcome == PASSED
        feedback = "" if passed else f"registers it: torch has ['w'], yours has []. Smallest failing case: {name}. Hint: {hint}"
        tests.append(records.TestResult(test_name, outcome, 5.0 if passed else 0.0, 5.0, feedback=feedback,
                                public=test_name == "keeps_storage", reason="" if passed else "mismatch"))
    score = sum(t.score for t in tests)
    return SubmissionResult(name, [ExerciseResult("01", score, 10.0, tests)])


@pytest.fixture
def results():
    return [student("ada", PASSED, PASSED), student("bob", PASSED, FAILED), student("cy", FAILED, FAILED),
            student("dee", PASSED, FAILED, hint="something else"), student("eve", SKIPPED, FAILED)]


def test_statistics_count_pass_rates_without_skips_and_group_failures_by_hint(course, results):
    [exercise] = class_statistics(course, results)
    assert exercise.scores == [10.0, 5.0, 0.0, 5.0, 0.0]
    storage, registers = exercise.tests["keeps_storage"], exercise.tests["registers_it"]
    assert storage.pass_rate == 3 / 4  # eve's skip does not count
    assert registers.pass_rate == 1 / 5
    assert registers.common_feedback() == (BARE, 3)  # the smallest failing case differs, the hint does not


def test_misconception_is_the_hint_or_the_failure_without_its_details():
    assert misconception("doc: torch has 1, yours 2. Smallest failing case: [3]. Hint: fix it", "mismatch") == "fix it"
    assert misconception("doc: torch has 1, yours 2. Smallest failing case: [3]", "mismatch") == "doc: torch has 1, yours 2"
    assert misconception("doc: scenario exceeded 10 s", "timeout") == "scenario exceeded 10 s"
    assert misconception("doc: exercise 01 needs mynn/parameter.py, which is missing from /ada", "missing") == \
        misconception("doc: exercise 01 needs mynn/parameter.py, which is missing from /bob", "missing")


def test_page_lists_the_hardest_test_first_with_its_misconception(course, results, tmp_path):
    page = write_report(course, results, tmp_path, {"eve": "the grading process exited with code 7"})
    text = page.read_text()
    struggles = text.split("Where the class struggles", 1)[1]
    assert struggles.index("registers_it") < struggles.index("keeps_storage")
    assert f"{BARE} <em>(3 of 4)</em>" in text
    assert "20%" in text and "75%" in text
    assert "Grading failed for 1 students" in text and "exited with code 7" in text
    for figure in ("overview.png", "exercise_01.png"):
        assert f'src="{figure}"' in text
        assert (tmp_path / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_command_reads_a_results_folder_and_a_json_file(course, results, tmp_path, capsys):
    store = ResultStore(tmp_path / "results")
    store.students.mkdir(parents=True)
    for result in results:
        store.save(Record(result, "key", "sha"))
    (store.folder / "batch.json").write_text(json.dumps({"students": [r.student for r in results]}))
    assert main([*COURSE, "report", str(store.folder)]) == 0
    assert (store.folder / "report" / "report.html").is_file()

    class_json = tmp_path / "class.json"
    class_json.write_text(json.dumps({"submissions": [r.to_json() for r in results]}))
    assert main([*COURSE, "report", str(class_json), "--out", str(tmp_path / "from-json")]) == 0
    assert "5 students" in (tmp_path / "from-json" / "report.html").read_text()

    capsys.readouterr()
    assert main([*COURSE, "report", str(tmp_path / "nothing")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def browser():
    return next((found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))), None)


@pytest.mark.skipif(browser() is None, reason="no chromium on this machine")
def test_a_headless_browser_renders_the_page_with_its_figures(course, results, tmp_path):
    from matplotlib.image import imread

    page = write_report(course, results, tmp_path / "report")
    shot = tmp_path / "shot.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={profile}", "--window-size=1200,1600", f"--screenshot={shot}",
                        page.as_uri()], check=True, capture_output=True, timeout=120)
    pixels = (imread(shot)[..., :3] * 255).round()
    blue = ((abs(pixels - HISTOGRAM_BLUE) <= 8).all(axis=-1)).sum()
    assert blue > 1000, "the histograms did not render: the page shows no figure"
