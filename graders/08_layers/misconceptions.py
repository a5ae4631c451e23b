"""Misconceptions of exercise 08, real layers and print(model). Layer
scenarios show registers as ``{name: {kind, dtype, shape}}``, a BatchNorm's
``buffers`` by name at each step beside its output, and a printed model as
its ``printed lines`` (leading spaces shown as ``·``)."""
from __future__ import annotations

import re

from modlab.grading.catalog import misconception
from modlab.grading.evidence import TensorView, raised, same

from .views import (BIAS, BN_BUFFERS, IN_EVAL, LAYER_TENSORS, LOAD_STRICT, NUM_BATCHES_TRACKED, PRINTED_LINES,
                    UNCHANGED_IN_EVAL, WEIGHT)

FOLDED = re.compile(r"^\(\d+-\d+\): \d+ x (.*)")  # a run of equal layers torch prints once: its text
CHILD = re.compile(r"^\(\d+\): (.*)")  # one numbered child: its text


@misconception("init-draws-differ", "08", """
    initialise like torch.nn.Linear: weight = Parameter(torch.empty(out_features, in_features)), then
    init.kaiming_uniform_(weight, a=math.sqrt(5)) and the bias uniform in ±1/sqrt(in_features): the same random
    calls in the same order give bit-identical weights under a seed""")
def init_draws_differ(e):
    """Requires: every initial weight and bias has torch's class, dtype and shape, and some have other values.

    Neighbour: `linear_weight_bare_tensor` (08, variants.yaml) fails `linear_initial_weights_match_under_a_seed` too,
    without torch's class: its weight is a bare tensor, not a Parameter."""
    drawn = e.pairs_where(lambda name, value: name in (WEIGHT, BIAS))
    if any(isinstance(t, TensorView) and (not isinstance(y, TensorView) or t.cls != y.cls) for t, y in drawn):
        return False
    for t, y in drawn:
        if isinstance(t, TensorView) and isinstance(y, TensorView) and (t.cls, t.dtype, t.shape) == (y.cls, y.dtype, y.shape) \
                and not same(t, y):
            return True
    return False


@misconception("count-is-integer", "08", """
    num_batches_tracked counts batches: torch.tensor(0, dtype=torch.long), an integer buffer that .to(dtype)
    leaves alone""")
def count_is_integer(e):
    """Requires: num_batches_tracked is an int64 tensor in torch and of another dtype in the submission.

    Neighbour: `batchnorm_updates_in_eval` (08, variants.yaml) fails `batchnorm_eval_uses_running_stats` too,
    without a count of another dtype: it updates the running statistics in eval mode."""
    for t, y in e.pairs(NUM_BATCHES_TRACKED):
        dtype_t = t.dtype if isinstance(t, TensorView) else t.get("dtype", "") if isinstance(t, dict) else ""
        dtype_y = y.dtype if isinstance(y, TensorView) else y.get("dtype", "") if isinstance(y, dict) else ""
        if "int64" in str(dtype_t) and dtype_y and "int64" not in str(dtype_y):
            return True
    return False


def _steps(e):
    """``(torch, yours)`` of each step that shows a BatchNorm's output beside its buffers."""
    return [(t, y) for t, y in e.pairs_where(lambda name, value: isinstance(value, dict) and BN_BUFFERS in value
                                              and any(key.startswith("bn(") for key in value)) if isinstance(y, dict)]


@misconception("running-stats-formula", "08", """
    running = (1 - momentum) * running + momentum * batch statistic, with the unbiased batch variance (divide
    by n - 1) for running_var but the biased one (divide by n) to normalize; momentum=None averages all
    batches so far (factor 1 / num_batches_tracked)""")
def running_stats_formula(e):
    """Requires: in training, a step's output and num_batches_tracked agree with torch's and its running_mean
    or running_var do not (a miscounted step makes momentum=None's average differ, with a right formula).

    Neighbour: `num_batches_tracked_float` (08, variants.yaml) fails `batchnorm_training_updates_running_stats` too,
    without running estimates that differ: its counter is a float tensor."""
    for t, y in _steps(e):
        outputs_agree = all(k in y and e.agree(t[k], y[k]) for k in t if k.startswith("bn(") and not k.endswith(IN_EVAL))
        if not any(k.startswith("bn(") and not k.endswith(IN_EVAL) for k in t):
            continue
        buffers_t, buffers_y = t[BN_BUFFERS], y.get(BN_BUFFERS, {})
        counted = e.agree(buffers_t.get("num_batches_tracked"), buffers_y.get("num_batches_tracked"))
        if outputs_agree and counted and any(not e.agree(buffers_t.get(k), buffers_y.get(k))
                                             for k in ("running_mean", "running_var")):
            return True
    return False


@misconception("eval-updates-stats", "08", """
    in eval mode BatchNorm normalizes with running_mean and running_var and updates nothing: neither the
    running estimates nor num_batches_tracked change""")
def eval_updates_stats(e):
    """Requires: the buffers stay unchanged in eval mode in torch and change in the submission, or an eval
    call fails as in training (a batch of one).

    Neighbour: `running_var_biased` (08, variants.yaml) fails `batchnorm_eval_uses_running_stats` too, without
    buffers that change in eval mode: its running_var, built in training, is biased."""
    if any(raised(y, "ValueError") and "training" in y.message and not raised(t)
           for t, y in e.pairs_where(lambda name, value: name.endswith(IN_EVAL))):
        return True
    return any(t is True and y is False for unchanged_t, unchanged_y in e.pairs(UNCHANGED_IN_EVAL)
               for t, y in zip(unchanged_t.values(), unchanged_y.values()))


