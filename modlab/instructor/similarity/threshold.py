"""The similarity above which a pair is flagged, chosen from the class's own pairs.

How alike two honest students' code is depends on the exercise: short
functions leave little room for personal style. So the default threshold is
set per exercise from the distribution of its pairs' scores: a pair is an
outlier when its *modified z-score* exceeds 3.5 (Iglewicz and Hoaglin's rule:
the median and the median absolute deviation, MAD, in place of the mean and
the standard deviation, so that a few extreme pairs move neither):

    threshold = median + 3.5 * MAD / 0.6745

The MAD is measured on the pairs *below* the median only. Copies are the
pairs far above it; as long as fewer than half the pairs are copies, none of
them is below the median, so the copies being looked for cannot widen the
spread that decides what counts as extreme.

The result is clamped to [50 %, 90 %]: a pair sharing less than half of its
own code is never flagged, and a pair sharing 90 % always is. With fewer
than :data:`MIN_PAIRS` pairs there is no distribution to speak of, and the
floor is used.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FLOOR, CEILING = 0.5, 0.9
MODIFIED_Z = 3.5
MAD_TO_SIGMA = 0.6745  # the MAD of a normal distribution, in standard deviations
MIN_PAIRS = 10


@dataclass(frozen=True)
class Threshold:
    """A threshold and, in words, where it came from."""

    value: float
    rule: str


def chosen_threshold(scores: np.ndarray) -> Threshold:
    """The default threshold for one exercise's pair scores (each in [0, 1]).

    Example::

        >>> chosen_threshold(np.array([0.3] * 20 + [1.0])).value   # no spread: the floor
        0.5
    """
    if scores.size < MIN_PAIRS:
        return Threshold(FLOOR, f"the floor, {percent(FLOOR)}: {scores.size} pairs are too few to choose from")
    median = float(np.median(scores))
    mad = float(np.median(median - scores[scores <= median]))
    outlier = median + MODIFIED_Z * mad / MAD_TO_SIGMA
    value = min(CEILING, max(FLOOR, outlier))
    rule = (f"from the {scores.size} pairs: median {percent(median)} + {MODIFIED_Z} x MAD below it {percent(mad)} / "
            f"{MAD_TO_SIGMA} = {percent(outlier)}")
    if value != outlier:
        rule += f", raised to the floor {percent(FLOOR)}" if value == FLOOR else f", lowered to the ceiling {percent(CEILING)}"
    return Threshold(value, rule)


def given_threshold(value: float) -> Threshold:
    return Threshold(value, f"given: --threshold {value:g}")


def percent(share: float) -> str:
    return f"{100 * share:.0f}%"
