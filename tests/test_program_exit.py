"""A ``modlab`` process leaves what it loaded to the operating system at exit, and only a
process of its own: a caller that runs the program inside its own process (a test, nbgrader's
pipeline) keeps its collector as it was."""
import subprocess
import sys

import pytest

# Run the program, then say at exit, after modlab's own exit handlers, whether the collector was frozen.
RUN_AND_REPORT = """\
import atexit, gc, sys
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
from modlab.cli import main
main({argv})
"""


@pytest.mark.parametrize("argv, frozen", [("", True), ("['--course', 'course.yaml']", False)],
                         ids=["its own command line", "a caller's list"])
def test_only_a_process_of_its_own_skips_the_collector_at_exit(argv, frozen):
    done = subprocess.run([sys.executable, "-c", RUN_AND_REPORT.format(argv=argv)],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == f"frozen at exit: {frozen}", done.stdout + done.stderr
