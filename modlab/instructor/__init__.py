"""The instructor's tools: generate the course, release the kit, grade with nbgrader, report.

- generating: :mod:`.build` (stubs from the reference), :mod:`.notebooks` (lessons),
  :mod:`.catalog_doc` (docs/misconceptions.md);
- the student kit: :mod:`.release`, :mod:`.student_readme`, :mod:`.kit_ci`;
- grading elsewhere: :mod:`.pytest_plugin` (``pytest graders/``), :mod:`.nbgrader`, :mod:`.gradescope`,
  :mod:`.ci` (roster, fetching repositories, commit statuses);
- reading results: :mod:`.report`, :mod:`.similarity`;
- the feedback's own test data: :mod:`.variants` (labelled buggy submissions).

May import: :mod:`modlab.batch`, :mod:`modlab.engine` and everything below them.
Never the student's side or the CLI.
"""
