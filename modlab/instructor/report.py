"""The instructor report: how the class did, and where most of it went wrong.

``modlab report RESULTS`` writes one HTML page with PNG figures beside it:

- the distribution of total scores, and of each exercise's score;
- the pass rate of every grader test, so the tests most of the class failed
  stand out, each with the feedback most of its failures got (the
  misconception to address in class).

Figures are drawn with matplotlib (an optional dependency: ``pip install
modlab[instructor]``), imported only here.
"""
from __future__ import annotations

import html
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from modlab.course import Course
from modlab.formats.feedback import explanation_text
from modlab.records import FAILED, IMPORT, MISMATCH, MISSING, PASSED, SKIPPED, WHOLE_EXERCISE, SubmissionResult

HARDEST = 10  # tests listed in "where the class struggles"
WHOLE_EXERCISE_CAUSES = {MISSING: "a file of the exercise is missing", IMPORT: "the package does not import"}


@dataclass
class TestStats:
    """How the class did on one grader test."""

    exercise: str
    name: str
    public: bool
    outcomes: Counter = field(default_factory=Counter)
    feedback: Counter = field(default_factory=Counter)  # of failures, grouped by misconception

    @property
    def counted(self) -> int:
        return self.outcomes[PASSED] + self.outcomes[FAILED]

    @property
    def pass_rate(self) -> float | None:
        return self.outcomes[PASSED] / self.counted if self.counted else None

    def common_feedback(self) -> tuple[str, int]:
        return self.feedback.most_common(1)[0] if self.feedback else ("", 0)


@dataclass
class ExerciseStats:
    id: str
    title: str
    max_score: float
    scores: list[float] = field(default_factory=list)
    tests: dict[str, TestStats] = field(default_factory=dict)
    # misconception id -> (its text, the students whose failures showed it)
    misconceptions: dict[str, tuple[str, set[str]]] = field(default_factory=dict)

    def showing(self) -> list[tuple[str, str, int]]:
        """``(id, text, students)`` for each misconception shown, most students first."""
        rows = [(mid, text, len(students)) for mid, (text, students) in self.misconceptions.items()]
        return sorted(rows, key=lambda row: (-row[2], row[0]))


def class_statistics(course: Course, results: list[SubmissionResult]) -> list[ExerciseStats]:
    """Per exercise graded: every student's score, and every test's outcomes."""
    found: dict[str, ExerciseStats] = {}
    for result in results:
        for exercise in result.exercises:
            stats = found.setdefault(exercise.id, ExerciseStats(
                exercise.id, course.exercise(exercise.id).title, exercise.max_score))
            stats.scores.append(exercise.score)
            for test in exercise.tests:
                counts = stats.tests.setdefault(test.name, TestStats(exercise.id, test.name, test.public))
                counts.outcomes[test.outcome] += 1
                if test.outcome == FAILED:
                    counts.feedback[cause(test)] += 1
                    for shown in test.failure.misconceptions if test.failure else ():
                        stats.misconceptions.setdefault(shown["id"], (shown["text"], set()))[1].add(result.student)
    return [found[e.id] for e in course.exercises if e.id in found]


def cause(test) -> str:
    """What a failure says, without the details that differ from student to student.

    Read from the structured failure record: a missing file or a package
    that does not import is one cause, whatever the path or error; then the
    misconceptions the failure showed; then what its exception means; else
    where the observations part, or what the worker did (timeout, crash).
    """
    failure = test.failure
    if test.reason in WHOLE_EXERCISE:
        return WHOLE_EXERCISE_CAUSES[test.reason]
    if failure is None:
        return test.reason or "failed"
    if failure.misconceptions:
        return "; ".join(m["text"] for m in failure.misconceptions)
    if failure.explanation:
        return explanation_text(failure.explanation)
    if failure.raised:
        return f"raises {failure.raised['type']}"
    if failure.reason == MISMATCH:
        return f"differs from torch at {failure.where}" if failure.where else "differs from torch"
    return failure.message


def write_report(course: Course, results: list[SubmissionResult], out: Path,
                 failures: dict[str, str] | None = None, sections: tuple[str, ...] = ()) -> Path:
    """Write ``out/report.html`` and its figures; return the page's path.

    ``sections`` are HTML fragments other modules add at the end (similar code:
    :func:`modlab.instructor.similarity.report_section`)."""
    out.mkdir(parents=True, exist_ok=True)
    exercises = class_statistics(course, results)
    _overview_figure(exercises, [r.score for r in results], results[0].max_score, out / "overview.png")
    for stats in exercises:
        _exercise_figure(stats, out / f"exercise_{stats.id}.png")
    page = out / "report.html"
    page.write_text(report_html(course, results, exercises, failures or {}, sections), encoding="utf-8")
    return page


