"""Grading a class: where the submissions lie, grading them in parallel, keeping the results.

- :mod:`.layout`: the class folder's layouts, the students, the shards;
- :mod:`.grading`: one class's grading (:class:`.grading.Batch`): its key, its warm-up,
  one submission's record;
- :mod:`.store`: the results folder, a record per student, written atomically;
- :mod:`.pool`: grading processes forked from a preloaded parent;
- :mod:`.merge`: the shards of one class, combined.

May import: :mod:`modlab.engine`, :mod:`modlab.isolation` (the start method),
:mod:`modlab.formats` (the gradebook, atomic files), :mod:`modlab.records`,
:mod:`modlab.course`. Never the student's or the instructor's tools, nor the CLI.
"""
