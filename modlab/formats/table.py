"""The score table printed by ``modlab grade`` and ``modlab check``."""
from __future__ import annotations

from modlab.course import Course
from modlab.runner.records import FAILED, SubmissionResult

from .feedback import INDENT, failure_block


def score_table(course: Course, result: SubmissionResult, feedback: bool = True) -> str:
    """One row per exercise, then the feedback of each failed test (see :mod:`.feedback`)."""
    titles = {e.id: e.title for e in course.exercises}
    width = max(len(titles[e.id]) for e in result.exercises)
    lines = [f"{'ex':<3} {'title':<{width}} {'score':>13}  passed failed skipped"]
    for exercise in result.exercises:
        score = f"{exercise.score:.2f} / {exercise.max_score:g}"
        lines.append(f"{exercise.id:<3} {titles[exercise.id]:<{width}} {score:>13}  "
                     f"{exercise.passed:>6} {exercise.failed:>6} {exercise.skipped:>7}")
    total = f"{result.score:.2f} / {result.max_score:g}"
    lines.append(f"{'':<3} {'total':<{width}} {total:>13}")
    if feedback:
        for exercise in result.exercises:
            if exercise.error:
                lines.append(f"\n{exercise.id}: {exercise.error}")
            failed = [t for t in exercise.tests if t.outcome == FAILED]
            if failed and not exercise.error:
                lines.append("")
            for test in failed if not exercise.error else []:
                block = failure_block(test)
                lines += [f"{exercise.id} {block[0]}"] + [INDENT + line for line in block[1:]]
    return "\n".join(lines)
