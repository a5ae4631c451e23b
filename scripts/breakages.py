"""Hand-made breakages of the code that decides a verdict: the suite must notice each one.

Beside mutmut's mechanical mutants (``scripts/mutation.py``), these are the
slips a tired maintainer would plausibly make: each a small edit that keeps
every code path running while it changes grades or weakens a boundary. For
each one this script copies the working tree into a scratch folder, applies
the edit there, runs the tests that guard against it, and expects them to
fail. A breakage the tests do not notice fails the run (exit status 1).
The working tree itself is never touched, so other work can go on beside it.

Usage::

    .venv/bin/python scripts/breakages.py                 # every breakage, its guarding tests
    .venv/bin/python scripts/breakages.py tamper-ignored  # some of them
    .venv/bin/python scripts/breakages.py --whole-suite   # the whole suite against each (slow)
    .venv/bin/python scripts/breakages.py --list          # what each one breaks

``make mutation`` runs it after the mutation groups; ``tests/test_breakages.py``
checks, in every ``make test``, that each edit still applies to the code.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mutation import scratch_copy  # this folder's: the same scratch copy as the mutants'

ROOT = Path(__file__).resolve().parent.parent
GUARDS = "tests/test_verdict_guards.py"
CONTRACT = "tests/test_compare_contract.py"


@dataclass(frozen=True)
class Breakage:
    """One plausible slip: replace ``old`` (once in ``file``) with ``new``.

    Attributes:
        harm: what it would do to students or instructors, unnoticed.
        tests: the pytest arguments of the tests that must notice.
    """

    name: str
    file: str
    old: str
    new: str
    harm: str
    tests: tuple[str, ...]

    def edited(self, root: Path) -> str:
        """The text of ``file`` under ``root`` with the edit made.

        Raises:
            ValueError: ``old`` is not exactly once in the file (the code moved on: update the breakage).
        """
        text = (root / self.file).read_text(encoding="utf-8")
        if text.count(self.old) != 1:
            raise ValueError(f"{self.name}: the text to replace is {text.count(self.old)} times in {self.file}")
        return text.replace(self.old, self.new)

    def apply(self, root: Path) -> None:
        """Make the edit under ``root`` (see :meth:`edited`)."""
        (root / self.file).write_text(self.edited(root), encoding="utf-8")


BREAKAGES = [
    Breakage("dtype-not-compared", "modlab/grading/compare.py",
             'TENSOR_FIELDS = ("class", "dtype", "shape", "device", "requires_grad")',
             'TENSOR_FIELDS = ("class", "shape", "device", "requires_grad")',
             "a layer computing in float64 scores full marks and the feedback never says dtype",
             (CONTRACT, f"{GUARDS}::test_a_layer_computing_in_float64_loses_its_check_and_the_feedback_says_dtype")),
    Breakage("loose-default-tolerance", "modlab/grading/compare.py",
             "    if expected[\"data\"] == actual[\"data\"]:\n        return None\n",
             "    if expected[\"data\"] == actual[\"data\"]:\n        return None\n"
             "    tolerance = tolerance or Tolerance(rtol=1e-2, atol=1e-2)\n",
             "every check meant to be bit for bit becomes approximate: weights drawn almost like torch's pass",
             (CONTRACT, f"{GUARDS}::test_weights_drawn_almost_like_torch_are_not_bit_for_bit_and_lose_the_check")),
    Breakage("exceptions-by-message", "modlab/grading/compare.py",
             'same = expected[EXCEPTION]["type"] == actual[EXCEPTION]["type"]',
             'same = expected[EXCEPTION] == actual[EXCEPTION]',
             "a submission raising torch's exception type with its own wording loses the check",
             (CONTRACT,)),
    Breakage("requires-grad-not-compared", "modlab/grading/compare.py",
             'TENSOR_FIELDS = ("class", "dtype", "shape", "device", "requires_grad")',
             'TENSOR_FIELDS = ("class", "dtype", "shape", "device")',
             "a parameter that stopped asking for gradients passes as a trainable one",
             (CONTRACT,)),
    Breakage("replay-counts-only-mismatches", "modlab/engine/search.py",
             "                if problem is not None:\n                    return index, search_outcome(problem)",
             "                if problem is not None and problem.reason == \"mismatch\":\n"
             "                    return index, search_outcome(problem)",
             "after the batch's warm-up, a submission raising in a replayed search scores more than a fresh grade gives it",
             (f"{GUARDS}::test_a_batch_grade_equals_a_fresh_grade_when_the_submission_raises_in_a_replayed_search",)),
    Breakage("tamper-report-ignored", "modlab/isolation/process.py",
             '        if answer["tamper"]:\n            raise WorkerFailed(tamper.explain(answer["tamper"], "called", self.oracle), TAMPER)\n',
             "",
             "a walk that calls torch.nn.Module's own methods through getattr scores as if it were written",
             (f"{GUARDS}::test_a_walk_that_reaches_torch_nn_unseen_at_load_time_earns_no_more_than_the_stub",)),
    Breakage("worker-keeps-descriptors", "modlab/isolation/zygote.py",
             "            quiet_descriptors(data_fd)\n", "",
             "a submission prints fake results into the grading process's log and holds the zygote's sockets",
             (f"{GUARDS}::test_a_worker_inherits_no_descriptor_of_the_grading_side",)),
    Breakage("resume-ignores-the-grading-key", "modlab/batch/grading.py",
             " and record.grading_key == batch.key", "",
             "after a grader fix or a change of options, a resumed batch regrades nobody",
             (f"{GUARDS}::test_a_batch_resumed_after_its_grading_changed_regrades_everyone",)),
    Breakage("deadline-in-local-time", "modlab/instructor/ci/fetch.py",
             "return deadline if deadline.tzinfo else deadline.replace(tzinfo=dt.timezone.utc)",
             "return deadline if deadline.tzinfo else deadline.astimezone()",
             "on a runner in Berlin a deadline of 23:59 becomes 22:59 UTC and last-hour commits are dropped",
             (f"{GUARDS}::test_a_deadline_without_a_zone_is_utc_wherever_the_runner_is",
              f"{GUARDS}::test_a_commit_one_second_before_a_zoneless_deadline_counts_and_one_after_does_not")),
]


def tests_fail(breakage: Breakage | None, tests: tuple[str, ...]) -> tuple[bool, float]:
    """Whether ``tests`` fail in a scratch copy with the breakage applied (None: as the
    tree is), and how long they took."""
    work = Path(tempfile.mkdtemp(prefix=f"modlab-breakage-{breakage.name if breakage else 'none'}-"))
    try:
        scratch_copy(work)
        if breakage is not None:
            breakage.apply(work)
        # The copy's modlab comes first on the path, here and in every process the tests start.
        env = {**os.environ, "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                              cwd=work, env=env, capture_output=True, text=True)
        return done.returncode != 0, time.monotonic() - started
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="BREAKAGE", help="breakages to try (default: all)")
    parser.add_argument("--whole-suite", action="store_true", help="run the whole suite against each, not its guards")
    parser.add_argument("--list", action="store_true", help="list the breakages and what each would do")
    args = parser.parse_args(argv)
    known = {b.name: b for b in BREAKAGES}
    unknown = [name for name in args.names if name not in known]
    if unknown:
        parser.error(f"no breakage {', '.join(unknown)}; they are {', '.join(known)}")
    chosen = [known[name] for name in args.names] or BREAKAGES
    if args.list:
        for breakage in chosen:
            print(f"{breakage.name:<32} {breakage.file}: {breakage.harm}")
        return 0
    for breakage in chosen:
        breakage.edited(ROOT)  # each still applies, before anything runs
    guards = tuple(dict.fromkeys(test for breakage in chosen for test in breakage.tests))
    failing, _ = tests_fail(None, () if args.whole_suite else guards)
    if failing:  # a breakage "noticed" by tests that fail anyway proves nothing
        print("the guarding tests fail without any breakage: fix them first", file=sys.stderr)
        return 2
    missed = []
    for breakage in chosen:
        caught, seconds = tests_fail(breakage, () if args.whole_suite else breakage.tests)
        print(f"{'noticed' if caught else 'MISSED ':<8} {breakage.name:<32} {seconds:5.0f} s  {breakage.harm}",
              flush=True)
        if not caught:
            missed.append(breakage.name)
    print(f"{len(chosen) - len(missed)} of {len(chosen)} breakages noticed" + (f"; missed: {', '.join(missed)}" if missed else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
