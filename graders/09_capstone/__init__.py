"""Exercise 09, Capstone: train with your own framework: its scenarios (``test_09_capstone.py``),
the models and views they share (``views.py``) and its misconception catalog
(``misconceptions.py``)."""
