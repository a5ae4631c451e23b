"""``modlab roster``: check the class roster and plan the shards of a CI matrix."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from modlab.errors import UsageError

DOCS = "docs/ci.md"  # what every --help of this command names for more
EPILOG_ROSTER = """\
examples:
  modlab roster roster.yaml --shards 8            # prints [1, 2, ..., 8]: the shard numbers of a CI matrix
  echo "shards=$(modlab roster roster.yaml --shards 8)" >> "$GITHUB_OUTPUT"
  modlab roster roster.yaml --shards 4 --exact    # fails unless all 4 shards hold students (GitLab's parallel: 4)

The roster (roster.yaml, in the course repository) lists each student's repository:
  students:
    - student: ada
      repository: course-org/mynn-ada
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "roster", help="check the class roster and print the shard numbers of a CI matrix",
        description="Check a roster of student repositories (see `modlab fetch`) and print, as a JSON "
                    "list, the shard numbers to grade it with: at most --shards, fewer where a shard "
                    "would hold no student (a student's shard is a hash of their name).",
        epilog=EPILOG_ROSTER, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("roster", type=Path, metavar="ROSTER", help="the roster file, e.g. roster.yaml")
    sub.add_argument("--shards", type=int, default=1, metavar="N", help="the most shards wanted (default: 1)")
    sub.add_argument("--exact", action="store_true",
                     help="fail unless exactly N shards can be used (for a fixed matrix, e.g. GitLab's parallel: N)")
    sub.set_defaults(run=run_roster)


def run_roster(args) -> int:
    from modlab.instructor.ci.roster import RosterError, load_roster, usable_shards

    if args.shards < 1:
        raise UsageError(f"--shards {args.shards}: expected at least 1")
    try:
        roster = load_roster(args.roster)
    except RosterError as problem:
        raise UsageError(str(problem)) from None
    count = usable_shards(roster, args.shards)
    if args.exact and count != args.shards:
        raise UsageError(f"{args.roster}: with {args.shards} shards one would hold no student of "
                         f"{len(roster.entries)}; use {count}")
    print(f"{args.roster}: {len(roster.entries)} students in {count} shard{'s' if count > 1 else ''}", file=sys.stderr)
    print(json.dumps(list(range(1, count + 1))))
    return 0
