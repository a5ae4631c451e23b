"""The ``modlab`` command: parse, call, print.

Every command reports bad input in one line on stderr and exits non-zero;
a traceback from modlab itself is a bug.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from modlab import __version__
from modlab.course import CourseError

# Each module of modlab/commands/ adds one command with its register(commands).
COMMAND_MODULES = ["build", "grade", "env", "nbgrader", "merge", "report", "release", "check", "status", "submit", "doctor",
                   "roster", "fetch", "post_statuses", "similarity"]


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
    for name in COMMAND_MODULES:
        importlib.import_module(f"modlab.commands.{name}").register(commands)
    return parser


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



if __name__ == "__main__":
    sys.exit(main())
