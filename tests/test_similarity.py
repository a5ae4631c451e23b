"""`modlab similarity` and the report's "Similar code" section, on a generated class
(tests/similarity_class.py): every copy caught whatever its disguise, no independent
pair and no stub flagged, bad files reported in a line, valid pages a browser renders."""
import json
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("copydetect")

from modlab import records
from modlab.batch.store import Record, ResultStore
from modlab.cli import main
from modlab.instructor.build import stub_sources
from modlab.instructor.notebooks import lesson_path, split_cells
from modlab.instructor.similarity import compare_class, write_pages
from modlab.instructor.similarity.documents import fingerprint, starter_fingerprints, tokenise
from modlab.instructor.similarity.threshold import CEILING, FLOOR, chosen_threshold
from modlab.records import PASSED, ExerciseResult, SubmissionResult

import similarity_class as generated
from conftest import ROOT
from test_report import browser

COURSE = ["--course", str(ROOT / "course.yaml")]
EXERCISES = ("03", "06")
MARK_ORANGE = (0xFF, 0xB7, 0x4D)


@pytest.fixture(scope="module")
def klass(course, tmp_path_factory):
    return generated.write_class(course, tmp_path_factory.mktemp("similarity") / "class", generated.small_class(course))


@pytest.fixture(scope="module")
def results(course, klass):
    return {r.exercise.id: r for r in compare_class(course, klass, [course.exercise(e) for e in EXERCISES])}


def flagged(result) -> set[frozenset[str]]:
    return {frozenset((p.first, p.second)) for p in result.flagged}


@pytest.mark.parametrize("exercise", EXERCISES)
def test_exactly_the_copies_are_flagged(results, exercise):
    assert flagged(results[exercise]) == generated.copied_pairs()


@pytest.mark.parametrize("copier", sorted(generated.COPIERS), ids=lambda c: generated.COPIERS[c][1])
@pytest.mark.parametrize("exercise", EXERCISES)
def test_each_disguise_alone_is_caught_both_ways(results, exercise, copier):
    origin, _ = generated.COPIERS[copier]
    [pair] = [p for p in results[exercise].flagged if {p.first, p.second} == {origin, copier}]
    assert min(pair.first_in_second, pair.second_in_first) >= results[exercise].threshold.value


@pytest.fixture(scope="module")
def everything(course, klass):
    """Every pair compared, listed with threshold 0."""
    return {r.exercise.id: r for r in compare_class(course, klass, [course.exercise(e) for e in EXERCISES], 0.0)}


@pytest.mark.parametrize("exercise", EXERCISES)
def test_independent_implementations_share_little(everything, exercise):
    """Three correct implementations written separately score less than half the weakest copy."""
    independent = set(generated.INDEPENDENT)
    scores = [p.score for p in everything[exercise].flagged if {p.first, p.second} <= independent]
    copies = [p.score for p in everything[exercise].flagged if frozenset((p.first, p.second)) in generated.copied_pairs()]
    assert len(scores) == 3 and max(scores) < min(copies) / 2 and max(scores) < FLOOR


@pytest.mark.parametrize("exercise", EXERCISES)
def test_stub_alone_or_with_a_one_line_change_is_never_flagged(everything, results, exercise):
    starters = set(generated.STUB_ONLY + generated.TINY_CHANGE)
    assert starters <= set(results[exercise].little_code)
    assert not starters & set(results[exercise].compared)
    assert not any({p.first, p.second} & starters for p in everything[exercise].flagged)


def test_starter_code_has_no_fingerprint_of_its_own(course):
    starter = starter_fingerprints(course)
    for name, text in stub_sources(course).items():
        assert fingerprint("kim", name, text, tokenise(text), starter).distinct.size == 0, name


def test_code_the_lessons_show_never_counts(course, tmp_path):
    """Two students pasting the same lesson example share nothing; two pasting the same
    code of their own are flagged."""
    lesson = lesson_path(course, course.exercise("03")).read_text(encoding="utf-8")
    example = "\n\n".join(code for kind, code in split_cells(lesson) if kind == "code")
    stub = stub_sources(course)["walk.py"]
    own = generated.implementation(course, "walk.py", "iterative")
    students = {"p1": {"walk.py": stub + "\n" + example}, "p2": {"walk.py": stub + "\n\n" + example},
                "c1": {"walk.py": own}, "c2": {"walk.py": own}, "ind": {"walk.py": generated.implementation(
                    course, "walk.py", "collecting")}}
    [result] = compare_class(course, generated.write_class(course, tmp_path, students), [course.exercise("03")])
    assert flagged(result) == {frozenset(("c1", "c2"))}
    assert {"p1", "p2"} <= set(result.little_code)


def test_scores_say_whose_code_is_in_whose(course, tmp_path):
    """All of ada's code is in zed's, who also wrote more: 100% one way, far less the other."""
    ada = generated.implementation(course, "walk.py", "iterative")
    students = {"ada": {"walk.py": ada}, "zed": {"walk.py": ada + generated.STATE_COLLECTING_HELPERS}}
    [result] = compare_class(course, generated.write_class(course, tmp_path, students), [course.exercise("03")], 0.0)
    [pair] = result.flagged
    assert (pair.first, pair.second, pair.first_in_second) == ("ada", "zed", 1.0)
    assert 0.3 < pair.second_in_first < 0.9


