"""``modlab build``: generate the student stubs from the reference."""
from __future__ import annotations

import argparse

from modlab.course import load_course

DOCS = "docs/AUTHORING.md"  # what every --help of this command names for more


def register(commands) -> None:
    sub = commands.add_parser(
        "build", help="generate exercises/ (student stubs and lesson notebooks) and docs/misconceptions.md",
        description="Generate the student starter kit: every solution region of solutions/<package>/ "
                    "becomes `raise NotImplementedError(\"exercise NN: name\")`, signatures and "
                    "docstrings kept; every lesson lessons/NN_slug.md becomes exercises/NN_slug.ipynb. "
                    "Also writes docs/misconceptions.md, the misconception catalog with the checks that "
                    "name each entry.",
        epilog="examples:\n  modlab build\n  modlab build --check     # exit 1 if exercises/ is stale\n"
               "  modlab build --measure   # grade every labelled bug first (minutes)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("--check", action="store_true",
                     help="only report generated files (exercises/, docs/misconceptions.md) that are out of date")
    sub.add_argument("--measure", action="store_true",
                     help="first grade every labelled bug (graders/*/variants.yaml and student_bugs.yaml) and "
                          "record the checks it fails and the hints it gets in graders/*/measured.yaml, which "
                          "docs/misconceptions.md reads for each entry's recall and precision")
    sub.set_defaults(run=run_build)


def run_build(args) -> int:
    from modlab.errors import UsageError
    from modlab.instructor.build import BuildError, build_exercises, stale_exercises
    from modlab.instructor.catalog_doc import DOC, catalog_doc_is_stale, write_catalog_doc
    from modlab.instructor.notebooks import build_notebooks, stale_notebooks

    course = load_course(args.course)
    try:
        if args.check:
            stale = [f"exercises/{course.package}/{name}" for name in stale_exercises(course)]
            stale += [f"exercises/{name}" for name in stale_notebooks(course)]
            stale += [str(DOC)] if catalog_doc_is_stale(course) else []
            for name in stale:
                print(f"{name} differs from what `modlab build` generates")
            return 1 if stale else 0
        if args.measure:
            for path in measure_hints(course):
                print(f"wrote {path.relative_to(course.root)}")
        for path in build_exercises(course) + build_notebooks(course) + [write_catalog_doc(course)]:
            print(f"wrote {path.relative_to(course.root)}")
    except BuildError as problem:
        raise UsageError(str(problem)) from None
    return 0


def measure_hints(course) -> list:
    """Grade every labelled bug, showing the progress."""
    from modlab.engine import process_memory
    from modlab.formats.terminal import Progress
    from modlab.instructor.measured import labelled_bugs, measure

    cuda = process_memory().oracle(course).cuda
    with Progress("grading labelled bugs", len(list(labelled_bugs(course)))) as progress:
        return measure(course, cuda, progress=progress.advance)
