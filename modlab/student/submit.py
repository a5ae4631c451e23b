"""``modlab submit``: package exactly one exercise's files with a manifest.

The archive ``submissions/<student>-<exercise>-<UTC time>.zip`` holds
``manifest.json`` and the exercise's files under their package path::

    manifest.json      {"student", "exercise", "submitted_at", "files": [{"path", "sha256", "bytes"}], "tool", ...}
    mynn/losses.py

It is written once, never over an earlier one, and only after everything else
succeeded, so a failed submit leaves no archive behind. Where ``course.yaml``
names an nbgrader exchange, the same files go there first, through nbgrader's
own exchange code, so the instructor's ``nbgrader collect`` finds them.
"""
from __future__ import annotations

import getpass
import hashlib
import io
import json
import os
import re
import zipfile
from pathlib import Path

from modlab.course import Exercise
from modlab.errors import UsageError
import modlab

from .exchange import submit_to_exchange
from .workspace import Workspace, require_files, require_valid_syntax, utc_now

MANIFEST = "manifest.json"
FORMAT = "modlab-submission/1"
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


def student_id(given: str | None = None) -> str:
    """Who submits: ``--student``, else ``JUPYTERHUB_USER`` (the variable
    nbgrader's exchange reads on a JupyterHub), else the login name.

    Raises:
        UsageError: no id found, or one that cannot name a file.
    """
    candidates = [(given, "--student"), (os.environ.get("JUPYTERHUB_USER"), "JUPYTERHUB_USER")]
    try:
        candidates.append((getpass.getuser(), "your login name"))
    except (OSError, KeyError, ImportError):  # no login name in some containers
        pass
    for value, source in candidates:
        if value:
            if not STUDENT_ID.match(value):
                raise UsageError(f"student id {value!r} (from {source}) must be letters, digits and . _ @ -, "
                                 "starting with a letter or digit")
            return value
    raise UsageError("no student id: pass --student YOUR_ID")


def manifest(workspace: Workspace, exercise: Exercise, student: str, submitted_at: str,
             contents: dict[str, bytes], checks=None) -> dict:
    """The manifest: who, what, when, each file's checksum, and the tool version."""
    data = {
        "format": FORMAT,
        "course": workspace.course.id,
        "student": student,
        "exercise": exercise.id,
        "slug": exercise.slug,
        "submitted_at": submitted_at,
        "files": [{"path": path, "sha256": hashlib.sha256(blob).hexdigest(), "bytes": len(blob)}
                  for path, blob in contents.items()],
        "tool": f"modlab {modlab.__version__}",
    }
    if checks is not None:
        data["public_checks"] = {"passed": checks.passed, "failed": checks.failed}
    return data


def archive_bytes(manifest_data: dict, contents: dict[str, bytes]) -> bytes:
    """The zip archive: the manifest first, then the files in their order."""
    stamp = tuple(int(part) for part in re.split(r"[-T:Z]", manifest_data["submitted_at"])[:6])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        entries = {MANIFEST: (json.dumps(manifest_data, indent=2) + "\n").encode(), **contents}
        for name, data in entries.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=stamp), data, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def submit(workspace: Workspace, exercise: Exercise, student: str, checks=None) -> Path:
    """Package the exercise's files; hand them to the exchange if the course has one.

    Args:
        checks: the result of the public checks just run, recorded in the manifest.

    Returns:
        The archive written under ``submissions/``.

    Raises:
        UsageError: a missing file or a SyntaxError in the submitted files,
            an exchange that refuses the submission, or a folder that cannot
            be written. Nothing is left behind then.
    """
    require_files(workspace, exercise)
    files = workspace.files_of(exercise)
    require_valid_syntax(workspace, list(files.values()))
    contents = {name: path.read_bytes() for name, path in files.items()}
    now = utc_now()
    data = manifest(workspace, exercise, student, now.isoformat().replace("+00:00", "Z"), contents, checks)
    archive = archive_bytes(data, contents)
    if workspace.course.exchange:
        submit_to_exchange(workspace, exercise, student, archive)
    return write_new(workspace.submissions, f"{student}-{exercise.id}-{now:%Y%m%dT%H%M%SZ}", archive)


def write_new(folder: Path, stem: str, data: bytes) -> Path:
    """Write ``folder/stem.zip`` (or ``stem-2.zip``, ...): never over an
    existing file, and never half a file."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for attempt in range(1, 1000):
            path = folder / (f"{stem}.zip" if attempt == 1 else f"{stem}-{attempt}.zip")
            try:
                handle = open(path, "xb")
            except FileExistsError:
                continue
            try:
                with handle:
                    handle.write(data)
            except BaseException:
                path.unlink()
                raise
            return path
    except OSError as error:
        raise UsageError(f"cannot write the submission into {folder}: {error.strerror or error}") from None
    raise UsageError(f"{folder}: too many submissions named {stem}")


def read_submissions(workspace: Workspace) -> tuple[dict[str, list[dict]], list[str]]:
    """The manifests of the archives under ``submissions/``, by exercise id,
    and a warning for each file that is not a modlab submission."""
    found: dict[str, list[dict]] = {}
    problems = []
    for path in sorted(workspace.submissions.glob("*.zip")):
        try:
            with zipfile.ZipFile(path) as archive:
                data = json.loads(archive.read(MANIFEST))
            found.setdefault(data["exercise"], []).append(data)
        except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile):
            problems.append(f"{path.relative_to(workspace.root)}: not a modlab submission, left out")
    return found, problems
