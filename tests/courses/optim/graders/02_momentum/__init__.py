"""Exercise 02, momentum: its scenarios, the views they share and its catalog."""
