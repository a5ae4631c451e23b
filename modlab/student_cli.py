"""The student kit's ``modlab`` command: the student's commands, and nothing of the instructor's.

``modlab release`` copies this program into the kit, with only the command
modules :mod:`modlab.kit` lists and the packages they need, and makes it the
kit's ``modlab`` (its script and ``python -m modlab``). ``--help`` therefore
shows exactly what a student can run.

May import: :mod:`modlab.commands` (it imports the commands by name), :mod:`modlab.kit`.
"""
from __future__ import annotations

import argparse
import sys

from modlab import kit
from modlab.commands import program

DESCRIPTION = ("Check and submit your exercises of the course: each check runs the same scenario on "
               "real torch.nn and on your own package, and compares what they do.")
PAGE = "README.md"  # the kit's own README, the student's one page: every --help names it


def main(argv: list[str] | None = None) -> int:
    """Run the student's ``modlab ARGV`` (default: the command line); return its exit status.

    Example::

        main(["check", "03"])   # the public checks of exercise 03 on ./mynn
    """
    return program.run(argv, list(kit.COMMANDS), DESCRIPTION, PAGE)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the kit's commands, every help naming the kit's README.md."""
    return program.build_parser(list(kit.COMMANDS), DESCRIPTION, PAGE)


if __name__ == "__main__":
    sys.exit(main())
