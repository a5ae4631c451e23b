"""Exercise 01, Parameter, a tensor that asks to be trained: its scenarios
(``test_01_parameter.py``), the models and views they share (``views.py``) and its misconception
catalog (``misconceptions.py``)."""
