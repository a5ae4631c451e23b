"""The instructor's ``modlab`` command: every command of the course, parse, call, print.

Each command is one module of :mod:`modlab.commands`, which parses its
arguments, calls the student's or the instructor's tools, the batch or the
engine, and prints. Nothing imports this module but ``python -m modlab`` and
the ``modlab`` script. Every command reports bad input in one line on stderr
and exits non-zero; a traceback from modlab itself is a bug. The student kit
has its own, smaller program: :mod:`modlab.student_cli`.

May import every layer below it; it imports the commands by name.
"""
from __future__ import annotations

import argparse
import sys

from modlab.commands import program

# Each module of modlab/commands/ adds one command with its register(commands).
COMMAND_MODULES = ["build", "grade", "env", "nbgrader", "merge", "report", "release", "check", "status", "submit", "doctor",
                   "roster", "fetch", "post_statuses", "similarity", "gradescope"]
DESCRIPTION = ("Build, check and grade the modlab course: students rebuild torch.nn.Module "
               "as their own package, graded against real torch.nn.")


def main(argv: list[str] | None = None) -> int:
    """Run ``modlab ARGV`` (default: the command line); return its exit status."""
    return program.run(argv, COMMAND_MODULES, DESCRIPTION)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (CI tests read the options the workflows use from it)."""
    return program.build_parser(COMMAND_MODULES, DESCRIPTION)


if __name__ == "__main__":
    sys.exit(main())
