"""Misconceptions of exercise 02, momentum."""
from modlab.grading.catalog import misconception

from .views import BUFFER, FIRST, SECOND_GRADIENT


@misconception("momentum-buffer-not-kept", "02", """
    the momentum buffer lives on between steps: keep it in the optimizer's state of each tensor
    (state["momentum_buffer"]) and update it in place, or every step starts again from its own gradient""")
def momentum_buffer_not_kept(e):
    """Requires: the first step agrees with torch; after the second, the submission's buffer is that step's
    gradient alone.

    Neighbour: `momentum_scales_the_gradient` (02, variants.yaml) fails `momentum_keeps_a_running_buffer` too,
    without a buffer that is the second gradient alone: the buffer is kept, but takes momentum times each new
    gradient."""
    first_agrees = all(e.agree(t, y) for t, y in e.pairs(FIRST))
    return first_agrees and any(e.agree(gradient, y) for (gradient, _), (_, y) in
                                zip(e.pairs(SECOND_GRADIENT), e.pairs(BUFFER)))
