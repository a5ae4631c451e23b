"""Post each student's score on the commit that was graded, as a GitHub commit status.

Optional, and off unless the course asks for it. The token
(``MODLAB_STATUS_TOKEN``) needs "Commit statuses: Read and write" on the
student repositories (a fine-grained token or a GitHub App; a classic token:
``repo:status``), and nothing else. A status carries the score alone: the
feedback, which names hidden checks, stays in the course's results.

A student can set a status of the same name on their own commit, so a
status is a courtesy to the student; the course's gradebook is the grade.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from modlab.instructor.ci.fetch import RECORD
from modlab.instructor.ci.roster import REPOSITORY
from modlab.records import GRADING_FAILED

CONTEXT = "modlab/grade"
TOKEN_VARIABLE = "MODLAB_STATUS_TOKEN"
DEFAULT_API = "https://api.github.com"
TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Status:
    """One commit status to post."""

    student: str
    repository: str  # owner/name
    commit: str
    state: str       # success, or error when grading itself failed
    description: str

    def body(self) -> bytes:
        return json.dumps({"state": self.state, "description": self.description, "context": CONTEXT}).encode()


def statuses(results: Path) -> list[Status]:
    """The statuses to post for a merged results folder: one per student
    whose repository (``owner/name``) was fetched and graded.

    Args:
        results: the folder of `modlab merge`, holding ``students/`` and
            the ``fetch.json`` of `modlab fetch`.

    Raises:
        FileNotFoundError: the folder holds no ``fetch.json``.
    """
    fetched = json.loads((Path(results) / RECORD).read_text(encoding="utf-8"))["fetched"]
    found = []
    for item in fetched:
        record_path = Path(results) / "students" / f"{item['student']}.json"
        if not item["commit"] or not REPOSITORY.match(item["repository"]) or not record_path.is_file():
            continue
        record = json.loads(record_path.read_text(encoding="utf-8"))
        score = f"{record['score']:.2f} of {record['max_score']:g} points"
        if record.get("failure"):
            found.append(Status(item["student"], item["repository"], item["commit"], "error",
                                f"{GRADING_FAILED}, to be graded again ({score} so far)"))
        else:
            found.append(Status(item["student"], item["repository"], item["commit"], "success", score))
    return found


def post(status: Status, token: str, api: str = DEFAULT_API) -> str:
    """Post one status; "" when it was accepted, else why not.

    Example:
        >>> post(Status("ada", "org/mynn-ada", "3f2a...", "success", "42.00 of 100 points"), token)  # doctest: +SKIP
        ''
    """
    request = urllib.request.Request(
        f"{api.rstrip('/')}/repos/{status.repository}/statuses/{status.commit}", data=status.body(), method="POST",
        headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
                 "Content-Type": "application/json", "X-GitHub-Api-Version": "2022-11-28"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S):
            return ""
    except urllib.error.HTTPError as refused:
        return f"HTTP {refused.code} {refused.reason}"
    except OSError as problem:
        return str(problem)