@misconception("extra-repr-settings", "08", """
    print(model) shows each layer's settings through extra_repr, written exactly as torch writes them,
    e.g. 'in_features=2, out_features=3, bias=True'""")
def extra_repr_settings(e):
    """Requires: a layer prints its class name as torch does and, on that line, other settings inside the
    parentheses (some, not none), while the layers hold torch's parameters and buffers (a layer built
    with a bias prints bias=True truly).

    Neighbour: `default_extra_repr_returns_none` (08, variants.yaml) fails `repr_of_each_layer` too, without a
    layer printed with other settings: Module's own extra_repr returns None instead of ""."""
    if any(t != y for t, y in e.pairs(LAYER_TENSORS)):
        return False
    for t, y in e.pairs_where(lambda name, value: name.startswith("repr(") and isinstance(value, str)):
        if isinstance(y, str) and t != y and "\n" not in t and t.split("(", 1)[0] == y.split("(", 1)[0] \
                and _first_settings(y):
            return True
    return False


def _first_settings(text: str) -> str:
    """What a printed layer writes on its first line inside its parentheses ("" for none)."""
    return text.split("(", 1)[-1].split("\n")[0].removesuffix(")").strip()


def _printed(e):
    return [(t, y) for t, y in e.pairs(PRINTED_LINES) if isinstance(t, list) and isinstance(y, list)]


@misconception("repr-tree", "08", """
    __repr__ walks _modules: the class name, then extra_repr's lines and one '(name): child' line per child,
    indented two spaces (a child's own lines too); a one-line extra_repr without children stays on one line""")
def repr_tree(e):
    """Requires: the printed lines are torch's lines with other indentation, or other lines in the tree's
    layout, and no run of equal layers is folded differently.

    Neighbour: `module_list_prints_every_layer` (08, variants.yaml) fails `repr_folds_equal_layers_in_a_module_list`
    too, without torch's lines: it prints each layer of a run torch folds into one line."""
    if repr_folds_repeats.detector(e):
        return False
    for t, y in _printed(e):
        if t != y and [row.lstrip("·") if row else row for row in t] == [row.lstrip("·") if row else row for row in y]:
            return True
    return False


@misconception("repr-folds-repeats", "08", """
    print(ModuleList) folds a run of equal layers into one line, '(0-2): 3 x Linear(...)', as torch does
    (ModuleList's own __repr__), while Sequential prints every child""")
def repr_folds_repeats(e):
    """Requires: torch folds more runs of layers ('(0-2): 3 x text') than the submission, which prints each
    layer of such a run as '(i): text' and otherwise torch's lines.

    Neighbour: `repr_children_not_indented` (08, variants.yaml) fails `repr_folds_equal_layers_in_a_module_list` too,
    without fewer folded runs: it folds as torch does and leaves the children's own lines unindented."""
    return any(_folded(t) > _folded(y) and _unfolded(t, y) for t, y in _printed(e))


def _folded(rows) -> int:
    return sum(1 for row in rows if isinstance(row, str) and FOLDED.match(row.lstrip("·")))


def _unfolded(torch_rows, your_rows) -> bool:
    """Whether each row you print that torch does not is one layer of a run torch folds: '(i): text'
    where torch prints '(a-b): n x text'."""
    folded = {found[1] for row in torch_rows if isinstance(row, str) and (found := FOLDED.match(row.lstrip("·")))}
    return all(row in torch_rows or isinstance(row, str) and (found := CHILD.match(row.lstrip("·"))) is not None
               and found[1] in folded for row in your_rows)


@misconception("reset-keeps-stats", "08", """
    reset_running_stats() starts the estimates afresh in place (running_mean.zero_(), running_var.fill_(1),
    num_batches_tracked.zero_()), and reset_parameters() calls it before resetting weight to ones and bias
    to zeros, as torch.nn.BatchNorm1d does""")
def reset_keeps_stats(e):
    """Requires: after a reset, some running estimate has torch's shape and dtype and other values (the old ones).

    Neighbour: `num_batches_tracked_float` (08, variants.yaml) fails `batchnorm_resets` too, without old values in
    an estimate of torch's dtype: only its counter differs, a float tensor."""
    for t, y in e.pairs(BN_BUFFERS):
        if not (isinstance(t, dict) and isinstance(y, dict)):
            continue
        for name, want in t.items():
            got = y.get(name)
            if isinstance(want, TensorView) and isinstance(got, TensorView) and (want.dtype, want.shape) == \
                    (got.dtype, got.shape) and not e.agree(want, got):
                return True
    return False


@misconception("old-checkpoint-refused", "08", """
    a checkpoint saved before version 2 has no num_batches_tracked: BatchNorm1d's _load_from_state_dict reads
    local_metadata.get('version') and, for None or a version under 2, fills the missing key with the
    layer's own counter before calling super(), so that the old checkpoint loads strictly""")
def old_checkpoint_refused(e):
    """Requires: a strict load of a checkpoint older than version 2 returned in torch and raised in the submission.

    Neighbour: `running_var_biased` (08, variants.yaml) fails `batchnorm_old_checkpoint` too, without a load that
    raises: it loads the old checkpoint, then tracks a biased running_var."""
    return any(not raised(t) and raised(y, "RuntimeError")
               for t, y in e.pairs(LOAD_STRICT))
