"""``modlab merge``: combine the results of a class graded in shards."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from modlab.course import load_course
from modlab.errors import UsageError

DOCS = "docs/class.md"  # what every --help of this command names for more
EPILOG_MERGE = """\
examples:
  modlab grade submitted/ --shard 1/4 --out results-1     # ... one CI job per shard, then:
  modlab merge results-1 results-2 results-3 results-4 --out results
  modlab merge shards/* --out results --json results/results.json --junit results/junit.xml \
      --summary results/summary.md --gradescope-dir results/gradescope   # every format, as CI keeps them
  modlab report results
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "merge", help="combine the results folders of the shards of one class",
        description="Combine the results folders written by `modlab grade --shard I/N` into one, "
                    "with one gradebook, identical to grading the class in one go. Refuses an "
                    "incomplete set of shards and shards graded with different graders or options.",
        epilog=EPILOG_MERGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("shards", type=Path, nargs="+", metavar="RESULTS", help="one results folder per shard")
    sub.add_argument("--out", type=Path, required=True, metavar="DIR", help="the merged results folder")
    add_class_output_options(sub)
    sub.set_defaults(run=run_merge, gradescope=None)  # write_outputs' one-submission file: per student here


def add_class_output_options(sub) -> None:
    group = sub.add_argument_group("result files of the whole class")
    group.add_argument("--json", type=Path, metavar="FILE", help="write every student's results as JSON")
    group.add_argument("--junit", type=Path, metavar="FILE",
                       help="write JUnit XML, one testcase per grader test of each student")
    group.add_argument("--summary", type=Path, metavar="FILE",
                       help="write the score tables as Markdown (e.g. for $GITHUB_STEP_SUMMARY)")
    group.add_argument("--gradescope-dir", type=Path, metavar="DIR",
                       help="write Gradescope's results.json of each student as DIR/<student>.json")


def run_merge(args) -> int:
    from modlab.batch.merge import merge_results
    from modlab.batch.store import GRADEBOOK
    from modlab.records import GRADING_FAILED

    course = load_course(args.course)
    if any(shard.resolve() == args.out.resolve() for shard in args.shards):
        raise UsageError(f"--out {args.out} is one of the shards; merge into a new folder")
    try:
        records = merge_results(course, args.shards, args.out)
    except ValueError as problem:
        raise UsageError(str(problem)) from None
    write_class_outputs(args, course, [r.result for r in records])
    failed = sum(bool(r.failure) for r in records)
    print(f"merged {len(args.shards)} shards: {len(records)} students; gradebook {args.out / GRADEBOOK}"
          + (f"; {GRADING_FAILED} for {failed}, grade their shards again" if failed else ""))
    return 1 if failed else 0


def write_class_outputs(args, course, results) -> None:
    """The result files asked for: those of `modlab grade`, and one Gradescope file per student."""
    from modlab.formats.gradescope import gradescope_results
    from modlab.formats.jsonfile import write_atomically
    from modlab.formats.outputs import write_outputs

    write_outputs(args, course, results)
    if args.gradescope_dir:
        for result in results:
            write_atomically(args.gradescope_dir / f"{result.student}.json",
                             json.dumps(gradescope_results(result), indent=2) + "\n")
