"""Grading's own knowledge: scenarios, observations, comparison, evidence, misconceptions.

- what a grader file is made of: :mod:`.scenario`, :mod:`.observe` (observations
  as plain data), :mod:`.probes` and :mod:`.views` (what scenarios observe),
  :mod:`.models` (small models scenarios build), :mod:`.trees` (random module
  trees), :mod:`.loader` (importing grader files);
- what the trusted side makes of two observations: :mod:`.compare` (where they
  part), :mod:`.evidence`, :mod:`.misconceptions` (the catalog and its
  detectors), :mod:`.explain` (what an exception means).

Scenario bodies and the modules they use run in workers too, with torch.nn or
the graded package as ``nn``; comparison and detection run only in the grading
process. Grader files import what they need from here (a public API: keep it
stable)::

    from modlab.grading import attempt, scenario
    from modlab.grading.probes import registers

May import: :mod:`modlab.course`. Never isolation, the engine or anything above them.
"""
from .compare import Tolerance
from .observe import attempt
from .scenario import scenario

__all__ = ["Tolerance", "attempt", "scenario"]
