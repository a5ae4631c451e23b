"""``modlab check NN``: the public checks of one exercise, on the student's whole package.

A check grades the student's package *as a whole* (no reference code exists
in the kit) with the exercise's public scenarios, through the same engine as
real grading. When a check fails inside an earlier exercise's code, its
feedback says which exercise to fix first. Each check is recorded with the
checksums of the exercise's files, so ``modlab status`` can tell a result
that still holds from one the student's edits have made stale.

A student runs a check dozens of times an hour, and most of its time is
importing torch: in this process, which compares, and in the workers' zygote,
which runs the scenarios. A check server loads both once for many checks; a
check outside one is relaunched on Linux so that one import serves both
(:mod:`modlab.isolation.relaunch`). Elsewhere the check refuses bad input first,
without loading torch, then starts the zygote as soon as the isolation layer is
loaded, and only then loads the engine, the grader and Hypothesis, while the
zygote loads torch. Either way the zygote preloads the grader. The workers load only this
exercise's grader, and torch.nn's answers are kept on disk between checks
(``.modlab/torch-nn/``, see :class:`modlab.engine.Oracle`), so a check
mostly starts one worker, the submission's.
"""
from __future__ import annotations

import sys
from pathlib import Path

from modlab.course import Exercise
from modlab.errors import UsageError
from modlab.records import ExerciseResult

from .workspace import Workspace, require_files, require_valid_syntax, utc_now

# torch.nn's answers to the public checks, kept between checks (see modlab.engine.Oracle).
ORACLE_CACHE = Path(".modlab") / "torch-nn"


def check(workspace: Workspace, exercise: Exercise, device: str = "auto") -> ExerciseResult:
    """Run the exercise's public checks on the whole package; record the result.

    Returns:
        The exercise's result, one test per public check.

    Raises:
        UsageError: a missing file, a SyntaxError, or no public checks for
            this exercise.

    Example::

        result = check(open_workspace(course, Path("kit")), course.exercise("10"))
    """
    require_files(workspace, exercise)
    require_valid_syntax(workspace)
    # The engine loads torch: imported once the workers' zygote is on its way.
    from modlab.isolation.launcher import start_soon

    start_soon([str(workspace.course.grader_file(exercise))], workspace.course.oracle.spec())
    from modlab.engine import WHOLE, GradeOptions, grade_exercise

    if not workspace.course.grader_file(exercise).is_file():
        raise UsageError(f"exercise {exercise.id} has no public checks in this course folder "
                         f"({workspace.course.grader_file(exercise).relative_to(workspace.course.root)} is missing)")
    result = grade_exercise(workspace.course, exercise, workspace.package_dir,
                            GradeOptions(mode=WHOLE, device=device, public_only=True,
                                         oracle_cache=workspace.root / ORACLE_CACHE))
    if not result.tests:
        raise UsageError(f"exercise {exercise.id} has no public checks")
    _record(workspace, exercise, result)
    return result


def _record(workspace: Workspace, exercise: Exercise, result: ExerciseResult) -> None:
    checks = workspace.read_checks()
    shown = {m["id"]: m["text"] for t in result.tests if t.failure for m in t.failure.misconceptions}
    checks[exercise.id] = {
        "passed": result.passed, "failed": result.failed, "skipped": result.skipped,
        "checked_at": utc_now().isoformat().replace("+00:00", "Z"),
        "sha256": workspace.checksums(exercise),
        "misconceptions": shown,
    }
    workspace.write_checks(checks)


def platform_note() -> str:
    """One line on what this platform lacks for checks, or '' where nothing."""
    from modlab.isolation.launcher import start_method

    lacks = []
    method = start_method()
    if method != "fork":
        lacks.append(f"worker processes are started with '{method}', so each check starts a few seconds slower")
    if not sys.platform.startswith("linux"):
        lacks.append(f"the Linux-only limits on memory and processes are not applied on {sys.platform}")
    return "note: " + "; ".join(lacks) if lacks else ""
