"""Exercise 08, Real layers: its scenarios (``test_08_layers.py``), the models and views they share
(``views.py``) and its misconception catalog (``misconceptions.py``)."""
