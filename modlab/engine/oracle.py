"""torch's answers: the oracle's worker, and the answers it gave, kept in memory and on disk."""
from __future__ import annotations

import json
import os
from pathlib import Path

from modlab.isolation.process import WorkerProcess


def request_key(request: dict) -> str:
    """A request as the key its answer is kept under."""
    return json.dumps(request, sort_keys=True)


class Oracle:
    """torch's observations, computed once and remembered.

    The oracle's worker runs each scenario with the course's oracle (``module``,
    :meth:`modlab.course.Oracle.spec`: torch.nn by default) in place of the package. With a ``cache_dir``, its answers are also kept on
    disk, so that a student's next check asks torch nothing it answered before
    and mostly never starts its worker. The file is named by the fingerprint
    of the grading (:mod:`modlab.fingerprint`): when anything an answer depends
    on changes, the old file is no longer read, so it can never be stale.
    """

    def __init__(self, grader_files: list[str], cache_dir: Path | None = None, key: str = "",
                 module: list | None = None):
        self.worker = WorkerProcess({"kind": "torch", "oracle": module} if module else {"kind": "torch"}, grader_files)
        self.cache: dict[str, dict] = {}
        self._cuda: bool | None = None
        self.cache_path = Path(cache_dir) / f"torch-{key}.json" if cache_dir else None
        self.unsaved = False  # answers asked since the cache file was written
        if self.cache_path is not None:
            self.cache.update(self._read_cache())

    def observe(self, request: dict, timeout: float) -> dict:
        return self.observe_many([request], timeout)[0]

    def observe_many(self, requests: list[dict], timeout: float) -> list[dict]:
        """torch's answers to ``requests``: those not remembered yet are asked
        in one stream (see :meth:`~modlab.isolation.process.WorkerProcess.stream`)."""
        keys = [request_key(request) for request in requests]
        missing = list({key: request for key, request in zip(keys, requests) if key not in self.cache}.items())
        if missing:
            answers = self.worker.stream([request for _, request in missing], timeout)
            for key, _ in missing:
                self.cache[key] = answers.next()
            self.unsaved = True
        return [self.cache[key] for key in keys]

    def save(self) -> None:
        """Write the answers asked since the last save into the cache file, if there is one:
        once an exercise is graded, not at every answer (a search asks one at a time)."""
        if self.cache_path is not None and self.unsaved:
            self._write_cache()
            self.unsaved = False

    def _read_cache(self) -> dict[str, dict]:
        try:
            found = json.loads(self.cache_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or unreadable: torch is asked again
        return found if isinstance(found, dict) else {}

    def _write_cache(self) -> None:
        """Keep the answers (written whole, then renamed: a reader never sees half a file),
        and remove the files of earlier versions; a read-only folder keeps nothing."""
        try:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.cache_path.with_suffix(f".{os.getpid()}.part")
            # Without the observations read from their text: the text is what is kept.
            kept = {key: {k: v for k, v in answer.items() if k != "observation"} for key, answer in self.cache.items()}
            partial.write_text(json.dumps(kept), encoding="utf-8")
            os.replace(partial, self.cache_path)
            for old in self.cache_path.parent.glob("torch-*.json"):
                if old != self.cache_path:
                    old.unlink(missing_ok=True)
        except OSError:
            pass

    @property
    def cuda(self) -> bool:
        """Whether CUDA works, asked of the oracle so this process never initialises it."""
        if self._cuda is None:
            self._cuda = bool(self.worker.ask({"op": "cuda"}, timeout=120).get("cuda"))
        return self._cuda
