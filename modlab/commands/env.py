"""``modlab env``: what a grading runner has (torch, CUDA, device) and a smoke check."""
from __future__ import annotations

import argparse

from modlab.course import load_course

DOCS = "docs/ci.md"  # what every --help of this command names for more


def register(commands) -> None:
    sub = commands.add_parser(
        "env", help="show torch, CUDA and device facts for a grading runner",
        description="Print what a runner admin needs before grading: torch version, whether CUDA "
                    "works in a grading worker, the device name, and a smoke check that moves a "
                    "module to CUDA and back.",
        epilog="examples:\n  modlab env\n  modlab env --require-cuda   # exit 1 on a GPU runner without CUDA",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("--require-cuda", action="store_true", help="exit 1 when CUDA is not available")
    sub.set_defaults(run=run_env)


def run_env(args) -> int:
    from modlab.student.environment import describe

    facts = describe(load_course(args.course))
    width = max(len(key) for key, _ in facts)
    for key, value in facts:
        print(f"{key:<{width}}  {value}")
    cuda = dict(facts)["CUDA available to workers"] == "yes"
    failed_smoke = dict(facts).get("smoke check", "").startswith("FAILED")
    return 1 if (args.require_cuda and not cuda) or failed_smoke else 0
