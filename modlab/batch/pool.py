"""Grading a class in parallel: grading processes forked from a preloaded parent.

First the parent grades the reference once: then torch.nn's answers and the
specs of every Hypothesis search are known (:meth:`.batch.Batch.warm`), and
every submission is graded alike. With one job the parent grades every
submission itself. With more, it hands out submissions one at a time to
grading processes forked from it, which inherit torch, the graders and what
the warm-up learnt, and it grades nothing itself. With each submission it
hands over the failing searches the other processes recorded since (see
``modlab.engine.memory``): a bug met once is followed, not searched, in every
process. Either way each exercise of each submission gets a fresh worker
process of its own: isolation is as strong as for one submission, and no
process pays for importing torch again. Nothing on the trusted side touches
CUDA (the oracle's worker asks for it), so forking stays safe on GPU runners.

Every grading process leads its own process group, so Ctrl-C reaches the
parent alone: it stops handing out work and ends the grading processes with
everything they started. What they were grading has no record yet and is
graded on the next run. A grading process that dies by itself gets a failure
record for the submission it held, and a successor for the rest.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from multiprocessing.connection import wait
from typing import Callable

from modlab.isolation.launcher import adopt, start_method, zygote

from .grading import Batch
from .layout import Submission
from .store import Record, ResultStore

PARENT_CHECK_S = 0.5


def grade_all(batch: Batch, submissions: list[Submission], store: ResultStore, jobs: int,
              done: Callable[[Record], None], warmed: Callable[[], None] = lambda: None) -> list[str]:
    """Grade every submission, ``jobs`` at a time, saving each record as it comes.

    Args:
        done: called with each record once it is saved.
        warmed: called once the warm-up is over, before the first submission.

    Returns:
        What the warm-up on the reference found wrong (:meth:`.batch.Batch.warm`).
    """
    if not submissions:
        return []
    doubts = warm(batch, jobs)
    warmed()
    if jobs == 1:
        for submission in submissions:
            record = batch.grade(submission)
            store.save(record)
            done(record)
    else:
        grade_in_processes(batch, submissions, store, jobs, done)
    return doubts


def warm(batch: Batch, jobs: int) -> list[str]:
    """The warm-up (:meth:`.batch.Batch.warm`), shared with a helper process
    when there are jobs for two: each grades every other exercise of the
    reference, and the parent learns what the helper learnt, so that every
    grading process forked afterwards starts knowing it all.

    A helper that dies leaves its exercises to the parent.
    """
    if jobs == 1 or start_method() != "fork" or len(batch.exercises) < 2:
        return batch.warm()
    ours, theirs = batch.exercises[0::2], batch.exercises[1::2]
    context = multiprocessing.get_context("fork")
    connection, child_end = context.Pipe()
    shared = zygote().share()
    helper = context.Process(target=_warm_helper, args=(child_end, batch, theirs, shared), name="modlab-warm-up")
    helper.start()
    child_end.close()
    shared.close()
    doubts = batch.warm(ours)
    try:
        their_doubts, known = connection.recv()
        batch.memory.learn(known)
    except (EOFError, OSError):
        their_doubts = batch.warm(theirs)
    helper.join()
    connection.close()
    return sorted(doubts + their_doubts)  # each begins "exercise NN:"


def _warm_helper(connection, batch: Batch, exercises: list, shared_zygote) -> None:
    adopt(shared_zygote)
    batch.memory.after_fork()
    connection.send((batch.warm(exercises), batch.memory.learnt()))


def grade_in_processes(batch: Batch, submissions: list[Submission], store: ResultStore, jobs: int,
                       done: Callable[[Record], None]) -> None:
    """Grade every submission in ``jobs`` forked grading processes."""
    context = multiprocessing.get_context(start_method())
    waiting = deque(submissions)
    busy: list[GradingProcess] = []
    failed_searches: dict = {}  # what every grading process recorded, passed on to the others
    try:
        while waiting or busy:
            while waiting and len(busy) < jobs:
                busy.append(GradingProcess(context, batch, store, failed_searches))
                busy[-1].hand(waiting.popleft())
            for grader in _answered(busy):
                record, recorded = grader.collect()
                failed_searches.update(recorded)
                for other in busy:
                    if other is not grader:
                        other.unseen.update(recorded)
                if record is None:  # died: the parent writes the record the process could not
                    record = batch.failed(grader.holding, f"the grading process {grader.exit_status()}")
                    store.save(record)
                    grader.end()
                    busy.remove(grader)
                elif waiting:
                    grader.hand(waiting.popleft())
                else:
                    grader.finish()
                    busy.remove(grader)
                done(record)
    finally:
        for grader in busy:
            grader.end()


def _answered(busy: list["GradingProcess"]) -> list["GradingProcess"]:
    ready = wait([grader.connection for grader in busy])
    return [grader for grader in busy if grader.connection in ready]


class GradingProcess:
    """One forked grading process, seen from the parent."""

    def __init__(self, context, batch: Batch, store: ResultStore, failed_searches: dict):
        self.connection, child_end = context.Pipe()
        shared = zygote().share() if start_method() == "fork" else None  # one zygote for the whole class
        self.process = context.Process(target=serve, args=(child_end, batch, store, shared), name="modlab-grading")
        self.process.start()
        child_end.close()
        if shared is not None:
            shared.close()
        self.holding: Submission | None = None
        self.unseen = dict(failed_searches)  # failing searches the others recorded, not yet passed on

    def hand(self, submission: Submission) -> None:
        """Give it a submission to grade, with the failing searches it has not learnt yet."""
        self.holding = submission
        self.connection.send((submission, self.unseen))
        self.unseen = {}

    def collect(self) -> tuple[Record | None, dict]:
        """The record of the submission it held (None if the process died),
        and the failing searches it recorded meanwhile."""
        try:
            text, recorded = self.connection.recv()
        except (EOFError, OSError):
            return None, {}
        return Record.from_json(text), recorded

    def exit_status(self) -> str:
        self.process.join(timeout=5)
        code = self.process.exitcode
        if code is not None and code < 0:
            return f"was killed by signal {signal.Signals(-code).name}"
        return f"exited with code {code}"

    def finish(self) -> None:
        """No more work: let it exit."""
        self.connection.send(None)
        self.process.join(timeout=10)
        self.end()

    def end(self) -> None:
        """End it now, with the workers it started (they share its process group)."""
        if self.process.is_alive():
            if hasattr(os, "killpg"):
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass  # not yet its own group leader: killing the process is enough
            self.process.kill()
        self.process.join()
        self.connection.close()


def serve(connection, batch: Batch, store: ResultStore, shared_zygote=None) -> None:
    """A grading process: grade what the parent hands over until it says stop.

    Its workers come from the parent's zygote when the parent shares it.
    """
    if hasattr(os, "setpgrp"):
        os.setpgrp()
    if shared_zygote is not None:
        adopt(shared_zygote)
    batch.memory.after_fork()
    parent, passed_on = os.getppid(), batch.memory.failed_since(0)[0]  # failing searches recorded and reported so far
    while True:
        # Not EOF: forked siblings hold copies of the parent's end of this pipe, so EOF never comes.
        while not connection.poll(PARENT_CHECK_S):
            if os.getppid() != parent:
                return  # the parent was killed: stop, with every record finished so far saved
        try:
            handed = connection.recv()
        except EOFError:
            return
        if handed is None:
            return
        submission, failed_elsewhere = handed
        batch.memory.learn({"failed": failed_elsewhere})
        record = batch.grade(submission)
        store.save(record)
        passed_on, failed_here = batch.memory.failed_since(passed_on)
        try:
            connection.send((record.to_json(), failed_here))
        except OSError:  # the parent is gone; the record is saved, the next run skips it
            return
