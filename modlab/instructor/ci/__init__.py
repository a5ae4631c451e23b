"""Grading a class from CI: the roster, the students' repositories fetched as data, commit statuses."""
