"""The student's side: ``modlab check``, ``status`` and ``submit`` on the student's own folder.

- :mod:`.workspace`: the student's folder (package, check records, submissions)
  and the one-line refusals of missing files and SyntaxErrors;
- :mod:`.check`: the public checks of one exercise on the whole package, recorded;
- :mod:`.status`: every exercise's last check, last submission and due date;
- :mod:`.submit`: one exercise's files packaged with a manifest;
- :mod:`.exchange`: the same files handed to nbgrader's exchange.

May import: :mod:`modlab.engine` and everything below it. Never the
instructor's tools, the batch or the CLI.
"""
