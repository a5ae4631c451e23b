"""``modlab grade``: grade a submission against torch.nn."""
from __future__ import annotations

import argparse
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
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "grade", help="grade a submission against torch.nn",
        description="Grade a folder holding a student package (e.g. solutions/ holding mynn/). "
                    "Each exercise is graded in isolation: the submission's files for that exercise "
                    "inside the reference package. Student code runs in a separate worker process.",
        epilog=EPILOG_GRADE, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("path", type=Path, help="folder holding the package (or the package folder itself)")
    add_grading_options(sub)
    add_output_options(sub)
    sub.set_defaults(run=run_grade)


def add_grading_options(sub) -> None:
    sub.add_argument("--exercise", "-e", action="append", metavar="ID",
                     help="grade only this exercise (repeatable; default: all)")
    sub.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                     help="auto: run CUDA cases where CUDA works, skip them elsewhere; cpu: skip them; "
                          "cuda: a CUDA case that cannot run fails (for GPU runners)")


def run_grade(args) -> int:
    from modlab.formats.table import score_table
    from modlab.runner.grade import GradeOptions, grade_submission

    course = load_course(args.course)
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
