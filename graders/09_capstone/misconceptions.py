"""Misconceptions of exercise 09, the capstone: the seeds' models trained with
the submission's own framework. Scenarios show the initial weights, every
step's loss, parameter names and counts, and which layers training changed."""
from __future__ import annotations

from modlab.grading.catalog import misconception
from modlab.grading.evidence import names

from .views import CHANGED, INITIAL, LOSSES, PARAMETER_NAMES, TWICE_SAME


@misconception("layers-in-a-plain-list", "09", """
    a layer kept in a plain Python list is never registered: parameters(), state_dict() and .to() only see
    what went through __setattr__ or add_module, so the optimizer trains only the head; keep the blocks in a
    ModuleList""")
def layers_in_a_plain_list(e):
    """Requires: the submission's model has none of torch's parameters under some attribute (all of ``blocks.*``)
    and no parameter torch's lacks; or training leaves layers unchanged that torch's training changes.

    Neighbour: `classifier_one_block_short` (09, student_bugs.yaml) fails `registration_table_before_and_after`
    too, without an attribute left unregistered: it builds one hidden block too few, so only ``blocks.2.*`` is
    missing.
    """
    for field, t, y in e.fields():
        want, got = names(t), names(y)
        if field == PARAMETER_NAMES and want and set(got) < set(want) and _attributes_unregistered(want, got):
            return True
    return any(t is True and y is False for changed_t, changed_y in e.pairs(CHANGED)
               for t, y in zip(changed_t, changed_y))


def _attributes_unregistered(want: list[str], got: list[str]) -> list[str]:
    """The attributes (first parts of the names) whose every parameter is in ``want`` and none in ``got``."""
    attributes = {name.split(".")[0] for name in want}
    return [a for a in attributes if not any(name.split(".")[0] == a for name in got)]


@misconception("layer-built-in-forward", "09", """
    a layer built inside forward() is a new layer with new random weights on every call: build layers in
    __init__, use them in forward""")
def layer_built_in_forward(e):
    """Requires: calling the same model twice on the same input gives the same output in torch, not in the
    submission.

    Neighbour: `classifier_one_block_short` (09, student_bugs.yaml) fails `models_are_fixed_functions` too,
    without two calls that differ: it builds one Linear too few, so the random numbers drawn afterwards differ.
    """
    return any(t is True and y is False
               for t, y in e.pairs_where(lambda name, value: name.endswith(TWICE_SAME)))


@misconception("steps-differ", "09", """
    the same model, the same seed and the same data must take the same steps: build the layer in __init__ with
    your Linear (drawing torch's initial weights), compute MSELoss's mean of squared errors, and for each step
    call zero_grad(), backward() and step() of one torch.optim.SGD over model.parameters()""")
def steps_differ(e):
    """Requires: the initial weights and the first loss agree with torch's, a later loss does not.

    Neighbour: `tiny_model_without_bias` (09, student_bugs.yaml) fails `line_fit_matches_torch_step_for_step`
    too, without initial weights that agree: its Linear has no bias, so the model starts from other parameters.
    """
    initial = e.pairs(INITIAL)
    if not initial or not all(len(t) == len(y) and all(e.agree(a, b) for a, b in zip(t, y)) for t, y in initial):
        return False
    for t, y in e.pairs(LOSSES):
        if isinstance(t, list) and isinstance(y, list) and t and y and e.agree(t[0], y[0]) \
                and any(not e.agree(a, b) for a, b in zip(t, y)):
            return True
    return False
