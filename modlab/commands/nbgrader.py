"""``modlab nbgrader``: grade the course with nbgrader, scores from the trusted graders."""
from __future__ import annotations

import argparse
from pathlib import Path

from modlab.course import load_course
from modlab.errors import UsageError

DOCS = "docs/nbgrader.md"  # what every --help of this command names for more
EPILOG_INIT = """\
examples:
  modlab nbgrader init ~/course                          # exchange: course.yaml's, else ~/course/exchange
  modlab nbgrader init ~/course --exchange /srv/nbgrader/exchange --late-penalty zero
then, in ~/course, nbgrader's own commands:
  nbgrader generate_assignment NN_slug && nbgrader release_assignment NN_slug
  nbgrader collect NN_slug && nbgrader autograde NN_slug
  nbgrader generate_feedback NN_slug && nbgrader release_feedback NN_slug
  nbgrader export --to grades.csv
"""

EPILOG_GRADE = """\
examples:
  modlab nbgrader grade NN                  # every collected submission of NN_slug
  modlab nbgrader grade 02 --student ada --force
  modlab nbgrader grade 03 --no-execute     # scores only, without running the notebooks
"""


def register(commands) -> None:
    sub = commands.add_parser("nbgrader", help="set up and grade the course with nbgrader",
                              description="Grade with nbgrader's own commands; modlab writes the course "
                                          "directory and plugs its trusted graders into autograde.")
    actions = sub.add_subparsers(dest="action", metavar="ACTION", required=True)

    init = actions.add_parser(
        "init", help="write an nbgrader course directory from course.yaml",
        description="Write COURSE_DIR/nbgrader_config.py, a gradebook with one assignment per exercise "
                    "(with its due date), and source/NN_slug/ holding the exercise's notebook (with one "
                    "locked, graded score cell) and its student files. Rerunning it rewrites the config "
                    "and source/ and keeps grades and submissions.",
        epilog=EPILOG_INIT, formatter_class=argparse.RawDescriptionHelpFormatter)
    init.add_argument("course_dir", type=Path, metavar="COURSE_DIR")
    init.add_argument("--exchange", metavar="DIR",
                      help="nbgrader's exchange folder (default: course.yaml's `exchange`, else COURSE_DIR/exchange)")
    init.add_argument("--late-penalty", choices=("none", "zero"), default="none",
                      help="nbgrader's penalty for a submission after its due date (default: none)")
    init.add_argument("--cell-timeout", type=int, default=60, metavar="S",
                      help="seconds a notebook cell may run during autograde (default: 60)")
    init.add_argument("--force", action="store_true", help="rewrite an existing course directory's config and source/")
    init.set_defaults(run=run_init)

    grade = actions.add_parser(
        "grade", help="autograde an exercise's collected submissions, with progress",
        description="Run nbgrader autograde on each collected submission of the exercise, one at a time, "
                    "and print each one's score. Exits 1 if any submission could not be graded.",
        epilog=EPILOG_GRADE, formatter_class=argparse.RawDescriptionHelpFormatter)
    grade.add_argument("exercise", metavar="EXERCISE", help="exercise id (NN) or assignment name (NN_slug)")
    grade.add_argument("--course-dir", type=Path, default=Path("."), metavar="DIR",
                       help="the nbgrader course directory (default: the current folder)")
    grade.add_argument("--student", action="append", metavar="ID", help="grade only this student (repeatable)")
    grade.add_argument("--force", action="store_true", help="grade again submissions graded before")
    grade.add_argument("--no-execute", action="store_true",
                       help="do not run the notebooks (scores never depend on them)")
    grade.add_argument("--verbose", action="store_true", help="show nbgrader's full log")
    grade.set_defaults(run=run_grade)


def run_init(args) -> int:
    coursedir = _instructor_module("coursedir")
    course = load_course(args.course)
    folder = args.course_dir.resolve()
    if (folder / coursedir.CONFIG_NAME).exists() and not args.force:
        raise UsageError(f"{folder / coursedir.CONFIG_NAME} exists; pass --force to rewrite it and source/ "
                         f"(grades and submissions are kept)")
    exchange = args.exchange or course.exchange or str(folder / "exchange")
    settings = coursedir.Settings(exchange=str(Path(exchange).expanduser().resolve()),
                                  late_penalty=args.late_penalty, cell_timeout=args.cell_timeout)
    written = coursedir.write_course_dir(course, folder, settings)
    print(f"wrote {folder}: {coursedir.CONFIG_NAME}, gradebook.db and source/ "
          f"({len(course.exercises)} assignments, {len(written) - 1} files)")
    print(f"exchange: {settings.exchange}\nnext, in {folder}: nbgrader generate_assignment {course.exercises[0].name}")
    return 0


def run_grade(args) -> int:
    args.relaunch()  # one torch for this process and its workers' zygote
    autograde = _instructor_module("autograde")
    folder = args.course_dir.resolve()
    if not (folder / "nbgrader_config.py").is_file():
        raise UsageError(f"{folder}: no nbgrader_config.py; run `modlab nbgrader init {args.course_dir}` first")
    assignment = _assignment(folder, args.exercise)
    students = args.student or autograde.submitted_students(folder, assignment)
    if not students:
        raise UsageError(f"no collected submissions of {assignment}; run `nbgrader collect {assignment}` first")
    extra = [flag for flag, wanted in (("--force", args.force), ("--no-execute", args.no_execute)) if wanted]
    extra.append("--log-level=INFO" if args.verbose else "--log-level=WARN")
    width, total = max(len(s) for s in students), len(students)
    done = iter(range(1, total + 1))

    def show(outcome) -> None:
        if outcome.problem:
            result = f"NOT GRADED: {outcome.problem}"
        else:
            result = f"{outcome.score - outcome.penalty:7.2f} / {outcome.max_score:g}"
            if outcome.penalty:
                result += f" (late: {outcome.score:g} minus {outcome.penalty:g})"
        print(f"[{next(done)}/{total}] {outcome.student:<{width}}  {result}  {outcome.seconds:5.1f} s", flush=True)

    outcomes = autograde.autograde(folder, assignment, students, extra, progress=show)
    failed = [o.student for o in outcomes if o.problem]
    seconds = sum(o.seconds for o in outcomes)
    print(f"{assignment}: {len(outcomes) - len(failed)} graded, {len(failed)} not graded, "
          f"{seconds / len(outcomes):.1f} s per submission" + (f"; not graded: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def _assignment(folder: Path, exercise: str) -> str:
    """The assignment of an exercise id (``1``, ``01``) or name, from ``source/``."""
    known = sorted(p.name for p in (folder / "source").glob("*") if p.is_dir())
    for name in known:
        if exercise in (name, name.split("_")[0], name.split("_")[0].lstrip("0")):
            return name
    raise UsageError(f"no assignment {exercise!r} in {folder / 'source'}; known: {', '.join(known) or 'none'}")


def _instructor_module(name: str):
    """``modlab.instructor.nbgrader.<name>``, which needs the instructor extras."""
    import importlib

    try:
        return importlib.import_module(f"modlab.instructor.nbgrader.{name}")
    except ModuleNotFoundError as missing:
        if missing.name and missing.name.split(".")[0] in ("nbgrader", "nbformat", "nbclient", "nbconvert"):
            raise UsageError(f"needs {missing.name}: pip install 'modlab[instructor]'") from None
        raise
