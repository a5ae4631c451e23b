"""A grader's ``WORKER_IMPORTS``: modules its scenarios import slowly on first use (torch.optim's
first optimizer imports torch._dynamo) are imported where workers are forked from, so that no
scenario's time limit pays for them, and never on the grading side, which runs no scenario."""
import os
import subprocess
import sys

import pytest

from modlab.grading.loader import import_grader, import_grader_for_workers
from modlab.isolation.launcher import Zygote


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A grader naming a module of its own in ``WORKER_IMPORTS``, which records the process importing it."""
    module = f"modlab_toy_{tmp_path.name}"
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{module}.py").write_text(
        "import os, pathlib\npathlib.Path(__file__).with_name('imported_by').write_text(str(os.getpid()))\n")
    grader = tmp_path / "graders" / "01_toy" / "test_01_toy.py"
    grader.parent.mkdir(parents=True)
    grader.write_text(f'WORKER_IMPORTS = ("{module}",)\n')
    monkeypatch.syspath_prepend(str(site))
    yield grader, module, site / "imported_by"
    sys.modules.pop(module, None)


def test_the_grading_side_imports_the_grader_without_them(toy):
    grader, module, imported_by = toy
    import_grader(grader)
    assert module not in sys.modules and not imported_by.exists()
    import_grader_for_workers(grader)  # as a spawned worker does
    assert module in sys.modules and imported_by.read_text() == str(os.getpid())


def test_the_zygote_imports_them_before_it_forks_a_worker(toy):
    grader, module, imported_by = toy
    zygote = Zygote()
    try:
        connection, worker = zygote.fork([str(grader)], None)
        connection.close()
        worker.stop()
        assert imported_by.read_text() == str(zygote.process.pid)
    finally:
        zygote.socket.close()
        zygote.process.wait(timeout=30)
    assert module not in sys.modules


def test_the_courses_optimizers_bring_torch_dynamo_to_the_workers_only(course):
    """08's and 09's scenarios train with torch.optim: the grading side, which loads their graders
    too, imports no torch._dynamo (over a second of CPU), in a process of its own as `modlab grade`."""
    graders = [str(path) for path in course.grader_files(["08", "09"])]
    loads = ("import sys; from modlab.grading.loader import import_grader; "
             "print([import_grader(path).WORKER_IMPORTS for path in sys.argv[1:]], 'torch._dynamo' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", loads, *graders], capture_output=True, text=True, timeout=120)
    assert done.stdout.split("\n")[0] == "[('torch._dynamo',), ('torch._dynamo',)] False", done.stdout + done.stderr
