"""The course's grading content: one folder per exercise of ``course.yaml`` (its scenarios,
the models and views they share, its misconception catalog) and ``shared/`` for what several
exercises use. modlab imports it as a package of its own (:mod:`modlab.grading.loader`)."""
