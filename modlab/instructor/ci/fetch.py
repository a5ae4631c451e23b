"""Fetch students' repositories as data: plain files to grade, never code to run.

The job that fetches holds a token that reads every student's repository,
and the hidden graders lie on its disk; what it fetches was written by
students. So a repository is never checked out. Git fetches its objects into
a private bare repository, and only the plain files of the student package
are copied out, read as raw blobs. What a checkout could do, and this never
does:

- follow a symbolic link: ``mynn/losses.py -> ../../graders/10_losses/test_10_losses.py``
  would make the trusted side read a hidden grader and hand it to the
  student's code, which can raise it into its feedback. Links are refused;
- fetch a submodule, another repository altogether: refused;
- run a program: a ``.gitattributes`` filter (Git LFS's smudge), a hook, a
  setting of the runner's git config. Blobs are read raw, the repository is
  created without hooks, and git reads neither the user's nor the system's
  configuration;
- fill the disk: a file over ``MAX_FILE_BYTES`` is refused, and every git
  command has a time limit.

The token comes from the environment (``MODLAB_FETCH_TOKEN``) and reaches
git through its environment too (``GIT_CONFIG_*``): never a command line,
never a file, and only for addresses on the roster's host.
"""
from __future__ import annotations

import base64
import datetime as dt
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from modlab.course import Course
from modlab.formats.jsonfile import write_json
from modlab.instructor.ci.roster import Entry, Roster

MAX_FILE_BYTES = 1 << 20   # a module of a student package is a few KiB; a MiB is generous
GIT_TIMEOUT_S = 120.0
TOKEN_VARIABLE, USER_VARIABLE = "MODLAB_FETCH_TOKEN", "MODLAB_FETCH_USER"
DEFAULT_USER = "x-access-token"  # GitHub's name for a token; GitLab accepts any name
RECORD = "fetch.json"
MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.py$")
SYMLINK_MODE = "120000"


class GitError(Exception):
    """A git command failed: the repository is unreachable, the commit unknown, ..."""


@dataclass
class Fetched:
    """What was fetched for one student, and from which commit.

    ``error`` says why the repository could not be read (the roster or the
    token is at fault, not the student); ``note`` why there is nothing to
    grade (no commits, none before the deadline, no package folder).
    """

    student: str
    repository: str  # as the roster names it
    address: str     # where it was fetched from
    commit: str = ""
    committed: str = ""
    files: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    note: str = ""
    error: str = ""

    def line(self) -> str:
        """One line for the job's log."""
        if self.error:
            return f"{self.student}: NOT FETCHED from {self.address}: {self.error}"
        if not self.commit:
            return f"{self.student}: nothing to grade: {self.note}"
        files = f"{len(self.files)} file" + ("" if len(self.files) == 1 else "s")
        said = f"{self.student}: {self.commit[:12]} of {self.committed}, {files}"
        return said + "".join(f"; refused {why}" for why in self.refused) + (f"; {self.note}" if self.note else "")


@dataclass(frozen=True)
class TreeEntry:
    """One line of ``git ls-tree --long``."""

    mode: str
    kind: str   # blob, tree or commit (a submodule)
    oid: str
    size: int   # -1 for trees and submodules
    name: str


