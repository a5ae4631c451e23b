"""What a grading process learns as it grades, kept in one object it can hand to another.

Nothing here depends on a submission's code: torch's answers, the specs a
passing Hypothesis search draws (the same in every search: derandomized), and
the calls of searches that failed (followed only where a later submission
answers them alike). A batch grades the reference first so that every
submission after it replays rather than draws, and its grading processes pass
what each learnt to the others (:mod:`modlab.batch.pool`). A grading uses the
process's :func:`process_memory` unless it is given one of its own (a test that
wants a fresh search, for instance).
"""
from __future__ import annotations

import atexit
import json
from pathlib import Path

from modlab.course import Course
from modlab.isolation.process import WorkerProcess

from .oracle import Oracle


class Memory:
    """One grading process's memory.

    Attributes:
        oracles: the oracles started, by course, graders and cache.
        passing_specs: by case, the specs a search drew while every one passed:
            replayed first next time, so Hypothesis runs only where one fails,
            to shrink it (drawing costs the grading process more than comparing).
        failing_searches: by case and by where the replay first failed (index
            and outcome), the calls of a search that failed there: a later
            submission failing there alike is led through them first (bugs
            recur across a class, and a search costs far more than its specs).
        recorded: ``(key, calls)`` of each failing search recorded here, in turn.
    """

    def __init__(self):
        self.oracles: dict[str, Oracle] = {}
        self.passing_specs: dict[tuple[str, str], list] = {}
        self.failing_searches: dict[tuple, list] = {}
        self.recorded: list[tuple] = []
        self._references: dict[str, dict[str, str]] = {}

    def oracle(self, course: Course, grader_files: list[str] | None = None, cache_dir: Path | None = None,
               key: str = "") -> Oracle:
        """The course's oracle for these graders (default: all of them), started on
        first use and ended when this process exits; ``cache_dir`` and ``key`` (the
        grading's fingerprint, which names the cache file): see :class:`Oracle`."""
        grader_files = grader_files or course.grader_files()
        known = json.dumps([course.id, grader_files, str(cache_dir or ""), key if cache_dir else ""])
        if known not in self.oracles:
            oracle = self.oracles[known] = Oracle(grader_files, cache_dir, key, course.oracle.spec())
            atexit.register(lambda: oracle.worker.close())  # the worker in use at exit
        return self.oracles[known]

    def reference(self, course: Course) -> dict[str, str]:
        """The reference package's files, read once."""
        key = str(course.solutions)
        if key not in self._references:
            self._references[key] = {path.name: path.read_text(encoding="utf-8")
                                     for path in sorted(course.solutions.glob("*.py"))}
        return self._references[key]

    def remember_failing(self, key: tuple, calls: list) -> None:
        """Keep a failing search's calls, to follow here and to pass on (:meth:`failed_since`)."""
        self.failing_searches[key] = calls
        self.recorded.append((key, calls))

    def learnt(self) -> dict:
        """What this memory knows so far, for another process to :meth:`learn`."""
        return {"answers": {key: oracle.cache for key, oracle in self.oracles.items()},
                "specs": dict(self.passing_specs), "failed": dict(self.failing_searches)}

    def failed_since(self, count: int) -> tuple[int, dict]:
        """The failing searches recorded here after the first ``count``, and how many
        are recorded now: for the other processes of a grading to learn."""
        return len(self.recorded), dict(self.recorded[count:])

    def learn(self, known: dict) -> None:
        """Take what another process of this grading learnt (:meth:`learnt`, or
        ``{"failed": ...}`` of :meth:`failed_since`). An oracle this process has
        not started keeps nothing, and is asked again."""
        for key, answers in known.get("answers", {}).items():
            if key in self.oracles:
                self.oracles[key].cache.update(answers)
                self.oracles[key].unsaved = True
        self.passing_specs.update(known.get("specs", {}))
        self.failing_searches.update(known.get("failed", {}))

    def after_fork(self) -> None:
        """In a process forked from a grading process: keep what the oracles
        remember, but ask a worker of its own (the parent's answers the parent)."""
        for oracle in self.oracles.values():
            oracle.worker = WorkerProcess(oracle.worker.world, oracle.worker.grader_files)


_PROCESS = Memory()


def process_memory() -> Memory:
    """This process's memory: what every grading shares unless given another."""
    return _PROCESS
