"""Code similarity across a class: who handed in whose code, starter code excluded.

``modlab similarity CLASS`` and the "Similar code" section of ``modlab report``
are built from three steps, one module each:

- :mod:`~modlab.instructor.similarity.documents`: read each student's files and
  fingerprint them with copydetect, the starter code taken out;
- :mod:`~modlab.instructor.similarity.pairs`: how much of each student's own code is
  in each other student's, for all pairs at once;
- :mod:`~modlab.instructor.similarity.threshold`: the score above which a pair stands
  out, chosen from each exercise's pairs;

put together by :mod:`~modlab.instructor.similarity.compare` and shown by
:mod:`~modlab.instructor.similarity.pages`. copydetect (and through it matplotlib) is
imported here, so import this package only when it is needed.
"""
from .compare import ExerciseSimilarity, Pair, compare_class
from .pages import report_section, write_pages

__all__ = ["ExerciseSimilarity", "Pair", "compare_class", "report_section", "write_pages"]
