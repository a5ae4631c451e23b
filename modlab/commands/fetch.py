"""``modlab fetch``: the students' repositories of a roster, as data to grade."""
from __future__ import annotations

import argparse
from pathlib import Path

from modlab.course import load_course
from modlab.errors import UsageError

DOCS = "docs/ci.md"  # what every --help of this command names for more
EPILOG_FETCH = """\
examples:
  modlab fetch roster.yaml --into class                      # every student's newest commit
  modlab fetch roster.yaml --into class --deadline 2026-03-01T23:59:00Z --shard 2/4
  modlab grade class --shard 2/4 --out results               # then grade what was fetched

The token that reads the students' repositories comes from the environment,
MODLAB_FETCH_TOKEN (user name MODLAB_FETCH_USER, default x-access-token), and
is sent only to the roster's host. Exit status: 0 every repository was read,
1 some could not be (each says why; they get no folder, so no silent zero),
2 bad input.
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "fetch", help="fetch the students' repositories of a roster, as plain files to grade",
        description="Fetch each student's repository on the roster (or this shard's) and write the "
                    "plain files of their package into INTO/<student>/, and what was fetched (the "
                    "commit graded, refused entries) into INTO/fetch.json. Nothing is checked out: "
                    "symbolic links, submodules and files over 1 MiB are refused, no filter or hook runs.",
        epilog=EPILOG_FETCH, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("roster", type=Path, metavar="ROSTER", help="the roster file, e.g. roster.yaml")
    sub.add_argument("--into", type=Path, required=True, metavar="DIR",
                     help="the class folder to write (must not exist, or be empty)")
    sub.add_argument("--deadline", default="", metavar="TIME",
                     help="grade each repository's last commit made before this ISO 8601 time, UTC "
                          "unless it names a zone (empty, the default: the newest); a commit pinned in the "
                          "roster wins")
    sub.add_argument("--shard", metavar="I/N", help="fetch only the students of shard I of N, as "
                                                   "`modlab grade --shard I/N` cuts them")
    sub.set_defaults(run=run_fetch)


def run_fetch(args) -> int:
    from modlab.batch.layout import parse_shard
    from modlab.instructor.ci.fetch import fetch_class, parse_deadline
    from modlab.instructor.ci.roster import RosterError, load_roster

    course = load_course(args.course)
    try:
        roster = load_roster(args.roster)
        deadline = parse_deadline(args.deadline)
        shard = parse_shard(args.shard) if args.shard else (1, 1)
        fetched = fetch_class(course, roster, args.into, deadline, shard)
    except (RosterError, ValueError) as problem:
        raise UsageError(str(problem)) from None
    for student in fetched:
        print(student.line())
    failed = [f.student for f in fetched if f.error]
    refused = sum(bool(f.refused) for f in fetched)
    print(f"fetched {len(fetched) - len(failed)} of {len(fetched)} repositories into {args.into}"
          + (f"; {refused} with refused entries" if refused else "")
          + (f"; NOT FETCHED: {', '.join(failed)}: check the roster and the token's access" if failed else ""))
    return 1 if failed else 0
