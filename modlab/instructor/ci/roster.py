"""The roster: which repository holds which student's work.

A course that grades in CI keeps ``roster.yaml`` in the course repository
(never in a student's). It names each student's repository, and may pin the
commit to grade::

    host: https://github.com           # where owner/name repositories live (the default)
    students:
      - student: ada
        repository: course-org/mynn-ada
      - student: bob
        repository: course-org/mynn-bob
        commit: 3f2a9c0d5e6b7a8c9d0e1f2a3b4c5d6e7f8a9b0c   # grade exactly this commit

A repository is ``owner/name`` on ``host`` (GitLab's nested groups too:
``group/sub/name``), or a whole ``https://`` or ``file://`` address. The
student's name becomes their folder and their row in the gradebook.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from modlab.batch.layout import NBGRADER_SUBMITTED, shard_of

STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+$")
ADDRESS = re.compile(r"^(https|file)://[^\s]+$")
COMMIT = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})$")
DEFAULT_HOST = "https://github.com"


class RosterError(ValueError):
    """``roster.yaml`` is missing, unreadable or malformed."""


@dataclass(frozen=True)
class Entry:
    """One student's repository, and the commit to grade if it is pinned."""

    student: str
    repository: str
    commit: str = ""


@dataclass(frozen=True)
class Roster:
    host: str
    entries: tuple[Entry, ...]

    @property
    def students(self) -> list[str]:
        return [e.student for e in self.entries]

    def address(self, entry: Entry) -> str:
        """Where git fetches the entry from.

        Example:
            >>> Roster("https://github.com", ()).address(Entry("ada", "org/mynn-ada"))
            'https://github.com/org/mynn-ada.git'
        """
        if "://" in entry.repository:
            return entry.repository
        return f"{self.host}/{entry.repository}.git"

    def in_shard(self, index: int, count: int) -> list[Entry]:
        """The entries shard ``index`` of ``count`` grades, as ``modlab grade --shard`` cuts them."""
        return [e for e in self.entries if shard_of(e.student, count) == index]


def load_roster(path: Path | str) -> Roster:
    """Read and validate a roster file.

    Raises:
        RosterError: the file is missing, not YAML, or an entry is malformed
            (with the key at fault, e.g. ``roster.yaml: students[2].repository: ...``).
    """
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as problem:
        raise RosterError(f"{path}: cannot read the roster ({problem.strerror})") from None
    except yaml.YAMLError as problem:
        raise RosterError(f"{path}: not valid YAML ({problem})") from None
    return parse_roster(raw, path.name)


def parse_roster(raw, where: str = "roster.yaml") -> Roster:
    """The roster held in ``raw`` (parsed YAML); see :func:`load_roster`."""
    if not isinstance(raw, dict) or not isinstance(raw.get("students"), list) or not raw["students"]:
        raise RosterError(f"{where}: expected a mapping with a non-empty list `students:`")
    unknown = sorted(set(raw) - {"host", "students"})
    if unknown:
        raise RosterError(f"{where}: unknown key {unknown[0]!r} (expected host, students)")
    host = str(raw.get("host", DEFAULT_HOST)).rstrip("/")
    if not host.startswith("https://") or not ADDRESS.match(host):
        raise RosterError(f"{where}: host: expected an https:// address, got {raw.get('host')!r}")
    entries = tuple(_parse_entry(item, f"{where}: students[{n}]") for n, item in enumerate(raw["students"]))
    seen: set[str] = set()
    for entry in entries:
        if entry.student in seen:
            raise RosterError(f"{where}: student {entry.student!r} is listed twice")
        seen.add(entry.student)
    return Roster(host, entries)


def _parse_entry(item, where: str) -> Entry:
    if not isinstance(item, dict):
        raise RosterError(f"{where}: expected a mapping with student and repository")
    unknown = sorted(set(item) - {"student", "repository", "commit"})
    if unknown:
        raise RosterError(f"{where}: unknown key {unknown[0]!r} (expected student, repository, commit)")
    student, repository, commit = (str(item.get(key, "")) for key in ("student", "repository", "commit"))
    if not STUDENT.match(student) or student == NBGRADER_SUBMITTED:
        raise RosterError(f"{where}.student: expected a folder name (letters, digits, . _ -), got {student!r}")
    if not (REPOSITORY.match(repository) or ADDRESS.match(repository)) or {".", ".."} & set(repository.split("/")):
        raise RosterError(f"{where}.repository: expected owner/name or an https:// or file:// address, "
                          f"got {repository!r}")
    if commit and not COMMIT.match(commit):
        raise RosterError(f"{where}.commit: expected a full commit hash (40 hex digits), got {commit!r}")
    return Entry(student, repository, commit)


def usable_shards(roster: Roster, wanted: int) -> int:
    """The most shards, at most ``wanted``, of which none is empty.

    A student's shard is a hash of their name (so nobody moves when the class
    changes), which leaves some shards empty when there are few students per
    shard; an empty shard has nothing to grade and would fail its job.

    Example:
        >>> usable_shards(parse_roster({"students": [{"student": "ada", "repository": "o/a"}]}), 4)
        1
    """
    for count in range(min(wanted, len(roster.entries)), 1, -1):
        if all(roster.in_shard(index, count) for index in range(1, count + 1)):
            return count
    return 1