def test_bad_files_are_lines_in_the_report(results):
    problems = results["03"].problems
    assert problems[:2] == ["oz: walk.py missing", "pia: walk.py is not UTF-8 text"]
    assert problems[2].startswith("quin: walk.py unreadable (") and len(problems) == 3
    assert results["06"].problems == ["oz: state.py missing", problems[2].replace("walk", "state")]


def test_threshold_is_a_robust_outlier_rule_with_a_floor_and_a_ceiling():
    honest = np.linspace(0.25, 0.45, 41)  # median 0.35; below it, deviations 0..0.10, MAD 0.05
    assert chosen_threshold(honest).value == pytest.approx(0.35 + 3.5 * 0.05 / 0.6745)
    with_copies = np.concatenate([honest, [0.8] * 6])  # 13% of the pairs: the rule still tells them apart
    assert honest.max() < chosen_threshold(with_copies).value < 0.8
    assert with_copies.mean() + 3 * with_copies.std() > 0.8  # where mean + 3 standard deviations would not
    assert chosen_threshold(np.full(30, 0.05)).value == FLOOR  # no spread: never below the floor
    assert chosen_threshold(np.linspace(0.5, 1.0, 30)).value == CEILING
    assert chosen_threshold(np.array([0.95, 0.1])).value == FLOOR  # too few pairs to choose from


def test_tokenising_in_processes_changes_nothing(course, klass, results):
    """Workers return tokens, not hashes (string hashes differ between processes)."""
    two = compare_class(course, klass, [course.exercise(e) for e in EXERCISES], jobs=2)
    assert [(r.flagged, r.compared) for r in two] == [(results[e].flagged, results[e].compared) for e in EXERCISES]


def test_nbgrader_layout_gives_the_same_pairs(course, klass, results, tmp_path):
    submitted = tmp_path / "course" / "submitted"
    for student in sorted(p.name for p in klass.iterdir()):
        for exercise in (course.exercise(e) for e in EXERCISES):
            for file in exercise.files:
                source = klass / student / course.package / file
                if source.is_file():
                    (submitted / student / exercise.name).mkdir(parents=True, exist_ok=True)
                    (submitted / student / exercise.name / file).write_bytes(source.read_bytes())
    again = compare_class(course, tmp_path / "course", [course.exercise(e) for e in EXERCISES])
    assert [r.flagged for r in again] == [results[e].flagged for e in EXERCISES]


# --- the command ------------------------------------------------------------------------------

