"""Every --help names the page that says more, and the page is there for its reader.

The instructor's ``modlab`` names a page of this repository (README.md for the
program, docs/X.md for each command and subcommand); the student kit's names
the kit's own README.md, which ``modlab release`` writes beside it.
"""
import re

import pytest

from modlab import cli, student_cli
from modlab.commands.program import subcommands

from conftest import ROOT


def every_parser(parser) -> list:
    """``parser`` and each of its commands and subcommands."""
    return [parser, *(found for sub in subcommands(parser) for found in every_parser(sub))]


def named_page(parser) -> str:
    """The page a help names on its last line, ``More: PAGE``."""
    last = parser.format_help().rstrip().splitlines()[-1]
    found = re.fullmatch(r"More: (\S+)", last)
    assert found, f"{parser.prog} --help ends with {last!r}"
    return found.group(1)


INSTRUCTOR = every_parser(cli.build_parser())


@pytest.mark.parametrize("parser", INSTRUCTOR, ids=lambda parser: parser.prog)
def test_each_help_of_modlab_names_a_page_of_the_repository(parser):
    assert (ROOT / named_page(parser)).is_file()


def test_each_command_names_its_own_page_and_the_program_readme():
    pages = {parser.prog: named_page(parser) for parser in INSTRUCTOR}
    assert pages["modlab"] == "README.md"
    assert pages["modlab grade"] == pages["modlab merge"] == "docs/class.md"
    assert pages["modlab nbgrader"] == pages["modlab nbgrader init"] == "docs/nbgrader.md"
    assert pages["modlab check"] == "docs/students.md"
    assert len(set(pages.values())) > 5


def test_each_help_of_the_kits_modlab_names_the_kits_readme():
    """The kit's README.md is there (tests/test_release.py reads it, and runs the kit's --help)."""
    parsers = every_parser(student_cli.build_parser())
    assert len(parsers) == 6  # the program and check, status, submit, doctor, env
    assert {named_page(parser) for parser in parsers} == {"README.md"}


def test_a_help_keeps_its_examples_before_the_page():
    grade = next(parser for parser in INSTRUCTOR if parser.prog == "modlab grade")
    help_text = grade.format_help()
    assert help_text.index("examples:") < help_text.index("More: docs/class.md")
