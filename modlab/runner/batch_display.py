"""What a batch shows while it runs and when it ends: a progress bar and a summary."""
from __future__ import annotations

import statistics
import sys
import time

from modlab.course import Course

from .batch import Record

BAR_WIDTH = 24


class Progress:
    """A progress bar with an ETA on stderr.

    On a terminal it is one line redrawn in place; elsewhere (a CI log) it
    prints a plain line at every tenth of the way, so logs stay short.
    """

    def __init__(self, total: int, stream=None, clock=time.monotonic):
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.clock, self.started = clock, clock()
        self.tty = self.stream.isatty()
        self.shown_tenths = 0

    def advance(self, record: Record) -> None:
        self.done += 1
        line = self.line(record)
        if self.tty:
            end = "\n" if self.done == self.total else ""
            print(f"\r{line}\033[K", end=end, file=self.stream, flush=True)
        elif self.done * 10 // self.total > self.shown_tenths:
            self.shown_tenths = self.done * 10 // self.total
            print(line, file=self.stream, flush=True)

    def line(self, record: Record) -> str:
        elapsed = self.clock() - self.started
        filled = BAR_WIDTH * self.done // self.total
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        left = elapsed / self.done * (self.total - self.done)
        last = f"{record.student} {record.result.score:.2f}/{record.result.max_score:g}"
        if record.failure:
            last += " GRADING FAILED"
        return (f"grading [{bar}] {self.done}/{self.total} {100 * self.done // self.total:3d}% "
                f"{duration(elapsed)} elapsed, ETA {duration(left)}  {last}")


def duration(seconds: float) -> str:
    """``75`` -> ``1m15s``."""
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"


def summary(course: Course, records: list[Record]) -> str:
    """Per exercise: mean and median score, how many earned full marks and zero; then grading failures."""
    titles = {e.id: e.title for e in course.exercises}
    ids = [e.id for e in course.exercises if any(x.id == e.id for r in records for x in r.result.exercises)]
    width = max(len(titles[i]) for i in ids)
    lines = [f"{'ex':<3} {'title':<{width}} {'mean':>7} {'median':>7} {'max':>5}  full  zero"]
    for exercise_id in ids:
        graded = [x for r in records for x in r.result.exercises if x.id == exercise_id]
        lines.append(_row(exercise_id, titles[exercise_id], width, [x.score for x in graded], graded[0].max_score))
    lines.append(_row("", "total", width, [r.result.score for r in records], records[0].result.max_score))
    failed = [r for r in records if r.failure]
    lines.append(f"\n{len(records)} students graded" + (f"; grading FAILED for {len(failed)}:" if failed else ""))
    lines += [f"  {r.student}: {r.failure}" for r in failed]
    return "\n".join(lines)


def _row(label: str, title: str, width: int, scores: list[float], most: float) -> str:
    full = sum(abs(s - most) < 1e-9 for s in scores)
    zero = sum(s == 0 for s in scores)
    return (f"{label:<3} {title:<{width}} {statistics.fmean(scores):7.2f} {statistics.median(scores):7.2f} "
            f"{most:5g} {full:5d} {zero:5d}")
