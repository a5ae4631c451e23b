"""The instructor report: right statistics, a page that names the class's misconceptions,
figures that exist, and a page a real browser renders with its figures."""
import json
import shutil
import subprocess
import tempfile

import pytest

pytest.importorskip("matplotlib")

from modlab import records
from modlab.batch.store import Record, ResultStore
from modlab.cli import main
from modlab.instructor.report import cause, class_statistics, write_report
from modlab.records import FAILED, PASSED, SKIPPED, ExerciseResult, SubmissionResult

from conftest import ROOT

COURSE = ["--course", str(ROOT / "course.yaml")]
BARE = "a bare tensor where a Parameter was meant"
HISTOGRAM_BLUE = (0x4C, 0x72, 0xB0)


def student(name: str, first: str, second: str, hint: tuple[str, str] = ("bare-tensor", BARE)) -> SubmissionResult:
    """A student with two tests in exercise 01: outcomes as given, 5 points each; each failure
    differs at the same place, with a smallest case of its own, and shows the misconception ``hint``."""
    tests = []
    for test_name, outcome in (("keeps_storage", first), ("registers_it", second)):
        passed = outcome == PASSED
        failure = None if passed else records.Failure(
            "mismatch", where="_parameters", torch="{'w': 'Parameter'}", yours="{}", smallest_case=name,
            misconceptions=[{"id": hint[0], "text": hint[1]}])
        tests.append(records.TestResult(test_name, outcome, 5.0 if passed else 0.0, 5.0, public=test_name == "keeps_storage",
                                        reason="" if passed else "mismatch", failure=failure))
    score = sum(t.score for t in tests)
    return SubmissionResult(name, [ExerciseResult("01", score, 10.0, tests)])


@pytest.fixture
def results():
    return [student("ada", PASSED, PASSED), student("bob", PASSED, FAILED), student("cy", FAILED, FAILED),
            student("dee", PASSED, FAILED, hint=("other", "something else")), student("eve", SKIPPED, FAILED)]


def test_statistics_count_pass_rates_without_skips_and_group_failures_by_misconception(course, results):
    [exercise] = class_statistics(course, results)
    assert exercise.scores == [10.0, 5.0, 0.0, 5.0, 0.0]
    storage, registers = exercise.tests["keeps_storage"], exercise.tests["registers_it"]
    assert storage.pass_rate == 3 / 4  # eve's skip does not count
    assert registers.pass_rate == 1 / 5
    assert registers.common_feedback() == (BARE, 3)  # the smallest failing case differs, the hint does not


def failed(reason: str, **fields) -> records.TestResult:
    return records.TestResult("t", FAILED, 0.0, 1.0, reason=reason, failure=records.Failure(reason, **fields))


def test_cause_is_read_from_the_failure_record_without_the_details_that_differ():
    hint = [{"id": "tied-twice", "text": "tied weights counted twice"}]
    assert cause(failed("mismatch", where="a", smallest_case="[3]", misconceptions=hint)) == "tied weights counted twice"
    assert cause(failed("mismatch", where="root.named_parameters()", torch="[1]", yours="[2]", smallest_case="[3]")) \
        == cause(failed("mismatch", where="root.named_parameters()", torch="[5]", yours="[6]", smallest_case="[7]")) \
        == "differs from torch at root.named_parameters()"
    assert cause(failed("raised", raised={"type": "KeyError", "message": "'w'"})) == "raises KeyError"
    assert cause(failed("raised", raised={"type": "NotImplementedError", "message": "exercise 01: x"},
                        explanation={"kind": "stub", "function": "x", "file": "", "exercise": ""})) \
        == "still the stub: fill in x in your package"
    assert cause(failed("timeout", message="scenario exceeded 10 s")) == "scenario exceeded 10 s"
    assert cause(failed("missing", message="exercise 01 needs mynn/parameter.py, missing from /ada")) == \
        cause(failed("missing", message="exercise 01 needs mynn/parameter.py, missing from /bob"))


def test_misconception_table_counts_students_per_misconception(course, results):
    [exercise] = class_statistics(course, results)
    assert exercise.showing() == [("bare-tensor", BARE, 3), ("other", "something else", 1)]


def test_page_lists_the_hardest_test_first_with_its_misconception(course, results, tmp_path):
    page = write_report(course, results, tmp_path, {"eve": "the grading process exited with code 7"})
    text = page.read_text()
    struggles = text.split("Where the class struggles", 1)[1]
    assert struggles.index("registers_it") < struggles.index("keeps_storage")
    assert f"{BARE} <em>(3 of 4)</em>" in text
    assert "20%" in text and "75%" in text
    assert "Grading failed for 1 students" in text and "exited with code 7" in text
    table = text.split('class="misconceptions"', 1)[1].split("</table>", 1)[0]
    assert "<code>bare-tensor</code>" in table and "3 of 5" in table
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
