"""Result records written out: text a person reads, files another tool reads.

- for people: :mod:`.feedback` (a failed check, a check's report), :mod:`.table`
  (score tables), :mod:`.terminal` (tables and progress, on rich), :mod:`.markdown`;
- for tools: :mod:`.jsonfile`, :mod:`.junit`, :mod:`.gradescope`, :mod:`.csv`
  (the gradebook), and :mod:`.outputs`, the files ``modlab grade`` writes.

Every renderer reads :mod:`modlab.records` and nothing else of a grade.
May import: :mod:`modlab.records`, :mod:`modlab.course`. Never grading, isolation,
the engine or anything above them.
"""
