"""``modlab check NN``: the public checks of one exercise, on the student's package."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from modlab.course import CourseError, find_course_file, load_course

DOCS = "docs/students.md"  # what every --help of this command names for more
EPILOG = """\
examples:
  modlab check 03                 # the public checks of exercise 03 on your package here
  modlab check 3 --path ~/course  # the package in another folder

Each check runs the same scenario on torch.nn and on your package, in separate
processes, and compares what they observe. Exit status: 0 all passed, 1 some
failed, 2 the check could not run (unknown exercise, missing file, SyntaxError).

At a terminal (Linux), the first check starts a check server in the background:
it keeps torch and the checks loaded for 10 minutes after your last check, so
the next one answers in well under a second. A notebook's check cell starts one
too, which ends with the notebook's kernel. `modlab submit` checks in a server
that is up. Your code is read fresh from disk at every check.
MODLAB_CHECK_SERVER=0 turns the server off; =1 uses it also outside a
terminal. Its log: .modlab/check-server.log.
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "check", help="run the public checks of one exercise on your package",
        description="Run the public checks of exercise NN on your whole package (the package folder "
                    "beside course.yaml), through the same runner as real grading, and print each check, passed or "
                    "failed, with feedback. The first check takes a few seconds, later ones a fraction of one.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("exercise", metavar="NN", help="the exercise id, e.g. 03")
    add_workspace_option(sub)
    sub.set_defaults(run=run_check)


def add_workspace_option(sub) -> None:
    sub.add_argument("--path", type=Path, default=None, metavar="DIR",
                     help="the folder holding your package (default: the current folder if it holds "
                          "one, else the folder of course.yaml)")


def student_course(args):
    """The course: ``--course``, else the course.yaml nearest above ``--path``
    (or above the current folder).

    Raises:
        CourseError: no course.yaml there, said with the folder as the student
            named it (a notebook's check cell runs wherever the notebook was
            copied to, a path that means nothing to the student).
    """
    try:
        course_file = args.course or find_course_file(args.path)
    except CourseError:
        where = "this folder" if args.path is None else str(args.path)
        raise CourseError(f"no course.yaml in {where} or any folder above it: run modlab inside your "
                          f"course kit, the folder holding course.yaml (or pass --course FILE)") from None
    return load_course(course_file)


def run_check(args) -> int:
    from modlab.commands import check_server

    if not check_server.wanted():
        args.relaunch()  # checked here: one torch for this process and its workers' zygote
    course = student_course(args)
    exercise = course.exercise(args.exercise)
    forwarded = check_server.forward(args.argv, course, course.grader_file(exercise))
    if forwarded is not None:
        return forwarded
    result = checked(course, exercise, args.path)
    return 0 if result.failed == 0 and not result.error else 1


def checked(course, exercise, path):
    """Run and print the check; shared by ``check`` and ``submit``.

    The first line needs no torch: where the check was not relaunched to load
    torch first (:mod:`modlab.isolation.relaunch`), the engine loads it once the
    check has started its workers (:func:`modlab.student.check.check`).
    """
    from modlab.formats.feedback import check_report
    from modlab.pins import version_mismatch
    from modlab.student.check import check, platform_note
    from modlab.student.workspace import open_workspace

    workspace = open_workspace(course, path)
    print(f"checking exercise {exercise.id} ({exercise.title}) on {shown_path(workspace.package_dir)} ...",
          flush=True)
    result = check(workspace, exercise)
    for line in (version_mismatch(course.root), platform_note()):  # both free once the engine is loaded
        if line:
            print(line, file=sys.stderr)
    print(check_report(exercise, result))
    return result


def shown_path(path: Path) -> str:
    """``path`` as a student reads it: relative to the current folder when inside it
    (a notebook's check cell names its own ``mynn/``, never where it was copied from)."""
    try:
        relative = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return str(path)
    return f"{relative}/" if str(relative) != "." else "./"
