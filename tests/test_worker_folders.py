"""Every worker's private folder is gone once the worker is: the oracle's as well as a
submission's, forked from the zygote or spawned (a worker ends by os._exit or a kill,
so the side that ends it removes the folder)."""
import os
import sys
from pathlib import Path

import pytest

from modlab.isolation.process import WorkerProcess


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the worker's folder from /proc")
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_no_worker_leaves_its_folder_behind(course, method, monkeypatch):
    monkeypatch.setenv("MODLAB_START_METHOD", method)
    oracle = WorkerProcess({"kind": "torch"}, course.grader_files()[:1])
    assert "cuda" in oracle.ask({"op": "cuda"}, timeout=120)
    # The folder the oracle works in, its own: other tests' workers come and go in the same /tmp meanwhile.
    folder = Path(os.readlink(f"/proc/{oracle.handle.pid}/cwd"))
    assert folder.name.startswith("modlab-worker-") and folder.is_dir()
    oracle.close()
    assert not folder.exists()
