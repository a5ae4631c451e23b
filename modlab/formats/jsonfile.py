"""``--json FILE``: the result records, written atomically, each test with its feedback in words."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from modlab.records import SubmissionResult

from .feedback import feedback_line


def result_json(result: SubmissionResult) -> dict:
    """A submission's record as JSON data: its facts (:meth:`SubmissionResult.to_json`), and each
    test's ``feedback``, rendered from them (read back, the facts are what counts)."""
    data = result.to_json()
    for exercise, written in zip(result.exercises, data["exercises"]):
        for test, test_data in zip(exercise.tests, written["tests"]):
            test_data["feedback"] = feedback_line(test)
    return data


def write_atomically(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` so a reader never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_json(path: Path | str, data) -> None:
    write_atomically(path, json.dumps(data, indent=2) + "\n")
