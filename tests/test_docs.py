"""What the docs claim holds: README.md and every page of docs/.

Every ``modlab`` command a page shows parses with the options it shows, and every
command of ``modlab`` is shown somewhere; every repository path a page names
exists; every link between pages (and to files, and to a heading) resolves;
README routes to every page and stays short; the outputs and counts a page
quotes are what the commands give; and no page but bench/README.md quotes a
measured figure, so that figures live, dated, in one place.
"""
import re
import shlex
from pathlib import Path

import pytest

from modlab.batch.store import Record, ResultStore
from modlab.cli import build_parser, main
from modlab.commands.program import subcommands
from modlab.records import FAILED, PASSED, ExerciseResult, SubmissionResult, TestResult as Test

from conftest import ROOT

README = ROOT / "README.md"
BENCH = ROOT / "bench" / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
README_MOST_LINES = 150
TOP = {path.name for path in ROOT.iterdir()}
# Named by a page but not this repository's files, each for its reason.
NOT_HERE = {
    ".github/workflows/check.yml": "the kit's workflow, in each student's repository (modlab release writes it)",
    "build/kit": "where `modlab release build/kit` writes the kit",
    "modlab/grade": "the commit status's context, not a path",
    "roster.yaml": "the instructor's roster, in the course's own repository (docs/ci.md)",
}
# Not a path but a pattern of paths: a placeholder (NN_slug, FILE), or AUTHORING.md's exercise, which no course has.
PATTERN = re.compile(r"NN|\bFILE\b|10_losses|losses\.py")
# A measured figure: a number with a unit of time, size, share or speed ("0.41 s", "961 MiB", "97.6 %", "51.1×").
FIGURE = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?\s?(?:ms|s|seconds?|min|minutes?|h|hours?|[KMGT]i?B|bytes|%|×|times)"
                    r"(?![\w-])")
# A page may state a setting's value, never a measurement: each figure allowed, with the code that sets it.
SETTINGS = {
    "10 s": ("course.yaml", "scenario_timeout_s: 10"),
    "300 s": ("course.yaml", "submission_timeout_s: 300"),
    "2 GiB": ("course.yaml", "memory_mib: 2048"),
    "0.25 s": ("modlab/isolation/sleep.py", "ASLEEP_AFTER_S = 0.25"),
    "60 s": ("modlab/commands/nbgrader.py", "default=60"),
    "10 minutes": ("modlab/commands/serving.py", "IDLE_S = 600.0"),
    "100 times": ("scripts/points.py", "TOTAL = 100"),
    "1 MiB": ("modlab/instructor/ci/fetch.py", "MAX_FILE_BYTES = 1 << 20"),
    "50 GB": ("tests/adversarial/allocates_50gb.py", "50 * 2**30"),
    "3.5 ×": ("modlab/instructor/similarity/threshold.py", "MODIFIED_Z = 3.5"),
    "50 %": ("modlab/instructor/similarity/threshold.py", "FLOOR, CEILING = 0.5, 0.9"),
    "90 %": ("modlab/instructor/similarity/threshold.py", "FLOOR, CEILING = 0.5, 0.9"),
    "64 MiB": ("tests/test_sandbox_limits.py", "set_limits(64, "),
    "96 MiB": ("tests/test_sandbox_limits.py", "allocate(96)"),
    "48 MiB": ("tests/test_sandbox_limits.py", "allocate(48)"),
    "8 MiB": ("tests/test_sandbox_limits.py", "set_limits(8, "),
    "9 MiB": ("tests/test_sandbox_limits.py", "range(9)"),
}


