"""``modlab grade``: grade a submission, or a whole class, against torch.nn."""
from __future__ import annotations

import argparse
from pathlib import Path

from modlab.course import load_course
from modlab.formats.outputs import add_output_options, write_outputs

from .options import add_class_options, add_grading_options, cuda_status

DOCS = "docs/class.md"  # what every --help of this command names for more
EPILOG_GRADE = """\
examples:
  modlab grade solutions/                 # the reference: full marks
  modlab grade exercises/ --exercise 03   # the untouched stubs of exercise 03: zero
  modlab grade submissions/ada --json ada.json --device cuda
  modlab grade class/ -j 8                # every class/<student>/<package>/; run again to resume
  modlab grade course/submitted/ --shard 2/4 --out results-2   # nbgrader's layout, shard 2 of 4
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "grade", help="grade a submission, or a whole class, against torch.nn",
        description="Grade a folder holding a student package (e.g. solutions/, which holds the reference), or a "
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


def run_grade(args) -> int:
    args.relaunch()  # one torch for this process and its workers' zygote
    from modlab.batch.layout import is_class_folder
    from modlab.engine import GradeOptions, grade_submission
    from modlab.folders import package_folder, student_of
    from modlab.formats.table import score_table
    from modlab.formats.terminal import Progress

    course = load_course(args.course)
    if is_class_folder(args.path, course):
        from .grade_class import run_class  # not at the top: it loads torch, and every command imports this module
        return run_class(args, course)
    package_dir = package_folder(args.path, course)
    exercises = [course.exercise(e) for e in args.exercise] if args.exercise else list(course.exercises)
    with Progress("grading", len(exercises)) as progress:
        result = grade_submission(course, package_dir, exercises, GradeOptions(device=args.device),
                                  student=student_of(package_dir, course), progress=lambda graded: progress.advance(exercise_note(graded)))
    print(score_table(course, result))
    write_outputs(args, course, [result])
    return cuda_status(args, [result])


def exercise_note(graded) -> str:
    """What the progress says of an exercise just graded: ``03 16 passed, 0 failed``."""
    return f"{graded.id} {graded.passed} passed, {graded.failed} failed"
