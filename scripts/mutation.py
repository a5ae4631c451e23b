"""Mutation testing of the modules where a silent bug changes a grade or opens a hole.

For each module group below, mutmut (pinned in constraints.txt) makes small
changes to the group's code, one at a time, and runs the group's fast tests
against each; a change no test notices is a survivor. Each group runs in a
scratch copy of this working tree (mutmut writes its ``mutants/`` folder and
``setup.cfg`` there), so the tree itself is never touched and other work can
go on beside a run.

Usage::

    .venv/bin/python scripts/mutation.py                 # every group, one after another
    .venv/bin/python scripts/mutation.py formats merge   # some groups
    .venv/bin/python scripts/mutation.py --survivors records   # and list what survived

It prints one line per group (killed, survived, other, the share killed) and
writes them to ``build/mutation/<group>.json``; ``make mutation`` runs it.
docs/mutation.md records the figures and the survivors judged equivalent.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "build" / "mutation"


@dataclass(frozen=True)
class Group:
    """Code to mutate and the tests that must notice.

    Attributes:
        files: the source files mutmut changes.
        tests: pytest arguments selecting the group's fast tests.
        mutants: mutmut name patterns, when only some functions of ``files`` are the group's.
    """

    files: tuple[str, ...]
    tests: tuple[str, ...]
    mutants: tuple[str, ...] = field(default=())


FORMATS = ("tests/test_formats_outcomes.py", "tests/test_feedback_formats.py")
GROUPS = {
    "records": Group(("modlab/records.py",), FORMATS + ("tests/test_merge_refusals.py",)),
    "scoring": Group(("modlab/engine/scoring.py",), ("tests/test_scoring.py",)),
    "formats": Group(tuple(f"modlab/formats/{name}.py" for name in
                           ("csv", "feedback", "gradescope", "jsonfile", "junit", "markdown", "outputs", "table")),
                     FORMATS + ("tests/test_merge_refusals.py",)),
    "merge": Group(("modlab/batch/merge.py", "modlab/batch/layout.py", "modlab/batch/store.py"),
                   ("tests/test_merge_refusals.py",)),
    "release": Group(("modlab/instructor/release.py",), ("tests/test_release_leaks.py",),
                     tuple(f"modlab.instructor.release.x_{name}__mutmut_*" for name in
                           ("find_leaks", "_readable_text", "build_release", "hidden_scenarios",
                            "solution_regions"))),
    "upload": Group(("modlab/instructor/gradescope/upload.py",), ("tests/test_gradescope_upload.py",)),
    "sandbox": Group(("modlab/isolation/sandbox/limits.py", "modlab/isolation/sandbox/environment.py"),
                     ("tests/test_sandbox_limits.py", "tests/test_env_scrub.py", "-k", "not worker_started")),
    "nbgrader": Group(("modlab/instructor/nbgrader/report.py", "modlab/instructor/nbgrader/notebook.py",
                       "modlab/instructor/nbgrader/pipeline.py"), ("tests/test_nbgrader_scores.py",),
                      ("modlab.instructor.nbgrader.report.*", "modlab.instructor.nbgrader.notebook.*",
                       "modlab.instructor.nbgrader.pipeline.x_score_outputs__mutmut_*",
                       "modlab.instructor.nbgrader.pipeline.x__who__mutmut_*",
                       "modlab.instructor.nbgrader.pipeline.xǁWriteScoreǁ*",
                       "modlab.instructor.nbgrader.pipeline.xǁKeepOnlyScoreCellǁ*")),
}

# What a run needs besides the code: the course the tests load.
ALSO_COPY = ("course.yaml", "solutions", "exercises", "graders", "lessons", "docs")


def scratch_copy(target: Path) -> None:
    """This working tree's files as they are now (tracked and new, not ignored) under ``target``."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def setup_cfg(group: Group) -> str:
    """mutmut's configuration for one group."""
    def listed(items) -> str:
        return "".join(f"\n    {item}" for item in items)
    return (f"[mutmut]\nsource_paths = modlab\nonly_mutate ={listed(group.files)}\n"
            f"also_copy ={listed(ALSO_COPY)}\n"
            f"pytest_add_cli_args_test_selection ={listed(group.tests)}\n"
            "pytest_add_cli_args =\n    -p no:cacheprovider\n    -q\n"
            "use_git_change_detection = false\n")


def run_group(name: str, group: Group, children: int) -> dict:
    """Mutate one group in a scratch copy; the counts, and the survivors' names."""
    work = Path(tempfile.mkdtemp(prefix=f"modlab-mutation-{name}-"))
    try:
        scratch_copy(work)
        (work / "pyproject.toml").unlink(missing_ok=True)  # mutmut would read its settings there first
        (work / "setup.cfg").write_text(setup_cfg(group))
        mutmut = str(Path(sys.executable).parent / "mutmut")
        started = time.monotonic()
        done = subprocess.run([mutmut, "run", "--max-children", str(children), *group.mutants], cwd=work,
                              capture_output=True, text=True)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"{name}: mutmut failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        statuses = _statuses(work, group)
        listing = {m: subprocess.run([mutmut, "show", m], cwd=work, capture_output=True, text=True).stdout
                   for m, status in statuses.items() if status not in ("killed", "timeout")}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    return {"group": name, "files": list(group.files), "tests": list(group.tests), "counts": counts,
            "total": len(statuses), "killed": killed, "killed_share": round(killed / max(len(statuses), 1), 4),
            "seconds": round(seconds), "date": time.strftime("%Y-%m-%d"),
            "not_killed": sorted(m for m, s in statuses.items() if s not in ("killed", "timeout")),
            "statuses": dict(sorted(statuses.items())),
            "diffs": listing}


def _statuses(work: Path, group: Group) -> dict[str, str]:
    """Each mutant's status, read from mutmut's result files (``mutants/<file>.meta``)."""
    from mutmut.stats import status_by_exit_code  # mutmut's own reading of its exit codes

    statuses = {}
    for file in group.files:
        meta = json.loads((work / "mutants" / (file + ".meta")).read_text())
        for mutant, code in meta["exit_code_by_key"].items():
            if not group.mutants or any(fnmatch(mutant, pattern) for pattern in group.mutants):
                statuses[mutant] = status_by_exit_code[code]
    return statuses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("groups", nargs="*", metavar="GROUP", help=f"groups to run (default: all): {', '.join(GROUPS)}")
    parser.add_argument("--children", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--survivors", action="store_true",
                        help="print the diff of every mutant not killed (the figures file holds them too)")
    parser.add_argument("--tests", metavar="ARGS", type=shlex.split,
                        help="pytest arguments replacing the groups' own test selection, as one string "
                             "(e.g. to measure older tests: --tests 'tests/test_batch.py -k shards')")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where the figures go (default {RESULTS.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    unknown = [g for g in args.groups if g not in GROUPS]
    if unknown:
        parser.error(f"no group {', '.join(unknown)}; the groups are {', '.join(GROUPS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.groups or list(GROUPS):
        group = GROUPS[name] if not args.tests else dataclasses.replace(GROUPS[name], tests=tuple(args.tests))
        figures = run_group(name, group, args.children)
        (args.out / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
        print(f"{name:<9} {figures['killed']:>4} killed of {figures['total']:>4} "
              f"({100 * figures['killed_share']:.1f} %), {figures['counts']}, {figures['seconds']} s", flush=True)
        for mutant in figures["not_killed"] if args.survivors else ():
            print(f"  not killed: {mutant}\n    " + figures["diffs"].get(mutant, "").replace("\n", "\n    "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
