"""The result files ``modlab grade`` can write besides its table."""
from __future__ import annotations

import json
from pathlib import Path

from modlab.course import Course
from modlab.records import SubmissionResult

from .gradescope import gradescope_results
from .jsonfile import result_json, write_atomically, write_json
from .junit import junit_xml
from .markdown import markdown_summary


def add_output_options(parser) -> None:
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    parser.add_argument("--junit", type=Path, metavar="FILE",
                        help="write JUnit XML, one testcase per grader test (CI test reports)")
    parser.add_argument("--gradescope", type=Path, metavar="FILE",
                        help="write Gradescope's results.json (hidden graders marked hidden)")
    parser.add_argument("--summary", type=Path, metavar="FILE",
                        help="write the score table as Markdown (e.g. for $GITHUB_STEP_SUMMARY)")


def write_outputs(args, course: Course, results: list[SubmissionResult]) -> None:
    """Write every result file the options ask for (one submission: its own records)."""
    if args.json:
        data = result_json(results[0]) if len(results) == 1 else {"submissions": [result_json(r) for r in results]}
        write_json(args.json, data)
    if args.junit:
        write_atomically(args.junit, junit_xml(results))
    if args.gradescope:
        if len(results) != 1:
            raise ValueError("--gradescope describes one submission; grade one at a time")
        write_atomically(args.gradescope, json.dumps(gradescope_results(results[0]), indent=2) + "\n")
    if args.summary:
        write_atomically(args.summary, markdown_summary(course, results))