# --- the page -------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { margin-bottom: 0.2rem; } .lead { color: #555; margin-top: 0; }
img { max-width: 100%; border: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; margin: 0.8rem 0 2rem; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
.low { background: #fde2e1; } .mid { background: #fff4d6; }
code { font-size: 0.85rem; } .failed { color: #b00020; font-weight: bold; }
"""


def report_html(course: Course, results: list[SubmissionResult], exercises: list[ExerciseStats],
                failures: dict[str, str], sections: tuple[str, ...] = ()) -> str:
    totals = [r.score for r in results]
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(course.title)}: class report</title><style>{STYLE}</style></head><body>",
        f"<h1>{_e(course.title)}</h1>",
        f'<p class="lead">{len(results)} students, {len(exercises)} exercises graded. Total score: mean '
        f"{statistics.fmean(totals):.2f}, median {statistics.median(totals):.2f} of {results[0].max_score:g}.</p>",
        '<img src="overview.png" alt="distribution of total scores, and mean score per exercise">',
    ]
    if failures:
        parts.append(f'<h2 class="failed">Grading failed for {len(failures)} students</h2><ul>')
        parts += [f"<li>{_e(student)}: {_e(why)}</li>" for student, why in sorted(failures.items())]
        parts.append("</ul><p>Their scores are not earned zeros: grade them again.</p>")
    parts.append("<h2>Where the class struggles</h2><p>The tests with the lowest pass rates, "
                 "and the feedback most of their failures got.</p>")
    every = [t for stats in exercises for t in stats.tests.values() if t.pass_rate is not None]
    parts.append(_tests_table(sorted(every, key=lambda t: (t.pass_rate, t.exercise))[:HARDEST], with_exercise=True))
    for stats in exercises:
        parts.append(f'<h2 id="ex{stats.id}">{stats.id} {_e(stats.title)}</h2>')
        parts.append(f'<img src="exercise_{stats.id}.png" alt="exercise {stats.id}: score distribution '
                     f'and the pass rate of each test">')
        parts.append(_tests_table(list(stats.tests.values()), with_exercise=False))
        parts.append(_misconceptions_table(stats, len(results)))
    parts += sections
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _tests_table(tests: list[TestStats], with_exercise: bool) -> str:
    head = "<th>ex</th>" if with_exercise else ""
    rows = [f'<table><tr>{head}<th>test</th><th class="num">passed</th><th class="num">failed</th>'
            f'<th class="num">skipped</th><th class="num">pass rate</th><th>most common feedback</th></tr>']
    for test in tests:
        rate = test.pass_rate
        shade = "" if rate is None or rate >= 0.8 else (' class="low"' if rate < 0.5 else ' class="mid"')
        text, times = test.common_feedback()
        common = f"{_e(text)} <em>({times} of {test.outcomes[FAILED]})</em>" if times else ""
        rows.append(
            f"<tr{shade}>" + (f"<td>{test.exercise}</td>" if with_exercise else "")
            + f"<td><code>{_e(test.name)}</code>{'' if test.public else ' (hidden)'}</td>"
            + f'<td class="num">{test.outcomes[PASSED]}</td><td class="num">{test.outcomes[FAILED]}</td>'
            + f'<td class="num">{test.outcomes[SKIPPED]}</td>'
            + f'<td class="num">{"&ndash;" if rate is None else f"{100 * rate:.0f}%"}</td><td>{common}</td></tr>')
    rows.append("</table>")
    return "\n".join(rows)


def _misconceptions_table(stats: ExerciseStats, students: int) -> str:
    """How many students showed each misconception in this exercise (from the failures' records)."""
    rows = stats.showing()
    if not rows:
        return "<p>No misconception was shown in this exercise.</p>"
    lines = ['<table class="misconceptions"><tr><th>misconception</th><th class="num">students</th>'
             "<th>what they read</th></tr>"]
    lines += [f'<tr><td><code>{_e(mid)}</code></td><td class="num">{count} of {students}</td><td>{_e(text)}</td></tr>'
              for mid, text, count in rows]
    lines.append("</table>")
    return "\n".join(lines)


def _e(text: str) -> str:
    return html.escape(text, quote=True)


# --- the figures ------------------------------------------------------------------------------

def _overview_figure(exercises: list[ExerciseStats], totals: list[float], most: float, path: Path) -> None:
    figure, (left, right) = _figure(1, 2, (11, 3.6))
    _histogram(left, totals, most, "total score")
    means = [100 * sum(s.scores) / len(s.scores) / s.max_score for s in exercises]
    right.bar([s.id for s in exercises], means, color=[_rate_colour(m / 100) for m in means])
    right.set_ylim(0, 100)
    right.set_ylabel("mean score (% of the exercise's points)")
    right.set_xlabel("exercise")
    right.set_title("mean score per exercise")
    _save(figure, path)


def _exercise_figure(stats: ExerciseStats, path: Path) -> None:
    tests = [t for t in stats.tests.values() if t.pass_rate is not None]
    figure, (left, right) = _figure(1, 2, (11, max(3.0, 0.6 + 0.24 * len(tests))), width_ratios=(1, 1.6))
    _histogram(left, stats.scores, stats.max_score, f"score in exercise {stats.id}")
    rates = [100 * t.pass_rate for t in tests]
    rows = range(len(tests))
    right.barh(rows, rates, color=[_rate_colour(r / 100) for r in rates])
    right.set_yticks(rows, [t.name for t in tests], fontsize=7)
    right.invert_yaxis()  # tests in grader order, top to bottom
    right.set_xlim(0, 100)
    right.set_xlabel("students passing (%)")
    right.set_title("pass rate of each test")
    _save(figure, path)


def _figure(rows: int, columns: int, size: tuple[float, float], width_ratios=None):
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

    figure = Figure(figsize=size, layout="constrained")
    axes = figure.subplots(rows, columns, gridspec_kw={"width_ratios": width_ratios} if width_ratios else None)
    return figure, axes


def _histogram(axes, scores: list[float], most: float, label: str) -> None:
    from matplotlib.ticker import MaxNLocator

    axes.hist(scores, bins=10, range=(0, most), color="#4c72b0", edgecolor="white")
    axes.set_xlim(0, most)
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # students come whole
    axes.set_xlabel(label)
    axes.set_ylabel("students")
    axes.set_title(f"{label}: distribution")


def _rate_colour(rate: float) -> tuple[float, float, float]:
    """Red for what few pass, amber in between, green for what most pass."""
    from matplotlib import colormaps

    return colormaps["RdYlGn"](0.1 + 0.8 * rate)[:3]


def _save(figure, path: Path) -> None:
    figure.savefig(path, dpi=100)
