"""Grade on a real GPU: the reference with every CUDA case required, the buggy
variants that CUDA must catch, and the cost of CUDA per submission.

Run on a machine with CUDA (no install needed beyond torch, pytest, hypothesis, pyyaml):

    PYTHONPATH=. python3 bench/gpu_check.py --out results/

Prints a report and writes ``gpu_check.json`` into ``--out``. Exits 1 when the
reference loses a point, a CUDA case is skipped, or a variant goes uncaught.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import torch
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from modlab.course import load_course  # noqa: E402
from modlab.engine import GradeOptions, grade_exercise, grade_submission, process_memory  # noqa: E402
from modlab.instructor.variants import load_variants, variant_package  # noqa: E402
from modlab.formats.feedback import feedback_line  # noqa: E402
from modlab.records import FAILED, PASSED, SKIPPED  # noqa: E402

REQUIRE_CUDA = GradeOptions(device="cuda")


def grade_reference(course) -> dict:
    started = time.monotonic()
    result = grade_submission(course, course.solutions, options=REQUIRE_CUDA, student="reference")
    seconds = time.monotonic() - started
    per_exercise = {}
    for exercise in result.exercises:
        per_exercise[exercise.id] = {
            "tests": len(exercise.tests),
            "cuda_tests": sum(t.name.endswith("[cuda]") for t in exercise.tests),
            "passed": exercise.passed, "failed": exercise.failed, "skipped": exercise.skipped,
            "seconds": round(exercise.seconds, 2),
            "failures": [f"{t.name}: {feedback_line(t)}" for t in exercise.tests if t.outcome == FAILED],
        }
    return {"score": result.score, "max_score": result.max_score, "seconds": round(seconds, 2),
            "exercises": per_exercise}


def grade_variants(course, work: Path) -> list[dict]:
    """Every variant of the device exercise, and every variant marked cuda, graded with CUDA required."""
    rows = []
    for variant in load_variants(course):
        if variant.exercise != "07" and not variant.cuda:
            continue
        package = variant_package(course, variant, work / variant.name)
        result = grade_exercise(course, course.exercise(variant.exercise), package, REQUIRE_CUDA)
        failed = [t for t in result.tests if t.outcome == FAILED]
        rows.append({
            "variant": variant.name, "exercise": variant.exercise, "cuda_only": variant.cuda,
            "score": round(result.score, 3), "max_score": result.max_score,
            "caught": bool(failed) and result.score < result.max_score,
            "caught_on_cuda": sum(t.name.endswith("[cuda]") for t in failed),
            "caught_on_cpu": sum(t.name.endswith("[cpu]") for t in failed),
            "skipped": sum(t.outcome == SKIPPED for t in result.tests),
            "named": variant.expect.lower() in " ".join(feedback_line(t) for t in failed).lower(),
        })
    return rows


def time_submissions(course, repeats: int = 3) -> dict:
    """Seconds per full submission once the oracle has answered (its answers are cached)."""
    seconds = []
    for _ in range(repeats):
        started = time.monotonic()
        grade_submission(course, course.solutions, options=REQUIRE_CUDA)
        seconds.append(time.monotonic() - started)
    cpu_started = time.monotonic()
    grade_submission(course, course.solutions, options=GradeOptions(device="cpu"))
    return {"cuda_seconds_per_submission": [round(s, 2) for s in seconds],
            "cpu_only_seconds_per_submission": round(time.monotonic() - cpu_started, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    course = load_course(ROOT / "course.yaml")
    started = time.monotonic()
    cuda = process_memory().oracle(course).cuda
    report = {"torch": torch.__version__, "python": sys.version.split()[0], "cuda_in_workers": cuda,
              "oracle_start_seconds": round(time.monotonic() - started, 2)}
    if not cuda:
        print(json.dumps(report, indent=2))
        print("CUDA is not available to grading workers", file=sys.stderr)
        return 1
    report["reference"] = grade_reference(course)
    with tempfile.TemporaryDirectory() as work:
        report["variants"] = grade_variants(course, Path(work))
    report["timing"] = time_submissions(course)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_check.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    reference = report["reference"]
    skipped = sum(e["skipped"] for e in reference["exercises"].values())
    uncaught = [v["variant"] for v in report["variants"] if not v["caught"]]
    ok = reference["score"] == reference["max_score"] and skipped == 0 and not uncaught
    print(f"\nreference {reference['score']:.2f}/{reference['max_score']:g}, {skipped} skipped; "
          f"variants caught {len(report['variants']) - len(uncaught)}/{len(report['variants'])}"
          + (f"; uncaught: {', '.join(uncaught)}" if uncaught else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
