"""Exercise 03, The recursive walk: its scenarios (``test_03_walk.py``), the models and views they
share (``views.py``) and its misconception catalog (``misconceptions.py``)."""