class Git:
    """Runs git on one private bare repository, with a time limit and a fixed environment."""

    def __init__(self, git_dir: Path, env: dict[str, str], timeout: float = GIT_TIMEOUT_S):
        self.git_dir, self.env, self.timeout = git_dir, env, timeout

    def init(self) -> None:
        self._run("init", "--bare", "--quiet", "--template=", str(self.git_dir), git_dir=False)

    def text(self, *args: str) -> str:
        return self._run(*args).decode("utf-8", "replace").strip()

    def blob(self, oid: str) -> bytes:
        return self._run("cat-file", "blob", oid)

    def tree(self, treeish: str) -> list[TreeEntry]:
        entries = []
        for item in self._run("ls-tree", "-z", "--long", treeish).split(b"\0"):
            if item:
                meta, _, name = item.partition(b"\t")
                mode, kind, oid, size = meta.decode().split()
                entries.append(TreeEntry(mode, kind, oid, -1 if size == "-" else int(size),
                                         name.decode("utf-8", "surrogateescape")))
        return entries

    def _run(self, *args: str, git_dir: bool = True) -> bytes:
        command = ["git", *([f"--git-dir={self.git_dir}"] if git_dir else []), *args]
        try:
            done = subprocess.run(command, env=self.env, capture_output=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]} took longer than {self.timeout:g} s") from None
        if done.returncode:
            raise GitError(_first_complaint(done.stderr) or f"git {args[0]} failed with status {done.returncode}")
        return done.stdout


def _first_complaint(stderr: bytes) -> str:
    """Git's first ``fatal:`` or ``error:`` line, which says what went wrong (the rest is advice)."""
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return next((line for line in lines if line.startswith(("fatal:", "error:"))), lines[-1] if lines else "")


def git_environment(host: str, home: Path, token: str = "", user: str = DEFAULT_USER) -> dict[str, str]:
    """The whole environment git runs in: no user or system config, no
    prompts, only https and file addresses, and the token (if any) as a
    header for ``host`` alone."""
    settings = {"core.hooksPath": os.devnull, "transfer.fsckObjects": "true", "http.followRedirects": "false"}
    if token:
        basic = base64.b64encode(f"{user}:{token}".encode()).decode()
        settings[f"http.{host}/.extraHeader"] = f"Authorization: Basic {basic}"
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LANG": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
           "GIT_ALLOW_PROTOCOL": "https:file", "GIT_CONFIG_COUNT": str(len(settings))}
    for number, (key, value) in enumerate(settings.items()):
        env[f"GIT_CONFIG_KEY_{number}"], env[f"GIT_CONFIG_VALUE_{number}"] = key, value
    return env


def parse_deadline(text: str) -> dt.datetime | None:
    """An ISO 8601 time (UTC unless it says otherwise); None for an empty text.

    Example:
        >>> parse_deadline("2026-03-01T23:59Z").isoformat()
        '2026-03-01T23:59:00+00:00'

    Raises:
        ValueError: not an ISO 8601 time.
    """
    if not text.strip():
        return None
    try:
        deadline = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--deadline {text!r}: expected an ISO 8601 time, e.g. 2026-03-01T23:59:00Z") from None
    return deadline if deadline.tzinfo else deadline.replace(tzinfo=dt.timezone.utc)


def fetch_class(course: Course, roster: Roster, into: Path, deadline: dt.datetime | None = None,
                shard: tuple[int, int] = (1, 1)) -> list[Fetched]:
    """Fetch the package of every student of the shard into ``into/<student>/``,
    ready for ``modlab grade into``, and write what was fetched (repository,
    commit, files, refusals) to ``into/fetch.json``.

    Each student's folder holds only the plain files of the package; a
    student with nothing to grade gets an empty folder, and so zeros that
    say which file is missing.

    Raises:
        ValueError: ``into`` already holds files.
    """
    into = Path(into)
    if into.exists() and any(into.iterdir()):
        raise ValueError(f"{into}: already exists and is not empty; fetch into a new folder")
    into.mkdir(parents=True, exist_ok=True)
    fetched = []
    with tempfile.TemporaryDirectory(prefix="modlab-fetch-") as scratch:
        env = git_environment(roster.host, Path(scratch), os.environ.get(TOKEN_VARIABLE, ""),
                              os.environ.get(USER_VARIABLE) or DEFAULT_USER)
        for entry in roster.in_shard(*shard):
            git = Git(Path(scratch) / f"{entry.student}.git", env)
            fetched.append(fetch_student(course, roster, entry, into / entry.student, deadline, git))
            shutil.rmtree(git.git_dir, ignore_errors=True)
    write_json(into / RECORD, {"deadline": deadline.isoformat() if deadline else None,
                               "shard": list(shard), "fetched": [asdict(f) for f in fetched]})
    return fetched


