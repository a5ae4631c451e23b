"""Misconceptions of exercise 01, SGD's step."""
from modlab.grading.catalog import misconception

from .views import DECAYED, PLAIN


@misconception("weight-decay-ignored", "01", """
    weight decay is part of the step: SGD adds weight_decay * p to each gradient before stepping, so that the
    weights are pulled towards zero""")
def weight_decay_ignored(e):
    """The plain step agrees with torch, and the step with weight decay is torch's plain step."""
    plain = e.pairs(PLAIN)
    return bool(plain) and all(e.agree(t, y) for t, y in plain) and any(
        e.agree(plain_t, y) for (plain_t, _), (_, y) in zip(plain, e.pairs(DECAYED)))
