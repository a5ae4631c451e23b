"""Exercise 06, state_dict and strict loading: its scenarios (``test_06_state.py``), the models and
views they share (``views.py``) and its misconception catalog (``misconceptions.py``)."""