def fetch_student(course: Course, roster: Roster, entry: Entry, folder: Path,
                  deadline: dt.datetime | None, git: Git) -> Fetched:
    """Fetch one student's package into ``folder/<package>/``; a git failure becomes the record's error."""
    fetched = Fetched(entry.student, entry.repository, roster.address(entry))
    (folder / course.package).mkdir(parents=True)
    try:
        git.init()
        if not entry.commit and not git.text("ls-remote", fetched.address, "HEAD"):
            fetched.note = "the repository has no commits"
            return fetched
        commit = chosen_commit(git, fetched.address, entry.commit, deadline)
        if commit is None:
            fetched.note = "no commit before the deadline"
            return fetched
        fetched.commit, fetched.committed = commit, git.text("show", "-s", "--format=%cI", commit)
        copy_package(git, commit, course.package, folder / course.package, fetched)
    except GitError as problem:
        fetched.error = str(problem)
        shutil.rmtree(folder)  # no folder, so no zeros that blame the student for a fetch that failed
    return fetched


def chosen_commit(git: Git, address: str, pinned: str, deadline: dt.datetime | None) -> str | None:
    """Fetch and name the commit to grade: the pinned one, else the newest
    commit of the default branch made before the deadline (following first
    parents, so a merged branch does not count by its own dates); None when
    there is none."""
    if pinned:
        git.text("fetch", "--quiet", "--no-tags", "--depth=1", address, pinned)
        return git.text("rev-parse", "--verify", "FETCH_HEAD^{commit}")
    git.text("fetch", "--quiet", "--no-tags", *(() if deadline else ("--depth=1",)), address, "HEAD")
    if deadline is None:
        return git.text("rev-parse", "--verify", "FETCH_HEAD^{commit}")
    return git.text("rev-list", "-1", "--first-parent", f"--before={deadline.isoformat()}", "FETCH_HEAD") or None


def copy_package(git: Git, commit: str, package: str, target: Path, fetched: Fetched) -> None:
    """Write the plain module files of ``package/`` at ``commit`` into ``target``;
    note every entry refused on the way."""
    top = next((e for e in git.tree(commit) if e.name == package), None)
    if top is None:
        fetched.note = f"no {package}/ folder in the repository"
        return
    if top.kind != "tree":
        what = "a symbolic link" if top.mode == SYMLINK_MODE else "a submodule" if top.kind == "commit" else "a file"
        fetched.refused.append(f"{package}: {what} where the package folder was expected")
        return
    for entry in git.tree(top.oid):
        if not MODULE.match(entry.name):
            continue  # not a module of the package, so not part of the submission
        why = refusal(entry)
        if why:
            fetched.refused.append(f"{package}/{entry.name}: {why}")
            continue
        write_new_file(target / entry.name, git.blob(entry.oid))
        fetched.files.append(f"{package}/{entry.name}")


def refusal(entry: TreeEntry) -> str:
    """Why an entry is not copied as a file of the submission; "" if it is."""
    if entry.mode == SYMLINK_MODE:
        return "a symbolic link (a submission holds plain files only)"
    if entry.kind == "commit":
        return "a submodule (a submission holds plain files only)"
    if entry.kind != "blob":
        return "a folder where a file was expected"
    if entry.size > MAX_FILE_BYTES:
        return f"{entry.size} bytes, over the {MAX_FILE_BYTES / 2**20:g} MiB a file may hold"
    return ""


def write_new_file(path: Path, data: bytes) -> None:
    """Create ``path`` (never through a link, never over a file) and write ``data``, not executable."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(handle, "wb") as out:
        out.write(data)

