"""Grading on Gradescope: the ``autograder.zip`` an instructor uploads, and what it runs.

- building the zip: :mod:`.bundle` (its files), :mod:`.scripts` (``setup.sh``, ``run_autograder``);
- in Gradescope's image: :mod:`.autograder` (``modlab gradescope run``), :mod:`.upload`
  (what a student uploaded, made into a package folder to grade).

Only the last two go into the zip, so this package imports none of its modules.
docs/gradescope.md is the instructor's guide.
"""
