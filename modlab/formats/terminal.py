"""What modlab shows on a terminal: tables and progress, drawn by rich.

Tables are plain text, no colour and no borders, so that they read the same
on a terminal, in a CI log and in a test; every table modlab prints
(``modlab grade``, ``modlab status``, a class's summary, ``modlab similarity``)
comes from :func:`table`. Progress goes to stderr: on a terminal a bar
with the count, the share, the time elapsed and left, redrawn in place
(:class:`Progress`); elsewhere, a plain line at every tenth of the way, so
that a CI log stays short and readable.
"""
from __future__ import annotations

import io
import sys
import time
from typing import Callable, Iterable, Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.progress import TimeRemainingColumn
from rich.table import Table
from rich.text import Text

WIDE = 10_000  # columns of the console tables are drawn on: a table is never wrapped


def table(header: Sequence[str], rows: Iterable[Sequence[str]], right: Sequence[int] = ()) -> str:
    """Rows of text in aligned columns, two spaces apart, trailing spaces removed.

    Args:
        header: the columns' names, the first line.
        rows: the cells of each line, as text (shown as they are: ``[tied-twice]`` is no markup).
        right: the positions of the columns aligned to the right (numbers).

    Returns:
        The table, one line per row, without a final newline.

    Example::

        table(("ex", "score"), [("01", "10.00 / 10")], right=[1])
        # 'ex       score\\n01  10.00 / 10'
    """
    grid = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), show_header=True,
                 header_style="", expand=False)
    for index, name in enumerate(header):
        grid.add_column(Text(name), justify="right" if index in right else "left", no_wrap=True)
    for row in rows:
        grid.add_row(*(Text(str(cell)) for cell in row))
    out = io.StringIO()
    Console(file=out, width=WIDE, color_system=None, highlight=False, emoji=False).print(grid)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").split("\n"))


class Progress:
    """The progress of ``total`` steps, shown on ``stream`` (default: stderr).

    Use as a context manager and call :meth:`advance` once per step done::

        with Progress("grading", len(todo)) as progress:
            for student in todo:
                ...
                progress.advance(f"{student} 42.50/100")

    On a terminal the bar is redrawn at each step only (no thread, so nothing
    runs between steps and a fork meets no lock held); elsewhere a plain line
    is printed at every tenth of the way::

        grading 20/200  10% 31s elapsed, ETA 4m39s  ada 42.50/100

    Args:
        first: what happens before the first step (``"warming up on the
            reference"``), shown until :meth:`start` is called: the time
            elapsed and the ETA then count from there, so that a fixed cost
            before the steps does not make every step seem to cost more.
    """

    def __init__(self, what: str, total: int, stream=None, clock: Callable[[], float] = time.monotonic,
                 first: str = ""):
        self.what, self.total, self.done, self.first = what, total, 0, first
        self.stream = stream or sys.stderr
        self.clock, self.started = clock, clock()
        self.shown_tenths = 0
        console = Console(file=self.stream, highlight=False, emoji=False)
        self.bar = None
        if console.is_terminal and total:
            self.bar = RichProgress(
                TextColumn(what), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[note]}", markup=False),
                console=console, auto_refresh=False, redirect_stdout=False, redirect_stderr=False, get_time=clock)
            self.task = self.bar.add_task(what, total=total, note=first, start=not first)

    def __enter__(self) -> "Progress":
        if self.bar is not None:
            self.bar.start()
        elif self.first and self.total:
            print(f"{self.what} 0/{self.total}: {self.first}", file=self.stream, flush=True)
        return self

    def start(self) -> None:
        """What ``first`` said is done: the steps begin, and their time counts from now."""
        self.started = self.clock()
        if self.bar is not None:
            self.bar.start_task(self.task)
            self.bar.update(self.task, note="")
            self.bar.refresh()

    def __exit__(self, *exc_info) -> None:
        if self.bar is not None:
            self.bar.stop()

    def advance(self, note: str = "") -> None:
        """One more step done; ``note`` says what it was (``ada 42.50/100``)."""
        self.done += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, note=note)
            self.bar.refresh()
        elif self.done * 10 // self.total > self.shown_tenths or self.total < 10:
            self.shown_tenths = self.done * 10 // self.total
            print(self.line(note), file=self.stream, flush=True)

    def line(self, note: str = "") -> str:
        """The plain line of the step just done."""
        elapsed = self.clock() - self.started
        left = elapsed / self.done * (self.total - self.done)
        return (f"{self.what} {self.done}/{self.total} {100 * self.done // self.total:3d}% "
                f"{duration(elapsed)} elapsed, ETA {duration(left)}  {note}").rstrip()


def duration(seconds: float) -> str:
    """``75`` -> ``1m15s``."""
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"
