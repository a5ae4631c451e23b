"""A ``modlab`` program made of command modules: its parser, and the one way it reports errors.

Both programs are made here: the instructor's full ``modlab`` (:mod:`modlab.cli`)
and the student kit's (:mod:`modlab.student_cli`), which has the student's
commands only. Each command module adds itself with ``register(commands)``;
a module is imported only when its program lists it, so a program never
loads the code of commands it does not have.

May import: :mod:`modlab.course` and :mod:`modlab.errors` (the errors it reports).
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from modlab import __version__
from modlab.course import CourseError
from modlab.errors import UsageError


def build_parser(command_modules: list[str], description: str) -> argparse.ArgumentParser:
    """The parser of a program holding these commands.

    Args:
        command_modules: names of modules of :mod:`modlab.commands`, in the
            order ``--help`` lists them.
        description: what ``modlab --help`` says first.

    Example::

        build_parser(["check", "status"], "the student's checks").parse_args(["check", "03"])
    """
    parser = argparse.ArgumentParser(prog="modlab", description=description)
    parser.add_argument("--version", action="version", version=f"modlab {__version__}")
    parser.add_argument("--course", type=Path, default=None, metavar="FILE",
                        help="the course.yaml to use (default: the nearest one above the current folder)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules:
        importlib.import_module(f"modlab.commands.{name}").register(commands)
    return parser


def run(argv: list[str] | None, command_modules: list[str], description: str) -> int:
    """Parse ``argv`` (default: the command line), run the command, return its exit status.

    Bad input (:class:`~modlab.errors.UsageError`, a ``course.yaml`` that does
    not validate, a missing file) is one line on stderr and exit status 2; a
    traceback from modlab itself is a bug.
    """
    parser = build_parser(command_modules, description)
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)  # as typed: a check server runs it again
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
