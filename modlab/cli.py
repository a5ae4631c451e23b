"""The ``modlab`` command: parse, call, print.

Every command reports bad input in one line on stderr and exits non-zero;
a traceback from modlab itself is a bug.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from modlab import __version__
from modlab.course import CourseError, load_course

EPILOG_GRADE = """\
examples:
  modlab grade solutions/                 # the reference: full marks
  modlab grade exercises/ --exercise 03   # the untouched stubs of exercise 03: zero
  modlab grade submissions/ada --json ada.json --device cuda
"""


class UsageError(Exception):
    """Bad input from the user: one line, exit status 2."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        return args.run(args) or 0
    except (CourseError, UsageError, FileNotFoundError) as problem:
        print(f"modlab {args.command}: error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"modlab {args.command}: interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="modlab",
        description="Build, check and grade the modlab course: students rebuild torch.nn.Module "
                    "as their own package, graded against real torch.nn.",
    )
    parser.add_argument("--version", action="version", version=f"modlab {__version__}")
    parser.add_argument("--course", type=Path, default=None, metavar="FILE",
                        help="the course.yaml to use (default: the nearest one above the current folder)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in COMMANDS:
        register(commands)
    return parser


def add_build(commands) -> None:
    sub = commands.add_parser(
        "build", help="generate exercises/ (student stubs) from solutions/",
        description="Generate the student starter kit: every solution region of solutions/<package>/ "
                    "becomes `raise NotImplementedError(\"exercise NN: name\")`, signatures and "
                    "docstrings kept.",
        epilog="examples:\n  modlab build\n  modlab build --check   # exit 1 if exercises/ is stale",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("--check", action="store_true", help="only report files of exercises/ that are out of date")
    sub.set_defaults(run=run_build)


def run_build(args) -> int:
    from modlab.build import build_exercises, stale_exercises

    course = load_course(args.course)
    if args.check:
        stale = stale_exercises(course)
        for name in stale:
            print(f"exercises/{course.package}/{name} differs from what `modlab build` generates")
        return 1 if stale else 0
    for path in build_exercises(course):
        print(f"wrote {path.relative_to(course.root)}")
    return 0


def add_grade(commands) -> None:
    sub = commands.add_parser(
        "grade", help="grade a submission against torch.nn",
        description="Grade a folder holding a student package (e.g. solutions/ holding mynn/). "
                    "Each exercise is graded in isolation: the submission's files for that exercise "
                    "inside the reference package. Student code runs in a separate worker process.",
        epilog=EPILOG_GRADE, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("path", type=Path, help="folder holding the package (or the package folder itself)")
    add_grading_options(sub)
    sub.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    sub.set_defaults(run=run_grade)


def add_grading_options(sub) -> None:
    sub.add_argument("--exercise", "-e", action="append", metavar="ID",
                     help="grade only this exercise (repeatable; default: all)")
    sub.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                     help="auto: run CUDA cases where CUDA works, skip them elsewhere; cpu: skip them; "
                          "cuda: a CUDA case that cannot run fails (for GPU runners)")


def run_grade(args) -> int:
    from modlab.formats.jsonfile import write_json
    from modlab.formats.table import score_table
    from modlab.runner.grade import GradeOptions, grade_submission

    course = load_course(args.course)
    package_dir = find_package(args.path, course.package)
    exercises = [course.exercise(e) for e in args.exercise] if args.exercise else None
    result = grade_submission(course, package_dir, exercises, GradeOptions(device=args.device),
                              progress=progress_printer(exercises or course.exercises))
    print(score_table(course, result))
    if args.json:
        write_json(args.json, result.to_json())
    return 0


def find_package(path: Path, package: str) -> Path:
    """The package folder: ``path/<package>`` or ``path`` itself."""
    if not path.exists():
        raise UsageError(f"{path}: no such folder")
    if (path / package).is_dir():
        return path / package
    if path.name == package and path.is_dir():
        return path
    raise UsageError(f"{path}: holds no {package}/ package folder")


def progress_printer(items):
    """A one-line progress display on stderr when it is a terminal."""
    total = len(items)
    done = [0]

    def advance(item) -> None:
        done[0] += 1
        if sys.stderr.isatty():
            end = "\n" if done[0] == total else ""
            print(f"\rgrading {done[0]}/{total} exercises", end=end, file=sys.stderr, flush=True)

    return advance


COMMANDS = [add_build, add_grade]

if __name__ == "__main__":
    sys.exit(main())
