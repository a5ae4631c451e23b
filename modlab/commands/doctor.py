"""``modlab doctor``: find layers and tensors a model holds but never registered."""
from __future__ import annotations

import argparse
import sys

from modlab.course import CourseError, find_course_file
from modlab.errors import UsageError

DOCS = "docs/doctor.md"  # what every --help of this command names for more
EPILOG = """\
examples:
  modlab doctor models/ripeness.py:RipenessNet     # a class: built without arguments
  modlab doctor models/zoo.py:make_classifier      # a function that builds the model
  modlab doctor mynn.capstone:PlainListClassifier  # an importable module, from the current folder

exit status: 0 when every layer and trainable tensor is registered and the
counts agree, 1 when something is found, 2 when the model cannot be loaded.
"""


def register(commands) -> None:
    sub = commands.add_parser(
        "doctor", help="find layers and trainable tensors a model holds but never registered",
        description="Inspect a model (torch.nn's, or your package's) for modules kept in plain lists, dicts or tuples, "
                    "trainable tensors that are not Parameters, and parameters counted vs. held: what the "
                    "optimizer, state_dict() and .to() silently miss. The model's file is imported and the "
                    "named class or function is called, so only run it on code you trust.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("model", metavar="MODEL",
                     help="FILE.py:NAME or package.module:NAME, naming a model instance or a class or "
                          "function that builds one without arguments")
    sub.set_defaults(run=run_doctor)


def run_doctor(args) -> int:
    from modlab.student.doctor import LoadError, diagnose, format_report, load_model

    try:
        model = load_model(args.model)
    except LoadError as problem:
        raise UsageError(str(problem)) from None
    warning = course_torch_warning(args)
    if warning:
        print(warning, file=sys.stderr)
    diagnosis = diagnose(model)
    print(format_report(diagnosis, args.model))
    return 0 if diagnosis.healthy else 1


def course_torch_warning(args) -> str:
    """The one-line warning of a torch other than the course's, where a course is at hand."""
    from modlab.pins import version_mismatch

    try:
        course_file = args.course or find_course_file()
    except CourseError:
        return ""  # the doctor also checks models outside any course
    return version_mismatch(course_file.parent)
