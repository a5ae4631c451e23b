"""The trusted side of grading: scenarios, observations, comparison, hints.

Grader files import what they need from here::

    from modlab.grading import hints, outcome, scenario
"""
from . import hints
from .compare import Tolerance
from .observe import outcome
from .scenario import scenario

__all__ = ["Tolerance", "hints", "outcome", "scenario"]
