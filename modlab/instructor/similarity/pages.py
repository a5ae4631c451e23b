"""The similarity pages: an index of the flagged pairs per exercise, and each pair's
code side by side with what they share highlighted; and the section of the
instructor report that links to them.

Highlighting uses copydetect's own ``compare_files`` (the shared code's
spans, mapped back from the tokenised text to the file) and
``highlight_overlap`` (the HTML-escaped file with those spans marked). A
shared span runs over whatever its tokens stand for, a whole docstring for its
one ``S``, so lines that are lines of the starter code are left unmarked.
"""
from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from copydetect.detector import compare_files
from copydetect.utils import highlight_overlap

from modlab.course import Course

from .compare import MIN_OWN_FINGERPRINTS, ExerciseSimilarity, Pair
from .documents import starter_sources
from .threshold import percent

INDEX, PAIRS = "index.html", "pairs"

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 90rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 0.6rem 0 1.2rem; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 0.3rem 0.6rem; text-align: left; }
td.num, th.num { text-align: right; }
.note { color: #555; } .problems { color: #b00020; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
pre { overflow-x: auto; font-size: 0.8rem; background: #fafafa; border: 1px solid #ddd; padding: 0.5rem; }
mark { background: #ffb74d; }
"""

EXPLANATION = f"""<p class="note">For each exercise, every pair of students is compared on the files the
exercise asks for. Code is tokenised as copydetect does (names become one letter, strings another,
comments and layout are dropped), so renaming variables, reformatting, reordering functions or adding
comments does not hide a copy. The starter code (the released stubs, and every code block the lessons
show) is taken out first: it never counts as shared. A score is the part of one student's own
fingerprints (every 25 characters of their tokenised code) found in the other's; a pair is flagged when
either way reaches the threshold, which is chosen for each exercise from its own pairs unless given.
Students with fewer than {MIN_OWN_FINGERPRINTS} fingerprints of their own (about five lines: the stub,
or nearly) are not compared. A flag is a reason to look, not proof: read the code side by side.</p>"""


def write_pages(course: Course, results: list[ExerciseSimilarity], out: Path) -> Path:
    """Write ``out/index.html`` and a page per flagged pair in ``out/pairs/``; return the index.

    Pages of an earlier run in ``out/pairs/`` are removed, so every page there is current.
    """
    pairs = out / PAIRS
    pairs.mkdir(parents=True, exist_ok=True)
    for stale in pairs.glob("*.html"):
        stale.unlink()
    starter = {line.strip() for source in starter_sources(course) for line in source.split("\n")}
    for result in results:
        for rank, pair in enumerate(result.flagged, 1):
            (pairs / page_name(result, rank)).write_text(pair_html(result, pair, starter), encoding="utf-8")
    index = out / INDEX
    index.write_text(index_html(course, results), encoding="utf-8")
    return index


def page_name(result: ExerciseSimilarity, rank: int) -> str:
    """Pages are named by exercise and rank: student names may hold any character."""
    return f"{result.exercise.id}-{rank}.html"


def index_html(course: Course, results: list[ExerciseSimilarity]) -> str:
    parts = [_head(f"{course.title}: similar code"), f"<h1>Similar code: {_e(course.title)}</h1>", EXPLANATION]
    for result in results:
        parts.append(f'<h2 id="ex{result.exercise.id}">{result.exercise.id} {_e(result.exercise.title)}</h2>')
        parts.append(f'<p>{_e(summary(result))}. Threshold {percent(result.threshold.value)}: '
                     f'{_e(result.threshold.rule)}.</p>')
        parts.append(pairs_table(result, f"{PAIRS}/"))
        parts += _problems(result)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def summary(result: ExerciseSimilarity) -> str:
    """``8 students compared, median pair 28%; 4 with little or no code of their own: kim, lee, ...``"""
    text = f"{len(result.compared)} students compared"
    if result.median is not None:
        text += f", median pair {percent(result.median)}"
    if result.little_code:
        text += f"; {len(result.little_code)} with little or no code of their own: {_names(result.little_code)}"
    return text


def _names(students: list[str], most: int = 12) -> str:
    shown = ", ".join(students[:most])
    return shown + (f" and {len(students) - most} more" if len(students) > most else "")


def pairs_table(result: ExerciseSimilarity, link_prefix: str) -> str:
    """The flagged pairs of one exercise, each linking to its side-by-side page."""
    if not result.flagged:
        return "<p>No pair at or above the threshold.</p>"
    rows = ['<table><tr><th>A and B</th><th class="num">A in B</th><th class="num">B in A</th><th></th></tr>']
    for rank, pair in enumerate(result.flagged, 1):
        rows.append(f"<tr><td>{_e(pair.first)} and {_e(pair.second)}</td>"
                    f'<td class="num">{percent(pair.first_in_second)}</td>'
                    f'<td class="num">{percent(pair.second_in_first)}</td>'
                    f'<td><a href="{_e(link_prefix + page_name(result, rank))}">side by side</a></td></tr>')
    rows.append("</table>")
    return "\n".join(rows)


def _problems(result: ExerciseSimilarity) -> list[str]:
    if not result.problems:
        return []
    return [f'<p class="problems">{len(result.problems)} files could not be read:</p><ul class="problems">',
            *(f"<li>{_e(problem)}</li>" for problem in result.problems), "</ul>"]


def pair_html(result: ExerciseSimilarity, pair: Pair, starter: set[str]) -> str:
    """Both students' files of the exercise side by side, the code they share marked
    (but no line of the ``starter`` code, given as stripped lines)."""
    exercise = result.exercise
    parts = [_head(f"{exercise.id}: {pair.first} and {pair.second}"),
             f'<p><a href="../{INDEX}#ex{exercise.id}">all pairs</a></p>',
             f"<h1>{exercise.id} {_e(exercise.title)}: {_e(pair.first)} and {_e(pair.second)}</h1>",
             f"<p>{percent(pair.first_in_second)} of {_e(pair.first)}'s own code is found in "
             f"{_e(pair.second)}'s, and {percent(pair.second_in_first)} of {_e(pair.second)}'s in "
             f"{_e(pair.first)}'s (threshold {percent(result.threshold.value)}). Marked: the code they share; "
             f"lines of the starter code are never marked.</p>"]
    for file in exercise.files:
        first, second = result.documents.get((pair.first, file)), result.documents.get((pair.second, file))
        marked = _marked(first, second, starter)
        parts.append(f"<h2>{_e(file)}</h2>")
        parts.append('<div class="side">')
        for student, code in ((pair.first, marked[0]), (pair.second, marked[1])):
            parts.append(f"<div><h3>{_e(student)}</h3><pre><code>{code}</code></pre></div>")
        parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _marked(first, second, starter: set[str]) -> tuple[str, str]:
    """Both files as HTML with the shared code in ``<mark>``; a file not read shows as such."""
    if first is None or second is None:
        return tuple("(not read)" if d is None else _e(d.text) for d in (first, second))
    _, _, slices = compare_files(first.as_copydetect(), second.as_copydetect())
    return tuple(_highlighted(d.text, _without_lines(d.text, s, starter)) for d, s in zip((first, second), slices))


def _without_lines(text: str, slices: np.ndarray, lines: set[str]) -> np.ndarray:
    """``slices`` (starts, ends) less every line of ``text`` that, stripped, is one of ``lines``."""
    marked = np.zeros(len(text), dtype=bool)
    for start, end in zip(*slices.astype(int)) if slices.size else ():
        marked[start:end] = True
    position = 0
    for line in text.split("\n"):
        if line.strip() in lines:
            marked[position:position + len(line) + 1] = False
        position += len(line) + 1
    edges = np.flatnonzero(np.diff(np.concatenate([[0], marked.astype(np.int8), [0]])))
    return edges.reshape(-1, 2).T


def _highlighted(text: str, slices: np.ndarray) -> str:
    if slices.size == 0:  # highlight_overlap would return the text unescaped
        return _e(text)
    return highlight_overlap(text, slices, "<mark>", "</mark>", escape_html=True)[0]


def report_section(results: list[ExerciseSimilarity], pages: str) -> str:
    """The "Similar code" section of the instructor report, linking to the pages in folder ``pages``
    (relative to the report)."""
    parts = ['<h2 id="similarity">Similar code</h2>',
             f'<p>Pairs of students whose own code is alike, starter code excluded; the '
             f'<a href="{_e(pages)}/{INDEX}">similarity pages</a> say how they are found and what could not '
             f'be read.</p>']
    quiet = [r.exercise.id for r in results if not r.flagged]
    for result in (r for r in results if r.flagged):
        parts.append(f"<h3>{result.exercise.id} {_e(result.exercise.title)}</h3>")
        parts.append(f"<p>{_e(summary(result))}; threshold {percent(result.threshold.value)}.</p>")
        parts.append(pairs_table(result, f"{pages}/{PAIRS}/"))
    if quiet:
        parts.append(f"<p>No pair flagged in exercise {', '.join(quiet)}.</p>")
    return "\n".join(parts)


def _head(title: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f"<style>{STYLE}</style></head><body>")


def _e(text: str) -> str:
    return html.escape(text, quote=True)
