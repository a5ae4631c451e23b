"""The student's side: ``modlab check``, ``status``, ``submit``, ``doctor`` and ``env``.

- :mod:`.workspace`: the student's folder (package, check records, submissions)
  and the one-line refusals of missing files and SyntaxErrors;
- :mod:`.check`: the public checks of one exercise on the whole package, recorded;
- :mod:`.status`: every exercise's last check, last submission and due date;
- :mod:`.submit`: one exercise's files packaged with a manifest;
- :mod:`.exchange`: the same files handed to nbgrader's exchange;
- :mod:`.doctor` (``modlab doctor``): what a model holds but never registered;
- :mod:`.environment` (``modlab env``): torch, CUDA and the device, as a grading worker sees them;
- :mod:`.lesson`: the lesson notebooks' explanation of a stub's ``NotImplementedError``.

All of it ships in the student kit (``modlab release``).

May import: :mod:`modlab.engine` and everything below it. Never the
instructor's tools, the batch or the CLI.
"""
