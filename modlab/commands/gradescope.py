"""``modlab gradescope``: build the autograder.zip Gradescope runs, and run it (docs/gradescope.md)."""
from __future__ import annotations

import argparse
from pathlib import Path

from modlab.course import load_course
from modlab.errors import UsageError
from modlab.formats.gradescope import AFTER_DUE_DATE, VISIBILITIES, VISIBLE, Visibility

DOCS = "docs/gradescope.md"
EPILOG_BUILD = f"""\
examples:
  modlab gradescope build                        # the whole course, into autograder.zip
  modlab gradescope build -e 10 --out losses.zip   # one assignment per exercise: exercise 10 alone
  modlab gradescope build -e 10 --hidden-checks after_published

then, on Gradescope: a Programming Assignment, Configure Autograder, upload the zip
(base image: Ubuntu 22.04). {DOCS} walks through it, and what students see.
"""
EPILOG_RUN = """\
examples:
  modlab gradescope run                          # what run_autograder does on Gradescope
  modlab gradescope run --root /tmp/autograder -e 10   # try it: /tmp/autograder/submission/losses.py

Writes ROOT/results/results.json.
"""


def register(commands) -> None:
    sub = commands.add_parser("gradescope", help="build the Gradescope autograder.zip, and run it",
                              description="Grade on Gradescope with the course's graders.")
    actions = sub.add_subparsers(dest="action", metavar="ACTION", required=True)

    build = actions.add_parser(
        "build", help="write autograder.zip for the whole course or for some exercises",
        description="Write the autograder.zip to upload to a Gradescope programming assignment: setup.sh "
                    "(the Python and the course's pinned packages, torch as the CPU build), run_autograder, "
                    "course.yaml, the graders of the exercises graded, the reference they are grafted into "
                    "and the grading side of modlab. Nothing else of the course goes in.",
        epilog=EPILOG_BUILD, formatter_class=argparse.RawDescriptionHelpFormatter)
    build.add_argument("--out", type=Path, default=Path("autograder.zip"), metavar="FILE",
                       help="the zip to write, replaced if it exists (default: autograder.zip)")
    build.add_argument("--python", metavar="X.Y",
                       help="the Python version setup.sh installs on Gradescope (default: this one's)")
    _add_grading_options(build)
    build.set_defaults(run=run_build)

    run = actions.add_parser(
        "run", help="grade ROOT/submission and write ROOT/results/results.json (what run_autograder does)",
        description="Grade what a student uploaded to Gradescope (ROOT/submission: the exercises' files, the "
                    "package folder, or archives of `modlab submit`) as `modlab grade` does, and write "
                    "Gradescope's ROOT/results/results.json. An upload with nothing to grade gets one line "
                    "saying what was expected, and 0.",
        epilog=EPILOG_RUN, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("--root", type=Path, default=Path("/autograder"), metavar="ROOT",
                     help="Gradescope's tree, holding submission/ and results/ (default: /autograder)")
    _add_grading_options(run)
    run.set_defaults(run=run_autograder)


def _add_grading_options(parser) -> None:
    parser.add_argument("--exercise", "-e", action="append", metavar="ID",
                        help="grade only this exercise (repeatable; default: the whole course)")
    parser.add_argument("--public-checks", choices=VISIBILITIES, default=VISIBLE, metavar="WHEN",
                        help=f"when students see the public checks: {', '.join(VISIBILITIES)} (default: {VISIBLE})")
    parser.add_argument("--hidden-checks", choices=VISIBILITIES, default=AFTER_DUE_DATE, metavar="WHEN",
                        help=f"when students see the hidden checks, numbered and unnamed, and with them their "
                             f"score (default: {AFTER_DUE_DATE})")


def run_build(args) -> int:
    from modlab.instructor.gradescope.bundle import BundleError, autograder_files, write_zip
    from modlab.instructor.gradescope.scripts import THIS_PYTHON, Settings

    course = load_course(args.course)
    if args.out.suffix != ".zip":
        raise UsageError(f"--out {args.out}: expected a file name ending in .zip")
    exercises = tuple(course.exercise(e).id for e in args.exercise or ())
    try:
        settings = Settings(exercises, Visibility(args.public_checks, args.hidden_checks), args.python or THIS_PYTHON)
    except ValueError as problem:
        raise UsageError(f"--python: {problem}") from None
    try:
        files = autograder_files(course, settings)
    except BundleError as problem:
        raise UsageError(str(problem)) from None
    write_zip(files, args.out)
    what = f"exercise {', '.join(exercises)}" if exercises else "the whole course"
    print(f"wrote {args.out} for {what} ({len(files)} files, {args.out.stat().st_size // 1024} KiB): "
          f"{_contents(files)}")
    print(f"upload it to a Gradescope programming assignment: {DOCS}")
    return 0


def run_autograder(args) -> int:
    args.relaunch()  # one torch for this process and its workers' zygote
    from modlab.instructor.gradescope.autograder import run_autograder as run

    course = load_course(args.course)
    exercises = [course.exercise(e) for e in args.exercise] if args.exercise else list(course.exercises)
    run(course, args.root, exercises, Visibility(args.public_checks, args.hidden_checks))
    return 0


def _contents(files: dict[str, bytes]) -> str:
    """``setup.sh, run_autograder, ..., graders/ (1 file), modlab/ (73 files)``: top-level entries, folders counted."""
    counts: dict[str, int] = {}
    for name in files:
        top = name.split("/")[0] + ("/" if "/" in name else "")
        counts[top] = counts.get(top, 0) + 1
    return ", ".join(top if not top.endswith("/") else f"{top} ({count} file{'s' * (count > 1)})"
                     for top, count in counts.items())