def text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def shown(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def shell_blocks(page: Path) -> list[str]:
    return re.findall(r"```(?:sh|bash)\n(.*?)```", text(page), re.S)


def outside_code(page: Path) -> str:
    """The page without its fenced blocks (where a ``# comment`` is no heading)."""
    return re.sub(r"^ *```.*?^ *```", "", text(page), flags=re.S | re.M)


def modlab_words(lines: list[str]) -> list[list[str]]:
    """The words after ``modlab`` of each command in these lines (``cd X &&`` dropped)."""
    commands = []
    for line in lines:
        for part in line.split("&&"):
            words = shlex.split(part.strip())
            if words and words[0] in ("modlab", ".venv/bin/modlab"):
                commands.append(words[1:])
    return commands


def shown_commands(page: Path) -> list[list[str]]:
    """Every ``modlab ...`` command line of the page's shell blocks, as words, comments dropped."""
    return modlab_words([line.split(" #", 1)[0] for block in shell_blocks(page)
                         for line in block.replace("\\\n", " ").splitlines()])


def mentioned_commands(page: Path) -> list[list[str]]:
    """Every command the page's prose names in code (`` `modlab grade --json` ``): a command
    and some of its options, not a whole command line."""
    return modlab_words(re.findall(r"`((?:\.venv/bin/)?modlab [^`]+)`", outside_code(page).replace("\n", " ")))


def every_command(parser, path=()) -> list[tuple[str, ...]]:
    """Each command and subcommand of ``parser``, as its words: ``("nbgrader", "init")``."""
    found = []
    for sub in subcommands(parser):
        words = (*path, sub.prog.split()[-1])
        found += [words, *every_command(sub, words)]
    return found


def command_parser(words: list[str]):
    """The parser of the (sub)command ``words`` start with, and the words after it."""
    parser = build_parser()
    while words:
        named = {sub.prog.split()[-1]: sub for sub in subcommands(parser)}
        if words[0] not in named:
            break
        parser, words = named[words[0]], words[1:]
    return parser, words


COMMANDS = [(shown(page), words) for page in PAGES for words in shown_commands(page)]
MENTIONS = [(shown(page), words) for page in PAGES for words in mentioned_commands(page)]


@pytest.mark.parametrize("page, words", COMMANDS, ids=[f"{page}: {' '.join(words)}" for page, words in COMMANDS])
def test_every_command_a_page_shows_exists_with_those_options(page, words):
    args = build_parser().parse_args(words)  # exits, failing the test, on an unknown command or option
    assert hasattr(args, "run")


@pytest.mark.parametrize("page, words", MENTIONS, ids=[f"{page}: {' '.join(words)}" for page, words in MENTIONS])
def test_every_command_a_page_names_exists_with_those_options(page, words):
    parser, rest = command_parser(words)
    assert parser.prog != "modlab", words
    usage = parser.format_help()
    assert [w for w in rest if w.startswith("-") and not re.search(rf"(?<![\w-]){re.escape(w)}\b", usage)] == []


def test_every_command_of_modlab_is_shown_on_some_page():
    used = {tuple(words[:n]) for _, words in COMMANDS for n in range(1, len(words) + 1)}
    assert [" ".join(c) for c in every_command(build_parser()) if c not in used] == []


def named_paths(page: Path) -> set[str]:
    named = set(re.findall(r"`([\w.-]+/[\w./<>-]*)`", text(page)))
    for block in shell_blocks(page):
        named |= set(re.findall(r"[\w.-]+/[\w./-]+", block))
    return {p for p in named if p.split("/")[0] in TOP and "<" not in p and "*" not in p}


@pytest.mark.parametrize("page", PAGES, ids=shown)
def test_every_repository_path_a_page_names_exists(page):
    missing = sorted(p for p in named_paths(page) if not (ROOT / p.rstrip("/")).exists() and p not in NOT_HERE
                     and not PATTERN.search(p))
    assert missing == []


def test_the_path_check_reaches_the_paths_of_the_pages():
    assert len(set().union(*map(named_paths, PAGES))) > 50


def test_every_file_a_shown_command_takes_is_in_the_repository_or_a_placeholder():
    """``modlab doctor models/ripeness.py:Net`` would name a folder this repository lacks."""
    files = [word.split(":")[0] for _, words in COMMANDS for word in words[1:]
             if re.fullmatch(r"[\w./-]+\.(py|yaml|yml)(:\w+)?", word)]
    assert files
    assert [f for f in files if not f.startswith("path/to/") and f not in NOT_HERE and not (ROOT / f).exists()
            and not (ROOT / "solutions" / f).exists()] == []


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them."""
    headings = re.findall(r"^#+ (.+)$", outside_code(page), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def links(page: Path) -> list[str]:
    return [target for target in re.findall(r"\]\(([^)\s]+)\)", outside_code(page))
            if not target.startswith(("http://", "https://", "mailto:"))]


@pytest.mark.parametrize("page", [*PAGES, BENCH], ids=shown)
def test_every_link_of_a_page_resolves_to_a_file_and_heading(page):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(target)
    assert broken == []


def test_the_link_check_finds_a_broken_link_and_a_missing_heading(tmp_path):
    (tmp_path / "a.md").write_text("# A page\n\n```sh\n# not a heading\n```\n")
    page = tmp_path / "b.md"
    page.write_text("[fine](a.md#a-page) [gone](c.md) [no heading](a.md#not-a-heading)\n")
    assert anchors(tmp_path / "a.md") == {"a-page"} and links(page) == ["a.md#a-page", "c.md", "a.md#not-a-heading"]


def test_readme_is_short_and_routes_to_every_page():
    assert len(text(README).splitlines()) <= README_MOST_LINES
    routed = {(ROOT / target.partition("#")[0]).resolve() for target in links(README)}
    assert [shown(page) for page in PAGES[1:] if page.resolve() not in routed] == []


def test_readmes_set_up_commands_are_make_targets_and_ci_runs_its_test_command():
    commands = re.findall(r"^make (\w+)", shell_blocks(README)[0], re.M)
    assert commands == ["demo", "test"]
    makefile = text(ROOT / "Makefile")
    assert all(re.search(rf"^{target}:", makefile, re.M) for target in commands)
    assert re.search(r"^make test$", text(ROOT / ".ci" / "run"), re.M)
    assert re.search(r"^ +run: make test$", text(ROOT / ".github" / "workflows" / "test.yml"), re.M)


def figures(page: Path) -> list[str]:
    return [" ".join(m.group().split()) for m in FIGURE.finditer(text(page))]


@pytest.mark.parametrize("page", PAGES, ids=shown)
def test_no_page_but_benchs_quotes_a_measured_figure(page):
    assert [figure for figure in figures(page) if figure not in SETTINGS] == []


def test_the_figure_check_finds_measured_figures(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("in 104 to 182 s, 0.18–0.41 s a check, 961 MiB, 51.1× nbgrader, 25 to 44 times, 97.6 %, "
                    "a 10_losses file, 3 shards, 2026-12-02\n")
    assert figures(page) == ["182 s", "0.41 s", "961 MiB", "51.1×", "44 times", "97.6 %"]
    assert {"104 s", "961 MiB"} <= set(figures(BENCH))


@pytest.mark.parametrize("figure", SETTINGS)
def test_each_setting_a_page_states_is_set_so_in_the_code_and_stated(figure):
    file, setting = SETTINGS[figure]
    assert setting in text(ROOT / file)
    assert any(figure in figures(page) for page in PAGES)


def test_doctor_on_the_capstones_plain_list_gives_the_counts_its_page_quotes(monkeypatch, capsys):
    page = text(ROOT / "docs" / "doctor.md")
    assert "cd solutions && modlab doctor mynn.capstone:PlainListClassifier" in page
    monkeypatch.chdir(ROOT / "solutions")
    assert main(["doctor", "mynn.capstone:PlainListClassifier"]) == 1
    out = capsys.readouterr().out
    quoted = re.search(r"gives `(195 registered \(what parameters\(\) hands an optimizer\), 9219 in the layers)`", page)
    assert quoted and quoted.group(1) in out
    assert out.count("module in a plain list") == 3


def test_the_report_is_written_where_its_page_says(course, tmp_path):
    comment = re.search(r"modlab report results +# (results/\S+)", text(ROOT / "docs" / "class.md")).group(1)
    store = ResultStore(tmp_path / "results")
    store.begin({"course": course.id, "grading_key": "k", "exercises": ["03"], "shard": [1, 1],
                 "students": ["ada", "bob"]})
    for student, outcome in (("ada", PASSED), ("bob", FAILED)):
        score = 15.0 if outcome == PASSED else 0.0
        result = SubmissionResult(student, [ExerciseResult("03", score, 15.0, [Test("t", outcome, score, 15.0)])])
        store.save(Record(result, "k", "sha", ""))
    assert main(["--course", str(ROOT / "course.yaml"), "report", str(store.folder)]) == 0
    assert (tmp_path / comment).is_file()
