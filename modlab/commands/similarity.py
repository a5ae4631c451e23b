"""``modlab similarity``: pairs of students whose code for an exercise is alike."""
from __future__ import annotations

import argparse
from pathlib import Path

from modlab.course import Course, load_course
from modlab.errors import UsageError

from .options import usable_cores

DOCS = "docs/class.md"  # what every --help of this command names for more
PROBLEMS_SHOWN = 10  # per exercise on the terminal; the index page lists them all
SIMILARITY = "similarity"  # the pages' folder, in the report's

EPILOG_SIMILARITY = """\
examples:
  modlab similarity class/                         # every exercise; pages in similarity/
  modlab similarity course/submitted/ -e 03 -e 06  # nbgrader's layout, two exercises
  modlab similarity class/ --threshold 0.7 --out /tmp/similar
  modlab report results --class class/             # the same pairs, as a section of the report

what is compared:
  For each exercise, the files course.yaml lists for it, of every pair of students. The code
  is tokenised with copydetect: every name becomes one letter and every string another, and
  comments and layout are dropped, so renamed variables, reformatting, reordered functions and
  added comments do not hide a copy. Fingerprints (every 25 characters of tokenised code) found
  in the starter code, i.e. the stubs `modlab release` hands out and every python block of
  lessons/*.md, are removed first: starter code never counts as copying. A student with fewer
  than 100 fingerprints of their own (about five lines: the stub, or the stub and a line) is
  not compared.

the score and the threshold:
  "A in B" is the part of A's own fingerprints found in B's (MOSS's containment), both ways.
  A pair is flagged when either way reaches the threshold. By default the threshold is chosen
  per exercise from its pairs: median + 3.5 x MAD / 0.6745 (a modified z-score of 3.5, with
  the MAD measured below the median, where copies cannot widen it), kept within 50%..90%;
  with fewer than 10 pairs, 50%. --threshold sets one for every exercise.

output:
  A table per exercise on the terminal; DIR/index.html with the flagged pairs per exercise, a
  line for each file that could not be read (missing, not UTF-8, unreadable), and
  DIR/pairs/<exercise>-<rank>.html, both students' code side by side with what they share
  marked. A flag is a reason to look at the code, not proof of copying.
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "similarity", help="find pairs of students whose code is alike, starter code excluded",
        description="Compare every pair of students of a class, exercise by exercise, and list the pairs "
                    "whose own code (starter code excluded) is alike: a table on the terminal, and HTML "
                    "pages with the code of each pair side by side.",
        epilog=EPILOG_SIMILARITY, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("path", type=Path, metavar="CLASS",
                     help="the class folder `modlab grade CLASS` takes: CLASS/<student>/<package>/, "
                          "or nbgrader's submitted/<student>/<NN_slug>/")
    sub.add_argument("--exercise", "-e", action="append", metavar="ID",
                     help="compare only this exercise (repeatable; default: all)")
    sub.add_argument("--threshold", type=float, metavar="X",
                     help="flag pairs scoring X or more, from 0 to 1 (default: chosen per exercise from its pairs)")
    sub.add_argument("--out", type=Path, default=Path("similarity"), metavar="DIR",
                     help="where to write the pages (default: similarity)")
    sub.add_argument("--jobs", "-j", type=int, default=usable_cores(), metavar="N",
                     help="tokenise files in N processes (default: one per usable core)")
    sub.set_defaults(run=run_similarity)


def run_similarity(args) -> int:
    course = load_course(args.course)
    if args.threshold is not None and not 0 <= args.threshold <= 1:
        raise UsageError(f"--threshold {args.threshold:g}: expected a share from 0 to 1, e.g. 0.7")
    exercises = [course.exercise(e) for e in args.exercise] if args.exercise else None
    refuse_out_in_class(args.out, args.path)
    results = class_similarity(course, args.path, exercises, args.threshold, args.jobs)
    from modlab.instructor.similarity import write_pages

    index = write_pages(course, results, args.out)
    for result in results:
        print(exercise_table(result))
    flagged = sum(len(r.flagged) for r in results)
    print(f"{flagged} pairs flagged; wrote {index}" + (f" and a page per pair in {index.parent / 'pairs'}/" if flagged else ""))
    return 0


def similarity_section(course: Course, results, class_folder: Path, out: Path) -> str:
    """The "Similar code" section of ``modlab report --class CLASS``: the exercises graded
    in ``results``, compared as ``modlab similarity`` does, their pages in ``out/similarity/``."""
    from modlab.instructor.similarity import report_section, write_pages

    graded = {exercise.id for result in results for exercise in result.exercises}
    found = class_similarity(course, class_folder, [e for e in course.exercises if e.id in graded], None,
                             usable_cores())
    write_pages(course, found, out / SIMILARITY)
    return report_section(found, SIMILARITY)


def class_similarity(course: Course, path: Path, exercises, threshold: float | None, jobs: int):
    """:func:`modlab.instructor.similarity.compare_class`, with bad input as one line (:class:`UsageError`)."""
    from modlab.batch.layout import is_class_folder

    if not path.is_dir():
        raise UsageError(f"{path}: no such class folder")
    if not is_class_folder(path, course):
        raise UsageError(f"{path}: holds one {course.package}/ package, not a class of student folders")
    if jobs < 1:
        raise UsageError(f"--jobs {jobs}: expected at least 1")
    try:
        from modlab.instructor.similarity import compare_class
    except ImportError as missing:
        raise UsageError(f"similarity needs copydetect: pip install 'modlab[instructor]' ({missing})") from None
    try:
        return compare_class(course, path, exercises, threshold, jobs)
    except ValueError as problem:
        raise UsageError(str(problem)) from None


def refuse_out_in_class(out: Path, path: Path) -> None:
    """Pages written among the student folders would pass for a student the next time."""
    from modlab.batch.layout import class_root

    if path.is_dir() and out.resolve().is_relative_to(class_root(path).resolve()):
        raise UsageError(f"--out {out} is among the student folders of {path}, where it would pass for one")


def exercise_table(result) -> str:
    """One exercise on the terminal: what was compared, the threshold, the flagged pairs, the problems."""
    from modlab.formats.terminal import table
    from modlab.instructor.similarity.pages import summary
    from modlab.instructor.similarity.threshold import percent

    lines = [f"{result.exercise.id} {result.exercise.title}: {summary(result)}",
             f"   threshold {percent(result.threshold.value)}: {result.threshold.rule}"]
    if result.flagged:
        rows = [(p.first, p.second, percent(p.first_in_second), percent(p.second_in_first)) for p in result.flagged]
        lines += ["   " + line for line in table(("A", "B", "A in B", "B in A"), rows, right=(2, 3)).split("\n")]
    else:
        lines.append("   no pair at or above the threshold")
    lines += [f"   {problem}" for problem in result.problems[:PROBLEMS_SHOWN]]
    if len(result.problems) > PROBLEMS_SHOWN:
        lines.append(f"   ... and {len(result.problems) - PROBLEMS_SHOWN} more files not read (all in the index page)")
    return "\n".join(lines)
