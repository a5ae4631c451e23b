"""Misconceptions of exercise 01, SGD's step."""
from modlab.grading.catalog import misconception

from .views import DECAYED, PLAIN


@misconception("weight-decay-ignored", "01", """
    weight decay is part of the step: SGD adds weight_decay * p to each gradient before stepping, so that the
    weights are pulled towards zero""")
def weight_decay_ignored(e):
    """Requires: the plain step agrees with torch, and the step with weight decay is torch's plain step.

    Neighbour: `weight_decay_subtracted` (01, variants.yaml) fails `one_step_moves_against_the_gradient` too,
    without a decayed step that is the plain one: the decay is there, with the wrong sign."""
    plain = e.pairs(PLAIN)
    return bool(plain) and all(e.agree(t, y) for t, y in plain) and any(
        e.agree(plain_t, y) for (plain_t, _), (_, y) in zip(plain, e.pairs(DECAYED)))
