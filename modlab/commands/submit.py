"""``modlab submit NN``: check, then package one exercise for submission."""
from __future__ import annotations

import argparse
import sys

from modlab.commands.check import add_workspace_option, student_course, checked

DOCS = "docs/students.md"  # what every --help of this command names for more
EPILOG = """\
examples:
  modlab submit 03 --student ada      # writes submissions/ada-03-<UTC time>.zip
  modlab submit 03                    # student id from JUPYTERHUB_USER, else your login name

The archive holds exactly the exercise's files and manifest.json (student,
exercise, UTC time, sha256 of each file, tool version). Submitting again writes
a new archive; earlier ones are never overwritten.
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "submit", help="check one exercise, then package its files with a manifest",
        description="Run the public checks of exercise NN (a failure warns, it does not stop the "
                    "submission), then write submissions/<student>-NN-<time>.zip with exactly that "
                    "exercise's files and a manifest. Where course.yaml names an nbgrader exchange, "
                    "the submission also goes there, for `nbgrader collect`.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("exercise", metavar="NN", help="the exercise id, e.g. 03")
    sub.add_argument("--student", metavar="ID", default=None,
                     help="your student id (default: $JUPYTERHUB_USER, else your login name)")
    add_workspace_option(sub)
    sub.set_defaults(run=run_submit)


def run_submit(args) -> int:
    from modlab.commands import check_server
    from modlab.errors import UsageError
    from modlab.student.submit import student_id, submit
    from modlab.student.workspace import open_workspace, require_files, require_valid_syntax

    course = student_course(args)
    exercise = course.exercise(args.exercise)
    # A check server already up (a notebook's, or a terminal's) runs the whole submit, its check warm;
    # none is started for it: a submit is rarely followed by another check.
    forwarded = check_server.forward(args.argv, course, course.grader_file(exercise), start=False)
    if forwarded is not None:
        return forwarded
    args.relaunch()  # checked here: one torch for this process and its workers' zygote
    workspace = open_workspace(course, args.path)
    student = student_id(args.student)
    require_files(workspace, exercise)
    require_valid_syntax(workspace, list(workspace.files_of(exercise).values()))
    try:
        result = checked(course, exercise, workspace.package_dir)
    except UsageError as problem:  # e.g. a SyntaxError in another exercise's file
        print(f"warning: the checks could not run: {problem}", file=sys.stderr)
        result = None
    if result is None or result.failed or result.error:
        print(f"warning: submitting exercise {exercise.id} although its public checks do not all pass",
              file=sys.stderr)
    path = submit(workspace, exercise, student, result)
    where = f" and to the nbgrader exchange {course.exchange}" if course.exchange else ""
    print(f"submitted exercise {exercise.id} as {student}: {path.relative_to(workspace.root)}{where}")
    return 0
