"""What README.md claims holds: its commands exist with the options it shows,
the files it names are in the repository, the outputs it names are where the
commands write them, and each figure it quotes comes from a bench/ script whose
dated results (bench/README.md) hold the same figure."""
import re
import shlex

import pytest

from modlab.batch.store import Record, ResultStore
from modlab.cli import build_parser, main
from modlab.records import FAILED, PASSED, ExerciseResult, SubmissionResult, TestResult as Test

from conftest import ROOT

README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(?:sh|bash)\n(.*?)```", README, re.S)
TOP = {path.name for path in ROOT.iterdir()}
# Named by README but not this repository's files, each for its reason.
NOT_HERE = {
    ".github/workflows/check.yml": "the kit's workflow, in each student's repository (modlab release writes it)",
    "build/kit": "where `modlab release build/kit` writes the kit",
    "modlab/grade": "the commit status's context, not a path",
    "exercises/NN_slug.ipynb": "a pattern", "lessons/NN_slug.md": "a pattern",
}


def shown_commands() -> list[list[str]]:
    """Every ``modlab ...`` command of README's shell blocks, as words, comments and ``cd X &&`` dropped."""
    commands = []
    for block in BLOCKS:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            for part in line.split("&&"):
                words = shlex.split(part.strip())
                if words and words[0] in ("modlab", ".venv/bin/modlab"):
                    commands.append(words[1:])
    return commands


def test_readme_shows_the_commands_students_and_instructors_use():
    used = {words[0] for words in shown_commands() if words}
    assert {"grade", "merge", "report", "similarity", "doctor", "release", "check", "status", "submit"} <= used, used


@pytest.mark.parametrize("words", shown_commands(), ids=" ".join)
def test_every_command_readme_shows_exists_with_those_options(words):
    args = build_parser().parse_args(words)  # exits, failing the test, on an unknown command or option
    assert hasattr(args, "run")


def test_every_repository_path_readme_names_exists():
    named = set(re.findall(r"`([\w.-]+/[\w./<>-]*)`", README))
    for block in BLOCKS:
        named |= {w for w in re.findall(r"[\w.-]+/[\w./-]+", block)}
    checked = [p for p in named if p.split("/")[0] in TOP and "<" not in p and "*" not in p]
    assert len(checked) > 10
    missing = sorted(p for p in checked if not (ROOT / p.rstrip("/")).exists() and p not in NOT_HERE)
    assert missing == []


def test_doctor_on_the_capstones_plain_list_gives_the_figures_readme_quotes(monkeypatch, capsys):
    assert "cd solutions && modlab doctor mynn.capstone:PlainListClassifier" in README
    monkeypatch.chdir(ROOT / "solutions")
    assert main(["doctor", "mynn.capstone:PlainListClassifier"]) == 1
    out = capsys.readouterr().out
    quoted = re.search(r"gives `(195 registered \(what parameters\(\) hands an optimizer\), 9219 in the layers)`", README)
    assert quoted and quoted.group(1) in out
    assert out.count("module in a plain list") == 3


def test_the_report_is_written_where_readme_says(course, tmp_path):
    comment = re.search(r"modlab report results +# (results/\S+)", README).group(1)
    store = ResultStore(tmp_path / "results")
    store.begin({"course": course.id, "grading_key": "k", "exercises": ["03"], "shard": [1, 1],
                 "students": ["ada", "bob"]})
    for student, outcome in (("ada", PASSED), ("bob", FAILED)):
        score = 15.0 if outcome == PASSED else 0.0
        result = SubmissionResult(student, [ExerciseResult("03", score, 15.0, [Test("t", outcome, score, 15.0)])])
        store.save(Record(result, "k", "sha", ""))
    assert main(["--course", str(ROOT / "course.yaml"), "report", str(store.folder)]) == 0
    assert (tmp_path / comment).is_file()


def test_each_figure_readme_quotes_from_a_bench_script_is_in_its_dated_results():
    bench = (ROOT / "bench" / "README.md").read_text()
    cited = re.findall(r"`(bench/\w+\.py)`, measured (\d{4}-\d{2}-\d{2})", README)
    assert len(cited) >= 2
    assert all((ROOT / script).is_file() for script, _ in cited)
    for figure in ("104 s", "182 s", "44.0 s per student", "92 s start-up", "0.76 s", "51.1×", "89.7×", "25.2×",
                   "44.3×"):
        assert figure in bench, figure
    for figure in ("104 to 182 s", "44.0 s per student", "92 s of start-up", "0.76 s", "51 to 90 times",
                   "25 to 44 times"):
        assert figure in README, figure


def test_every_file_a_readme_command_takes_is_in_the_repository_or_a_placeholder():
    """``modlab doctor models/ripeness.py:Net`` would name a folder this repository lacks."""
    files = [word.split(":")[0] for words in shown_commands() for word in words[1:]
             if re.fullmatch(r"[\w./-]+\.(py|yaml|yml)(:\w+)?", word)]
    assert files
    assert [f for f in files if not f.startswith("path/to/") and not (ROOT / f).exists()
            and not (ROOT / "solutions" / f).exists()] == []