def test_command_prints_the_pairs_and_writes_the_pages(klass, tmp_path, capsys):
    out = tmp_path / "pages"
    assert main([*COURSE, "similarity", str(klass), "-e", "03", "--out", str(out), "-j", "1"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("03 The recursive walk: 8 students compared")
    assert "threshold 50%: from the 28 pairs" in printed
    rows = [row for row in map(str.split, printed.splitlines()) if len(row) == 4 and row[3].endswith("%")]
    assert {frozenset(row[:2]) for row in rows} == generated.copied_pairs()
    assert "   oz: walk.py missing" in printed.splitlines()
    assert sorted(p.name for p in (out / "pairs").iterdir()) == [f"03-{rank}.html" for rank in range(1, 8)]


def test_a_given_threshold_applies_to_every_exercise(course, klass, tmp_path, capsys):
    assert main([*COURSE, "similarity", str(klass), "-e", "03", "-e", "06", "--threshold", "1",
                 "--out", str(tmp_path / "pages")]) == 0
    assert capsys.readouterr().out.count("threshold 100%: given: --threshold 1") == 2
    identical = {frozenset(pair) for pair in (("ada", "dan"), ("ada", "gus"), ("dan", "gus"))}  # renamed, commented
    assert [flagged(r) for r in compare_class(course, klass, [course.exercise(e) for e in EXERCISES], 1.0)] == \
        [identical, identical]


@pytest.mark.parametrize("args, error", [
    (["nowhere"], "nowhere: no such class folder"),
    ([str(ROOT / "solutions")], "holds one mynn/ package, not a class"),
    (["CLASS", "--threshold", "1.5"], "--threshold 1.5: expected a share from 0 to 1"),
    (["CLASS", "--out", "CLASS/pages"], "is among the student folders"),
])
def test_bad_input_is_one_line_and_exit_2(klass, capsys, args, error):
    args = [a.replace("CLASS", str(klass)) for a in args]
    assert main([*COURSE, "similarity", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and error in err[0]


def test_help_explains_exclusions_threshold_and_examples(capsys):
    with pytest.raises(SystemExit):
        main([*COURSE, "similarity", "--help"])
    text = capsys.readouterr().out
    for said in ("modlab similarity class/", "starter code never counts", "median + 3.5 x MAD", "DIR/pairs/"):
        assert said in text


# --- the pages --------------------------------------------------------------------------------

class StrictHTML(HTMLParser):
    """Every element closed in order, one doctype, unique ids, and each local link's target."""

    VOID = {"meta", "br", "img", "hr", "link", "input"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open, self.ids, self.links, self.problems, self.doctype = [], set(), [], [], False

    def handle_decl(self, decl):
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.problems += [f"id {attrs['id']} twice"] if attrs["id"] in self.ids else []
            self.ids.add(attrs["id"])
        if tag == "a":
            self.links.append(attrs["href"])
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if not self.open or self.open.pop() != tag:
            self.problems.append(f"</{tag}> at line {self.getpos()[0]} closes nothing open")


def check_page(page: Path) -> StrictHTML:
    parser = StrictHTML()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    assert parser.doctype and not parser.open and not parser.problems, (page, parser.open, parser.problems)
    for link in parser.links:
        target = link.split("#")[0]
        assert (page.parent / target).is_file(), f"{page}: link to {link} leads nowhere"
    return parser


def test_pages_are_valid_html_whatever_the_students_are_called(course, tmp_path):
    walk = generated.implementation(course, "walk.py", "iterative")
    students = {'a<b>&"c': {"walk.py": walk}, "d'e": {"walk.py": generated.rename_variables(walk)}}
    results = compare_class(course, generated.write_class(course, tmp_path / "class", students), [course.exercise("03")])
    index = write_pages(course, results, tmp_path / "pages")
    assert len(check_page(index).links) == 1
    page = tmp_path / "pages" / "pairs" / "03-1.html"
    check_page(page)
    assert "a&lt;b&gt;&amp;&quot;c" in page.read_text()


def test_a_pair_page_marks_the_shared_code_not_the_starter_code(course, klass, results, tmp_path):
    write_pages(course, list(results.values()), tmp_path)
    rank = [frozenset((p.first, p.second)) for p in results["03"].flagged].index(frozenset(("ada", "dan"))) + 1
    page = check_page_text(tmp_path / "pairs" / f"03-{rank}.html")
    ada = page.split("<h3>")[1]
    marked = " ".join(part.split("</mark>")[0] for part in ada.split("<mark>")[1:])
    assert "yield from module.named_modules(memo, _join(prefix, name), remove_duplicate)" in marked
    assert "Exercise 03: the recursive walk." not in marked and "Exercise 03: the recursive walk." in ada


def check_page_text(page: Path) -> str:
    check_page(page)
    return page.read_text(encoding="utf-8")


def test_report_section_links_every_flagged_pair(course, klass, tmp_path, capsys):
    store = ResultStore(tmp_path / "results")
    store.students.mkdir(parents=True)
    students = sorted(p.name for p in klass.iterdir())
    for student in students:
        tests = [records.TestResult("walks", PASSED, 15.0, 15.0, public=True)]
        store.save(Record(SubmissionResult(student, [ExerciseResult("03", 15.0, 15.0, tests)]), "key", "sha"))
    (store.folder / "batch.json").write_text(json.dumps({"students": students}))
    assert main([*COURSE, "report", str(store.folder), "--class", str(klass)]) == 0
    report = store.folder / "report" / "report.html"
    parser = check_page(report)
    section = report.read_text().split('<h2 id="similarity">Similar code</h2>', 1)[1]
    assert section.count("side by side") == len(generated.copied_pairs())
    assert [link for link in parser.links if "/pairs/" in link] == [f"similarity/pairs/03-{r}.html" for r in range(1, 8)]
    for page in (store.folder / "report" / "similarity").rglob("*.html"):
        check_page(page)


def test_report_without_the_class_has_no_similarity_section(course, klass, tmp_path):
    store = ResultStore(tmp_path / "results")
    store.students.mkdir(parents=True)
    store.save(Record(SubmissionResult("ada", [ExerciseResult("03", 15.0, 15.0, [
        records.TestResult("walks", PASSED, 15.0, 15.0, public=True)])]), "key", "sha"))
    (store.folder / "batch.json").write_text(json.dumps({"students": ["ada"]}))
    assert main([*COURSE, "report", str(store.folder)]) == 0
    assert "Similar code" not in (store.folder / "report" / "report.html").read_text()


@pytest.mark.skipif(browser() is None, reason="no chromium on this machine")
def test_a_headless_browser_shows_both_columns_marked(course, results, tmp_path):
    from matplotlib.image import imread

    write_pages(course, list(results.values()), tmp_path)
    shot = tmp_path / "shot.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={profile}", "--window-size=1400,2400", f"--screenshot={shot}",
                        (tmp_path / "pairs" / "03-1.html").as_uri()], check=True, capture_output=True, timeout=120)
    pixels = (imread(shot)[..., :3] * 255).round()
    marked = (abs(pixels - MARK_ORANGE) <= 8).all(axis=-1)
    left, right = marked[:, :700].sum(), marked[:, 700:].sum()
    assert left > 2000 and right > 2000, "the shared code is not marked in both columns"
