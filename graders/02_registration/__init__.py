"""Exercise 02, Registration with __setattr__: its scenarios (``test_02_registration.py``), the
models and views they share (``views.py``) and its misconception catalog
(``misconceptions.py``)."""
