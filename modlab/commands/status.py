"""``modlab status``: every exercise, its last check, last submission and due date."""
from __future__ import annotations

import argparse
import sys

from modlab.commands.check import add_workspace_option, student_course

DOCS = "docs/students.md"  # what every --help of this command names for more
EPILOG = """\
examples:
  modlab status                  # the table for the package in this folder
  modlab status --path ~/course

The checks column shows your last `modlab check` of each exercise; a * marks a
result your edits have made stale.
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "status", help="show every exercise: public checks passed, last submission, due date",
        description="Show a table of every exercise: how many public checks your last `modlab check` "
                    "passed, when you last submitted it, and when it is due. Runs nothing.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(sub)
    sub.set_defaults(run=run_status)


def run_status(args) -> int:
    from modlab.student.status import status_rows, status_table
    from modlab.student.submit import read_submissions
    from modlab.student.workspace import open_workspace

    course = student_course(args)
    workspace = open_workspace(course, args.path)
    submissions, problems = read_submissions(workspace)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    print(f"{course.title}: {workspace.package_dir}")
    print(status_table(status_rows(workspace, submissions)))
    return 0
