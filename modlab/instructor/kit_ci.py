"""The CI files `modlab release` puts into the student kit: public checks, nothing else.

A student owns every file of their repository, these included, and may edit
them at will. So they hold nothing worth stealing and reach nothing worth
using: no secret, no token but the repository's own read-only one, a
GitHub-hosted runner (never the course's self-hosted GPU runner), and the
public checks the kit already holds. Grading itself runs from the course
repository, which reads the student's repository as data (see
docs/ci.md).
"""
from __future__ import annotations

import shlex

from modlab.course import Course
from modlab.instructor.student_readme import install_command

GITHUB_WORKFLOW = ".github/workflows/check.yml"
GITLAB_PIPELINE = ".gitlab-ci.yml"

# One version of each action, pinned by commit (a tag can be moved; a commit cannot).
# The course's own workflows pin the same commits; tests/test_ci.py holds them to it.
CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7.0.1"
SETUP_PYTHON = "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97  # v7.0.0"
PYTHON = "3.11"

GITHUB_TEMPLATE = """\
# Public checks: runs `modlab check` for every exercise on each push, and puts
# the results in the job summary. Written by `modlab release`.
#
# It holds no secret and needs none: grading runs from the course's repository,
# which reads this one as data. It runs on a GitHub-hosted runner with a
# read-only token for this repository alone.
name: public checks

on:
  push:
  workflow_dispatch:

permissions:
  contents: read

concurrency:  # a newer push replaces the checks of an older one
  group: public-checks-${{{{ github.ref }}}}
  cancel-in-progress: true

jobs:
  check:
    name: public checks
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - name: Check out this repository
        uses: {checkout}
        with:
          persist-credentials: false
      - name: Set up Python
        uses: {setup_python}
        with:
          python-version: "{python}"
      - name: Install the kit's modlab, pinned to the course's versions, with torch for the CPU
        run: {install}
      - name: Public checks of every exercise
        run: |
{script}
"""

GITLAB_TEMPLATE = """\
# Public checks: runs `modlab check` for every exercise on each push. Written by
# `modlab release`. It holds no secret and needs none: grading runs from the
# course's project, which reads this one as data.
public-checks:
  image: python:{python}
  timeout: 30 minutes
  script:
    - {install}
    - |
{script}
"""


def kit_ci_files(course: Course) -> dict[str, str]:
    """The kit's CI files, ``{relative path: text}``: a GitHub workflow and a
    GitLab pipeline, each running the public checks of every exercise.

    Example:
        >>> sorted(kit_ci_files(load_course("course.yaml")))  # doctest: +SKIP
        ['.github/workflows/check.yml', '.gitlab-ci.yml']
    """
    return {
        GITHUB_WORKFLOW: GITHUB_TEMPLATE.format(checkout=CHECKOUT, setup_python=SETUP_PYTHON, python=PYTHON,
                                                install=install_command("."),
                                                script=_indent(check_script(course, summary=True), 10)),
        GITLAB_PIPELINE: GITLAB_TEMPLATE.format(python=PYTHON, install=install_command("."),
                                                script=_indent(check_script(course), 6)),
    }


def check_script(course: Course, summary: bool = False) -> str:
    """The shell script that checks every exercise and fails only when a check
    could not run (exit status 2: a SyntaxError, a renamed file): failed
    checks of unfinished exercises are the normal state of a course, not an
    error. With ``summary``, GitHub's job summary gets the `modlab status`
    table and each exercise's checks, folded under their verdict."""
    ids = " ".join(shlex.quote(e.id) for e in course.exercises)
    lines = ['logs=$(mktemp -d); broken=""',
             f"for id in {ids}; do",
             '  code=0',
             '  modlab check "$id" > "$logs/$id.txt" 2>&1 || code=$?',
             '  cat "$logs/$id.txt"',
             '  if [ "$code" -ge 2 ]; then broken="$broken $id"; fi',
             'done',
             'modlab status | tee "$logs/status.txt"']
    if summary:
        lines += ['{',
                  "  echo '```text'; cat \"$logs/status.txt\"; echo '```'",
                  f'  for id in {ids}; do',
                  '    echo "<details><summary>$id · $(tail -n 1 "$logs/$id.txt")</summary>"',
                  "    echo; echo '```text'; cat \"$logs/$id.txt\"; echo '```'; echo '</details>'",
                  '  done',
                  '} >> "$GITHUB_STEP_SUMMARY"']
    lines.append('if [ -n "$broken" ]; then echo "the checks of exercise$broken could not run: see above"; exit 1; fi')
    return "\n".join(lines)


def _indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.splitlines())
