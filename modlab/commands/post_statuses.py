"""``modlab post-statuses``: post each student's score on their graded commit (GitHub)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from modlab.errors import UsageError

DOCS = "docs/ci.md"  # what every --help of this command names for more
EPILOG_STATUSES = """\
examples:
  MODLAB_STATUS_TOKEN=... modlab post-statuses results   # of `modlab merge`, with `modlab fetch`'s fetch.json

The token needs "Commit statuses: Read and write" on the student repositories
and nothing else. A status says the score only, never the feedback.
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "post-statuses", help="post each student's score on their graded commit, as a GitHub commit status",
        description="Post a commit status (context modlab/grade) with each student's score on the commit "
                    "`modlab fetch` fetched from their repository. Reads the token from MODLAB_STATUS_TOKEN.",
        epilog=EPILOG_STATUSES, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("results", type=Path, metavar="RESULTS",
                     help="a results folder of `modlab merge` (or `modlab grade`) holding fetch.json")
    sub.add_argument("--api", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"), metavar="URL",
                     help="GitHub's REST API (default: $GITHUB_API_URL, else https://api.github.com)")
    sub.set_defaults(run=run_statuses)


def run_statuses(args) -> int:
    from modlab.instructor.ci.commit_status import TOKEN_VARIABLE, post, statuses

    token = os.environ.get(TOKEN_VARIABLE, "")
    if not token:
        raise UsageError(f"no token: set {TOKEN_VARIABLE} "
                         f"(Commit statuses: Read and write on the student repositories)")
    to_post = statuses(args.results)
    refused = []
    for status in to_post:
        why = post(status, token, args.api)
        if why:
            refused.append(status.student)
            print(f"{status.student}: status NOT posted on {status.repository}@{status.commit[:12]}: {why}",
                  file=sys.stderr)
    print(f"posted {len(to_post) - len(refused)} of {len(to_post)} commit statuses")
    return 1 if refused else 0
