"""Grading with nbgrader: the course directory and the trusted autograde pipeline.

``modlab nbgrader init`` writes an nbgrader course directory from ``course.yaml``
(:mod:`.coursedir`); from there instructors use nbgrader's own commands. During
``nbgrader autograde`` the preprocessors of :mod:`.pipeline` grade the submitted
``.py`` files with modlab's trusted engine, outside the student's kernel, and
write the score into the notebook's one graded cell, where nbgrader's
``SaveAutoGrades`` records it.

Only this package imports nbgrader; the core of modlab runs without it.
"""
