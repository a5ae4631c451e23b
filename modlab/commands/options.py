"""What the grading commands share: their options, and the exit status of a run that needed CUDA."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from modlab.records import CUDA, FAILED


def add_grading_options(sub) -> None:
    sub.add_argument("--exercise", "-e", action="append", metavar="ID",
                     help="grade only this exercise (repeatable; default: all)")
    sub.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                     help="auto: run CUDA cases where CUDA works, skip them elsewhere; cpu: skip them; "
                          "cuda: a CUDA case that cannot run fails (for GPU runners)")


def add_class_options(sub) -> None:
    group = sub.add_argument_group("grading a class")
    group.add_argument("--jobs", "-j", type=int, default=usable_cores(), metavar="N",
                       help="grade N submissions at a time (default: one per usable core)")
    group.add_argument("--shard", metavar="I/N", help="grade only shard I of N (e.g. one job of a CI matrix); "
                                                     "`modlab merge` combines the shards' results")
    group.add_argument("--out", type=Path, default=Path("results"), metavar="DIR",
                       help="results folder: a record per student, gradebook.csv (default: results)")


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the platform tells)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def cuda_status(args, results) -> int:
    """Exit 3 when --device cuda was asked for and a CUDA case could not run:
    a misconfigured GPU runner must fail its job, not pass by skipping."""
    if args.device != "cuda":
        return 0
    missing = [t for r in results for e in r.exercises for t in e.tests if t.outcome == FAILED and t.reason == CUDA]
    if missing:
        print(f"modlab grade: {len(missing)} CUDA cases could not run: CUDA not available on this runner",
              file=sys.stderr)
        return 3
    return 0
