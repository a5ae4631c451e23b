"""``modlab grade``: grade a submission, or a whole class, against torch.nn."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from modlab.cli import find_package, progress_printer
from modlab.course import load_course
from modlab.formats.outputs import add_output_options, write_outputs
from modlab.runner.records import FAILED

EPILOG_GRADE = """\
examples:
  modlab grade solutions/                 # the reference: full marks
  modlab grade exercises/ --exercise 03   # the untouched stubs of exercise 03: zero
  modlab grade submissions/ada --json ada.json --device cuda
  modlab grade class/ -j 8                # every class/<student>/mynn/; run again to resume
  modlab grade course/submitted/ --shard 2/4 --out results-2   # nbgrader's layout, shard 2 of 4
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "grade", help="grade a submission, or a whole class, against torch.nn",
        description="Grade a folder holding a student package (e.g. solutions/ holding mynn/), or a "
                    "class: a folder of student folders, each holding the package or nbgrader's "
                    "assignment folders. Each exercise is graded in isolation: the submission's files "
                    "for that exercise inside the reference package. Student code runs in a separate "
                    "worker process, a fresh one for every exercise of every submission.",
        epilog=EPILOG_GRADE, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("path", type=Path, help="folder holding the package (or the package folder itself), "
                                             "or a folder of student folders")
    add_grading_options(sub)
    add_output_options(sub)
    add_class_options(sub)
    sub.set_defaults(run=run_grade)


def add_grading_options(sub) -> None:
    sub.add_argument("--exercise", "-e", action="append", metavar="ID",
                     help="grade only this exercise (repeatable; default: all)")
    sub.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                     help="auto: run CUDA cases where CUDA works, skip them elsewhere; cpu: skip them; "
                          "cuda: a CUDA case that cannot run fails (for GPU runners)")


def add_class_options(sub) -> None:
    group = sub.add_argument_group("grading a class")
    group.add_argument("--jobs", "-j", type=int, default=usable_cores(), metavar="N",
                       help="grade N submissions at a time (default: one per usable core)")
    group.add_argument("--shard", metavar="I/N", help="grade only shard I of N (e.g. one job of a CI matrix); "
                                                     "`modlab merge` combines the shards' results")
    group.add_argument("--out", type=Path, default=Path("results"), metavar="DIR",
                       help="results folder: a record per student, gradebook.csv (default: results)")


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_grade(args) -> int:
    from modlab.formats.table import score_table
    from modlab.runner.batch_layout import is_class_folder
    from modlab.runner.grade import GradeOptions, grade_submission

    course = load_course(args.course)
    if is_class_folder(args.path, course.package):
        from .grade_class import run_class
        return run_class(args, course)
    package_dir = find_package(args.path, course.package)
    exercises = [course.exercise(e) for e in args.exercise] if args.exercise else None
    result = grade_submission(course, package_dir, exercises, GradeOptions(device=args.device),
                              progress=progress_printer(exercises or course.exercises))
    print(score_table(course, result))
    write_outputs(args, course, [result])
    return cuda_status(args, [result])


def cuda_status(args, results) -> int:
    """Exit 3 when --device cuda was asked for and a CUDA case could not run:
    a misconfigured GPU runner must fail its job, not pass by skipping."""
    if args.device != "cuda":
        return 0
    missing = [t for r in results for e in r.exercises for t in e.tests if t.outcome == FAILED and t.reason == "cuda"]
    if missing:
        print(f"modlab grade: {len(missing)} CUDA cases could not run: CUDA not available on this runner",
              file=sys.stderr)
        return 3
    return 0
