"""``modlab merge``: combine the results of a class graded in shards."""
from __future__ import annotations

import argparse
from pathlib import Path

from modlab.cli import UsageError
from modlab.course import load_course

EPILOG_MERGE = """\
examples:
  modlab grade submitted/ --shard 1/4 --out results-1     # ... one CI job per shard, then:
  modlab merge results-1 results-2 results-3 results-4 --out results
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
    sub.set_defaults(run=run_merge)


def run_merge(args) -> int:
    from modlab.runner.batch import GRADEBOOK, merge_results

    course = load_course(args.course)
    if any(shard.resolve() == args.out.resolve() for shard in args.shards):
        raise UsageError(f"--out {args.out} is one of the shards; merge into a new folder")
    try:
        records = merge_results(course, args.shards, args.out)
    except ValueError as problem:
        raise UsageError(str(problem)) from None
    failed = sum(bool(r.failure) for r in records)
    print(f"merged {len(args.shards)} shards: {len(records)} students; gradebook {args.out / GRADEBOOK}"
          + (f"; grading FAILED for {failed}, grade their shards again" if failed else ""))
    return 1 if failed else 0
