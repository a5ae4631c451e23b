"""Exercise 07, Device and dtype migration: its scenarios (``test_07_migration.py``), the models
and views they share (``views.py``) and its misconception catalog (``misconceptions.py``)."""
