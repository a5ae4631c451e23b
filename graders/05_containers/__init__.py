"""Exercise 05, Sequential, ModuleList, ModuleDict: its scenarios (``test_05_containers.py``), the
models and views they share (``views.py``) and its misconception catalog
(``misconceptions.py``)."""
