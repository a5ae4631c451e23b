"""``modlab report``: the instructor report of a graded class."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from modlab.course import load_course
from modlab.errors import UsageError

DOCS = "docs/class.md"  # what every --help of this command names for more
EPILOG_REPORT = """\
examples:
  modlab grade class/ --out results && modlab report results   # writes results/report/report.html
  modlab report class.json --out report/                         # from `modlab grade class/ --json class.json`
  modlab report results --class class/     # and a "Similar code" section, pages in results/report/similarity/
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "report", help="write the instructor report of a graded class (HTML and PNG)",
        description="Write an HTML page with PNG figures: the distribution of scores per exercise, and "
                    "the pass rate of every grader test with the feedback most failures got, so the "
                    "misconceptions most of the class hit stand out.",
        epilog=EPILOG_REPORT, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("results", type=Path, help="a results folder of `modlab grade` or `modlab merge`, "
                                                "or the JSON file of `modlab grade --json`")
    sub.add_argument("--out", type=Path, metavar="DIR", help="where to write it (default: RESULTS/report)")
    sub.add_argument("--class", dest="class_folder", type=Path, metavar="CLASS",
                     help="the class folder that was graded: adds a section of similar code between students "
                          "(as `modlab similarity CLASS`, for the exercises graded), its pages in DIR/similarity/")
    sub.set_defaults(run=run_report)


def run_report(args) -> int:
    try:
        from modlab.instructor.report import write_report
    except ImportError as missing:
        raise UsageError(f"the report needs matplotlib: pip install 'modlab[instructor]' ({missing})") from None
    course = load_course(args.course)
    results, failures = load_results(args.results)
    if not results:
        raise UsageError(f"{args.results}: no graded students to report on")
    out = args.out or (args.results.parent if args.results.is_file() else args.results) / "report"
    sections = ()
    if args.class_folder:
        from .similarity import similarity_section
        sections = (similarity_section(course, results, args.class_folder, out),)
    page = write_report(course, results, out, failures, sections)
    print(f"wrote {page}")
    return 0


def load_results(path: Path):
    """The results and grading failures held in a results folder or a JSON file."""
    from modlab.batch.store import ResultStore
    from modlab.records import SubmissionResult

    try:
        if path.is_dir():
            store = ResultStore(path)
            records = store.records(store.manifest()["students"])
            return [r.result for r in records], {r.student: r.failure for r in records if r.failure}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as problem:
        raise UsageError(f"{path}: {problem}") from None
    return [SubmissionResult.from_json(item) for item in data.get("submissions", [data])], {}
