"""The engine: a submission's exercises graded against torch's answers, case by case.

Everything that grades goes through it: ``modlab grade`` and a batch
(:func:`grade_submission`, :func:`grade_in_turn`), ``modlab check`` and the
nbgrader preprocessor (:func:`grade_exercise`), the pytest plugin (one case at
a time, :meth:`ExerciseGrading.check`). One module a job:

- :mod:`.options`: how to grade (:class:`GradeOptions`);
- :mod:`.oracle`: torch's answers, and their cache on disk;
- :mod:`.memory`: what a grading process learns as it grades (answers,
  passing and failing searches) and hands to another, as one object;
- :mod:`.verdict`: one case's comparison, and the failure record it makes;
- :mod:`.search`: a property check's Hypothesis search, its replay and follow;
- :mod:`.scoring`: an exercise's score from its tests' weights;
- :mod:`.exercise`: one exercise's grading: its worker, deadline, verdicts.

May import: :mod:`modlab.isolation` (the workers), :mod:`modlab.grading`
(scenarios, comparison, evidence, misconceptions), :mod:`modlab.formats` (the
words of a message), :mod:`modlab.records`, :mod:`modlab.fingerprint`,
:mod:`modlab.course`. Never the batch, the tools or the CLI.
"""
from .exercise import (CUDA_ABSENT, MAX_TIMEOUTS, ExerciseGrading, grade_exercise, grade_in_turn, grade_submission,
                       package_sources)
from .memory import Memory, process_memory
from .options import GRAFT, WHOLE, GradeOptions

__all__ = ["CUDA_ABSENT", "GRAFT", "MAX_TIMEOUTS", "WHOLE", "ExerciseGrading", "GradeOptions", "Memory",
           "grade_exercise", "grade_in_turn", "grade_submission", "package_sources", "process_memory"]
