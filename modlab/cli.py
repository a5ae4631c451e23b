"""The ``modlab`` command: parse, call, print.

Each command is one module of :mod:`modlab.commands`, which parses its
arguments, calls the student's or the instructor's tools, the batch or the
engine, and prints. Nothing imports this module but ``python -m modlab`` and
the ``modlab`` script. Every command reports bad input in one line on stderr
and exits non-zero; a traceback from modlab itself is a bug.

May import every layer below it; it imports the commands by name.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from modlab import __version__
from modlab.course import CourseError
from modlab.errors import UsageError

# Each module of modlab/commands/ adds one command with its register(commands).
COMMAND_MODULES = ["build", "grade", "env", "nbgrader", "merge", "report", "release", "check", "status", "submit", "doctor",
                   "roster", "fetch", "post_statuses", "similarity"]


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


if __name__ == "__main__":
    sys.exit(main())
