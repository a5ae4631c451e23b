"""``modlab release OUT``: write the student kit."""
from __future__ import annotations

import argparse
from pathlib import Path

from modlab.course import load_course

DOCS = "docs/students.md"  # what every --help of this command names for more
EPILOG = """\
examples:
  modlab release build/kit        # then zip build/kit, or push it to the students' repository

The kit holds mynn/ stubs, the lesson notebooks, the public graders only, a
student course.yaml, a README with the set-up commands, and the modlab tool.
It never holds solutions or hidden graders.
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "release", help="write the student kit (no solutions, no hidden graders)",
        description="Write the student kit into OUT, a new or empty folder: stubs, notebooks, public "
                    "graders, a student course.yaml and README, and the modlab tool to run checks "
                    "and submit.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("out", type=Path, metavar="OUT", help="the folder to write (must not exist, or be empty)")
    sub.set_defaults(run=run_release)


def run_release(args) -> int:
    from modlab.errors import UsageError
    from modlab.instructor.build import BuildError
    from modlab.instructor.release import ReleaseError, build_release

    course = load_course(args.course)
    print(f"releasing {course.title} into {args.out} ...", flush=True)
    try:
        files = build_release(course, args.out)
    except (BuildError, ReleaseError) as problem:
        raise UsageError(str(problem)) from None
    graders = sum(1 for f in files if f.parts[0] == "graders")
    notebooks = sum(1 for f in files if f.suffix == ".ipynb")
    print(f"wrote {len(files)} files: {notebooks} notebooks, {graders} public grader files, "
          f"{course.package}/ stubs, the modlab tool; the README says what students type")
    return 0
