"""Every worker's private folder is gone once the worker is: the oracle's as well as a
submission's, forked from the zygote or spawned (a worker ends by os._exit or a kill,
so the side that ends it removes the folder)."""
import glob
import tempfile

import pytest

from modlab.isolation.process import WorkerProcess


def folders() -> set[str]:
    return set(glob.glob(f"{tempfile.gettempdir()}/modlab-worker-*"))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_no_worker_leaves_its_folder_behind(course, method, monkeypatch):
    monkeypatch.setenv("MODLAB_START_METHOD", method)
    before = folders()
    oracle = WorkerProcess({"kind": "torch"}, course.grader_files()[:1])
    assert "cuda" in oracle.ask({"op": "cuda"}, timeout=120)
    during = folders() - before
    oracle.close()
    assert len(during) == 1 and folders() - before == set()
