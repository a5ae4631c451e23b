"""``--summary FILE``: the score table as Markdown, for a CI job summary."""
from __future__ import annotations

from modlab.course import Course
from modlab.records import FAILED, SubmissionResult

from .feedback import feedback_line


def markdown_summary(course: Course, results: list[SubmissionResult]) -> str:
    titles = {e.id: e.title for e in course.exercises}
    lines = []
    for result in results:
        lines += [f"### {result.student}: {result.score:.2f} / {result.max_score:g}", "",
                  "| exercise | score | passed | failed | skipped |", "| --- | ---: | ---: | ---: | ---: |"]
        for exercise in result.exercises:
            lines.append(f"| {exercise.id} {titles[exercise.id]} | {exercise.score:.2f} / {exercise.max_score:g} "
                         f"| {exercise.passed} | {exercise.failed} | {exercise.skipped} |")
        failed = [(e.id, t) for e in result.exercises for t in e.tests if t.outcome == FAILED]
        if failed:
            lines += ["", "<details><summary>failed tests</summary>", ""]
            lines += [f"- `{eid} {test.name}`: {feedback_line(test).replace('|', '/')}" for eid, test in failed]
            lines += ["", "</details>"]
        lines.append("")
    return "\n".join(lines)
