"""What the graders' scenarios build and observe, one module per exercise (``ex03_walk.py``).

A grader file holds its scenarios and their parameters (the misconceptions they
try, tolerances, the Hypothesis strategies that draw their cases) and nothing
else: the models its scenarios build and the views they return live here,
beside the misconception catalog's module of the same exercise. What several
exercises use lives in :mod:`modlab.grading.probes` (views) and
:mod:`modlab.grading.trees` (random module trees).

Helpers run where scenarios run: in the workers, with ``nn`` torch.nn or the
graded package. They ship in the student kit with the modlab tool, so no
hidden scenario's name or solution's text may appear here (``modlab release``
refuses a kit that holds one).
"""
