"""The trusted side of grading: scenarios, observations, comparison, misconceptions.

Grader files import what they need from here::

    from modlab.grading import outcome, scenario
    from modlab.grading.probes import registers
"""
from .compare import Tolerance
from .observe import outcome
from .scenario import scenario

__all__ = ["Tolerance", "outcome", "scenario"]
