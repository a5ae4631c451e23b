"""A ``modlab`` program made of command modules: its parser, and the one way it reports errors.

Both programs are made here: the instructor's full ``modlab`` (:mod:`modlab.cli`)
and the student kit's (:mod:`modlab.student_cli`), which has the student's
commands only. Each command module adds itself with ``register(commands)``;
a module is imported only when its program lists it, so a program never
loads the code of commands it does not have.

May import: :mod:`modlab.course` and :mod:`modlab.errors` (the errors it reports), and
:mod:`modlab.isolation.relaunch` when a command relaunches.
"""
from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import sys
from pathlib import Path
from typing import Callable

from modlab import __version__
from modlab.course import CourseError
from modlab.errors import UsageError


# The page that says more about the program as a whole: the repository's README routes to one
# page per task under docs/; the kit's README is the student's one page.
README = "README.md"


def build_parser(command_modules: list[str], description: str, page: str | None = None) -> argparse.ArgumentParser:
    """The parser of a program holding these commands, each help ending with the page that says more.

    Args:
        command_modules: names of modules of :mod:`modlab.commands`, in the
            order ``--help`` lists them.
        description: what ``modlab --help`` says first.
        page: the one page every help names (the kit's ``README.md``); None:
            the program's help names ``README.md``, and each command's the page
            its module sets as ``DOCS`` (``docs/class.md``).

    Example::

        build_parser(["check", "status"], "the student's checks").parse_args(["check", "03"])
    """
    parser = argparse.ArgumentParser(prog="modlab", description=description, epilog=more(page or README))
    parser.add_argument("--version", action="version", version=f"modlab {__version__}")
    parser.add_argument("--course", type=Path, default=None, metavar="FILE",
                        help="the course.yaml to use (default: the nearest one above the current folder)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules:
        module = importlib.import_module(f"modlab.commands.{name}")
        before = set(commands.choices)
        module.register(commands)
        for added in set(commands.choices) - before:
            name_page(commands.choices[added], page or module.DOCS)
    return parser


def name_page(parser: argparse.ArgumentParser, page: str) -> None:
    """End the help of ``parser``, and of each of its subcommands, with ``More: PAGE``."""
    parser.epilog = f"{parser.epilog.rstrip()}\n\n{more(page)}" if parser.epilog else more(page)
    for sub in subcommands(parser):
        name_page(sub, page)


def more(page: str) -> str:
    """The last line of a help: the page to read for more."""
    return f"More: {page}"


def subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of ``parser``'s subcommands (argparse has no public way to list them).

    Example::

        [sub.prog for sub in subcommands(build_parser(["nbgrader"], ""))]   # ['modlab nbgrader']
    """
    return [sub for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for sub in action.choices.values()]


def skip_the_last_collections() -> None:
    """At this process's exit, leave every object to the operating system rather than the collector.

    Python's exit runs the cyclic collector over everything still alive, and a
    grading process holds torch's hundreds of thousands of objects: about 0.7 s
    of CPU (and of a student's wait) after the command is done. Frozen objects
    are never collected. Registered before the command loads anything, it runs
    after the exit handlers of all it loads (exit handlers run last first).
    """
    atexit.register(gc.freeze)


def relauncher(argv: list[str] | None, *program) -> Callable[[], None]:
    """What a command calls, before it does anything, to run again where torch is loaded once
    for it and its workers' zygote (:func:`modlab.isolation.relaunch.relaunch`).

    Only a process running its own command line (``argv`` None) can: a caller
    that passes its list of arguments (a test, nbgrader's pipeline, a check
    server's child) goes on where it is. ``program`` is :func:`run`'s, which the
    relaunched process calls again.
    """
    if argv is not None:
        return lambda: None

    def relaunch() -> None:
        from modlab.isolation.relaunch import relaunch

        relaunch(__name__, "run", [None, *program])

    return relaunch


def run(argv: list[str] | None, command_modules: list[str], description: str, page: str | None = None) -> int:
    """Parse ``argv`` (default: the command line), run the command, return its exit status.

    Bad input (:class:`~modlab.errors.UsageError`, a ``course.yaml`` that does
    not validate, a missing file) is one line on stderr and exit status 2; a
    traceback from modlab itself is a bug. ``page`` is :func:`build_parser`'s.
    """
    if argv is None:  # this process's own command line: it ends when the command does
        skip_the_last_collections()
    parser = build_parser(command_modules, description, page)
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)  # as typed: a check server runs it again
    args.relaunch = relauncher(argv, command_modules, description, page)
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
