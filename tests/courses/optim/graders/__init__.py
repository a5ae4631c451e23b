"""The optimizer course's grading content: one folder per exercise."""
