"""``--json FILE``: the result records, written atomically."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


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
