"""``modlab grade CLASS``: grade many submissions, resumably, in parallel."""
from __future__ import annotations

import signal
import sys
import time
from contextlib import contextmanager

from modlab.course import Course
from modlab.errors import UsageError
from modlab.formats.outputs import write_outputs
from modlab.records import GRADING_FAILED

from .options import cuda_status


def run_class(args, course: Course) -> int:
    from modlab.batch.layout import class_root
    from modlab.isolation.launcher import start_soon

    if args.gradescope:
        raise UsageError("--gradescope describes one submission; grade a class with --out (and --json)")
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: expected at least 1")
    if args.out.resolve().is_relative_to(class_root(args.path).resolve()):
        raise UsageError(f"--out {args.out} is among the student folders of {args.path}, where it would pass for one")
    submissions, shard = class_submissions(args, course)
    exercises = chosen_exercises(args, course)
    # The workers' zygote loads torch and the graders while this process does.
    start_soon(course.grader_files(), course.oracle.spec())
    from modlab.batch.grading import Batch, pending
    from modlab.batch.pool import grade_all
    from modlab.batch.store import ResultStore
    from modlab.engine import GradeOptions
    from modlab.formats.table import class_summary
    from modlab.formats.terminal import Progress, duration

    batch = Batch(course, exercises, GradeOptions(device=args.device))
    store = ResultStore(args.out)
    store.begin(batch.manifest([s.student for s in submissions], shard))
    todo = pending(batch, store, submissions)
    if len(todo) < len(submissions):
        print(f"resuming: {len(submissions) - len(todo)} of {len(submissions)} students already graded "
              f"in {args.out}", file=sys.stderr)
    started = time.monotonic()
    try:
        with terminate_as_interrupt(), Progress("grading", len(todo), first="warming up on the reference") as progress:
            doubts = grade_all(batch, todo, store, args.jobs, lambda record: progress.advance(student_note(record)),
                               warmed=progress.start)
    except KeyboardInterrupt:
        print(f"\nmodlab grade: interrupted; what was graded is kept in {args.out}: "
              f"run the same command again to resume", file=sys.stderr)
        return 130
    seconds = time.monotonic() - started
    records = store.records([s.student for s in submissions])
    gradebook = store.write_gradebook(course, records)
    if records:
        print(class_summary(course, [r.result for r in records], {r.student: r.failure for r in records if r.failure}))
    rate = f", {len(todo) / seconds * 60:.1f} per minute with {args.jobs} processes" if todo else ""
    print(f"graded {len(todo)} submissions in {duration(seconds)}{rate}; records in {store.students}/, "
          f"gradebook {gradebook}")
    for doubt in doubts:
        print(f"modlab grade: warning: {doubt}; check its graders", file=sys.stderr)
    results = [r.result for r in records]
    write_outputs(args, course, results)
    if any(r.failure for r in records):
        return 1
    return cuda_status(args, results)


def student_note(record) -> str:
    """What the progress says of a student just graded: ``ada 42.50/100``."""
    note = f"{record.student} {record.result.score:.2f}/{record.result.max_score:g}"
    return note + (f" {GRADING_FAILED.upper()}" if record.failure else "")


def class_submissions(args, course: Course):
    """The class's submissions (this shard's, with --shard), and the shard as (I, N)."""
    from modlab.batch.layout import find_submissions, in_shard, parse_shard

    try:
        submissions = find_submissions(args.path, course)
        shard = parse_shard(args.shard) if args.shard else (1, 1)
    except ValueError as problem:
        raise UsageError(str(problem)) from None
    return in_shard(submissions, *shard), shard


def chosen_exercises(args, course: Course):
    """The exercises asked for; by default every exercise that has a grader."""
    if args.exercise:
        return [course.exercise(e) for e in args.exercise]
    graded = [e for e in course.exercises if course.grader_file(e).is_file()]
    ungraded = [e.id for e in course.exercises if e not in graded]
    if ungraded:
        print(f"modlab grade: no grader yet for exercise {', '.join(ungraded)}: not graded", file=sys.stderr)
    if not graded:
        raise UsageError(f"no grader files in {course.graders}")
    return graded


@contextmanager
def terminate_as_interrupt():
    """SIGTERM (a CI job cancelled, `kill`) stops the batch as cleanly as Ctrl-C."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
