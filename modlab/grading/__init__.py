"""Grading's mechanisms: what a scenario is, what it observes, and what the trusted side makes of it.

Any course uses them; a course's own content (its scenarios, the models and
views they share, its misconception catalog) lives on the course's side, in
its ``graders/`` folder, and imports what it needs from here.

- what a grader file is made of: :mod:`.scenario` (``@scenario``),
  :mod:`.observe` (observations as plain data, :func:`attempt`),
  :mod:`.loader` (importing a course's graders as a package);
- what the trusted side makes of two observations: :mod:`.compare` (where
  they part), :mod:`.evidence` (what a detector may read), :mod:`.catalog`
  (misconception entries and their detection), :mod:`.explain` (what an
  exception means).

Scenario bodies and the modules they use run in workers too, with the oracle
or the graded package as ``nn``; comparison and detection run only in the
grading process. Grader files import from here (a public API: keep it
stable)::

    from modlab.grading import Tolerance, attempt, scenario
    from modlab.grading.catalog import misconception

May import: :mod:`modlab.course`. Never isolation, the engine or anything above them.
"""
from .compare import Tolerance
from .observe import attempt
from .scenario import scenario

__all__ = ["Tolerance", "attempt", "scenario"]
