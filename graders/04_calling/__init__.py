"""Exercise 04, __call__, hooks and modes: its scenarios (``test_04_calling.py``), the models and
views they share (``views.py``) and its misconception catalog (``misconceptions.py``)."""
