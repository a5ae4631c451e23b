"""Exercise 01, SGD's plain step: its scenarios, the views they share and its catalog."""
