"""Exercise 08: real layers (Linear, ReLU, BatchNorm1d, MSELoss) and print(model).

What torch fixes exactly is compared bit for bit: initial weights under a
seed (the same random calls in the same order), registers and their dtypes,
copies, repr strings. What a layer *computes* is compared with ``CLOSE``,
because a correct forward pass written with other tensor operations rounds
differently from torch's fused kernels.
"""
import copy

from hypothesis import strategies as st
import torch

from modlab.grading import Tolerance, attempt, scenario

from ..shared.misconceptions import bare_tensor
from .misconceptions import (count_is_integer, eval_updates_stats, extra_repr_settings, init_draws_differ,
                             old_checkpoint_refused, repr_folds_repeats, repr_tree, reset_keeps_stats,
                             running_stats_formula)
from .views import (BIAS, BN_BUFFERS, LAYER_TENSORS, LOAD_STRICT, NUM_BATCHES_TRACKED, UNCHANGED_IN_EVAL, WEIGHT,
                    build, grads, built_code, in_eval, old_batchnorm_checkpoint, printed, state, tensor_registers)

# torch.optim's first optimizer imports torch._dynamo (2-10 s on a busy machine): where the
# workers come from imports it once, keeping it out of every scenario's time limit.
WORKER_IMPORTS = ("torch._dynamo",)

# The tolerance for computed floats. A correct forward pass written with other
# tensor operations (matmul instead of addmm, mean and var instead of torch's
# fused batch_norm kernel, E[x^2] - E[x]^2, rsqrt) rounds differently: on O(1)
# data a hand-written BatchNorm1d was measured within 4e-6 of torch, its
# gradients within 3.3e-6, and since those gradients sum to ~0 through the
# mean, single elements sit near zero with relative gaps up to 5e-5, which
# allclose's defaults (atol=1e-8, rtol=1e-5) reject. So the absolute term
# carries the elements near zero (atol 1e-5, 3x the largest gap seen) and the
# relative term the large ones (rtol 1e-4, about 1000 float32 ulps). The
# reference and such an alternative use at most 2% of this tolerance on the
# scenarios below, and every mistake graded here moves values far more: eps
# outside the square root moves a feature of variance 1e-4 by ~5%, biased for
# unbiased running variance by n/(n-1), swapped momentum terms by ~9x. Inputs
# stay O(1), so the absolute term means what it says.
CLOSE = Tolerance(rtol=1e-4, atol=1e-5)

REGISTERING = [bare_tensor, count_is_integer]
BATCHNORM = [count_is_integer, running_stats_formula, eval_updates_stats]


# ---------------------------------------------------------------- Linear

@scenario(points=3, public=True, misconceptions=[bare_tensor, init_draws_differ])
def linear_initial_weights_match_under_a_seed(nn):
    """Linear draws torch's initial weights under the same seed, bit for bit"""
    layers = {"Linear(3, 4)": nn.Linear(3, 4), "Linear(1, 1)": nn.Linear(1, 1),
              "Linear(7, 2, bias=False)": nn.Linear(7, 2, bias=False), "Linear(64, 3)": nn.Linear(64, 3)}
    after = torch.rand(2)  # the same number of random draws leaves the generator in the same state
    return {**{f"{call}: weight and bias": {WEIGHT: layer.weight, BIAS: layer.bias} for call, layer in layers.items()},
            "torch.rand(2) after them": after}


@scenario(points=2, public=True, misconceptions=REGISTERING)
def linear_registers_weight_and_bias(nn):
    """Linear registers weight and bias as Parameters (bias=False keeps an empty slot)"""
    with_bias, without = nn.Linear(3, 2), nn.Linear(3, 2, bias=False)
    return {"Linear(3, 2)": tensor_registers(with_bias), "Linear(3, 2, bias=False)": tensor_registers(without),
            "named_parameters() names": [name for name, _ in with_bias.named_parameters()],
            "[in_features, out_features]": [with_bias.in_features, with_bias.out_features],
            "state_dict() keys without bias": list(without.state_dict())}


@scenario(points=2, public=True, tolerance=CLOSE)
def linear_forward_and_gradients(nn):
    """Linear computes x @ weight.T + bias over any leading dimensions, with torch's gradients"""
    layer = nn.Linear(4, 3)
    seen = {}
    for shape in [(5, 4), (2, 3, 4), (4,)]:
        x = torch.randn(shape, requires_grad=True)
        out = layer(x)
        (out * torch.randn(out.shape)).sum().backward()
        seen[f"x of shape {shape}"] = {"layer(x)": out, **grads(x=x, weight=layer.weight, bias=layer.bias)}
        layer.zero_grad()
    return seen


@scenario(points=1, devices=True)
def linear_factory_arguments(nn, device):
    """Linear(..., device=, dtype=) creates its parameters there, with the same values"""
    layer = nn.Linear(3, 2, device=device, dtype=torch.float64)
    out = layer(torch.ones(1, 3, device=device, dtype=torch.float64))
    return {WEIGHT: layer.weight, BIAS: layer.bias, "out.dtype": out.dtype, "out.device": out.device.type}


@scenario(points=2, tolerance=CLOSE, misconceptions=[bare_tensor])
def linear_trains_with_torch_optim(nn):
    """torch.optim.SGD over Linear's parameters() updates the layer in place"""
    layer = nn.Linear(3, 1)
    weight = layer.weight
    registered = tensor_registers(layer)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    for _ in range(5):
        optimizer.zero_grad()
        ((layer(x) - y) ** 2).mean().backward()
        optimizer.step()
    return {"registers": registered, "layer.weight is the same object": layer.weight is weight,
            "layer.weight": layer.weight, "layer.bias": layer.bias}


@scenario(points=1, misconceptions=BATCHNORM)
def layer_copies_are_exact(nn):
    """deepcopy and load_state_dict copy layers' parameters and buffers bit for bit"""
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    model(torch.randn(6, 3))
    original = model.state_dict()
    twin = copy.deepcopy(model)
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    fresh.load_state_dict(original)
    same = {label: {key: same_bits(value, copied.state_dict()[key]) for key, value in original.items()}
            for label, copied in (("deepcopy", twin), ("load_state_dict", fresh))}
    return {"equal to the original": same, NUM_BATCHES_TRACKED: twin.state_dict()["1.num_batches_tracked"],
            "twin[0].weight is model[0].weight": twin[0].weight is model[0].weight}


def same_bits(tensor, other) -> bool:
    """torch.equal, where a NaN copied bit for bit counts as the same, not as unequal (a NaN
    equals nothing): a layer whose weights were never initialised holds whatever the memory
    did, NaN or not, and would pass or fail a check of its copies by chance."""
    if torch.equal(tensor, other):
        return True
    as_bytes = [t.detach().flatten().view(torch.uint8) for t in (tensor, other)]
    return tensor.dtype == other.dtype and tensor.shape == other.shape and torch.equal(*as_bytes)


# ---------------------------------------------------------------- ReLU

@scenario(points=1, public=True, tolerance=CLOSE)
def relu_forward_and_gradient(nn):
    """ReLU zeroes negative entries, keeps no state, and passes gradients where x > 0"""
    relu = nn.ReLU()
    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 3.0])
    out = relu(x)
    y = torch.tensor([-1.5, -0.25, 0.25, 2.0], requires_grad=True)  # no exact zero: the kink is a convention
    relu(y).pow(2).sum().backward()
    return {"relu(x)": out, "y.grad": y.grad, "registers": tensor_registers(relu), "relu(x) is x": out is x, "x": x}


@scenario(points=1)
def relu_inplace(nn):
    """ReLU(inplace=True) overwrites its input and returns it"""
    x = torch.tensor([-1.0, 2.0, -3.0])
    out = nn.ReLU(inplace=True)(x)
    return {"out is x": out is x, "x": x, "ReLU(True).inplace": nn.ReLU(True).inplace}


# ---------------------------------------------------------------- BatchNorm1d

@scenario(points=2, public=True, misconceptions=REGISTERING)
def batchnorm_registers_parameters_and_buffers(nn):
    """BatchNorm1d registers weight/bias and running_mean/running_var/num_batches_tracked like torch"""
    variants = {"BatchNorm1d(3)": nn.BatchNorm1d(3), "BatchNorm1d(2, affine=False)": nn.BatchNorm1d(2, affine=False),
                "BatchNorm1d(2, track_running_stats=False)": nn.BatchNorm1d(2, track_running_stats=False),
                "BatchNorm1d(2, dtype=torch.float64)": nn.BatchNorm1d(2, dtype=torch.float64)}
    return {call: {"registers": tensor_registers(bn), "state_dict() keys": list(bn.state_dict()), BN_BUFFERS: state(bn),
                   WEIGHT: bn.weight, BIAS: bn.bias} for call, bn in variants.items()}


@scenario(points=3, public=True, tolerance=CLOSE, misconceptions=BATCHNORM)
def batchnorm_training_updates_running_stats(nn):
    """in training mode BatchNorm1d normalizes with batch statistics and updates the running estimates"""
    bn = nn.BatchNorm1d(4)
    # Feature 1 varies little (variance ~1e-4), so eps placed outside the square
    # root shows; it is centred on 0, so computing the variance as
    # E[x^2] - E[x]^2 loses no more digits than any other correct way.
    spread, centre = torch.tensor([1.0, 0.01, 3.0, 0.5]), torch.tensor([1.0, 0.0, -1.0, 0.5])
    seen = [{BN_BUFFERS: state(bn)}]  # where the estimates start, told apart from how they move
    for _ in range(3):
        seen.append({"bn(x)": bn(torch.randn(8, 4) * spread + centre), BN_BUFFERS: state(bn)})
    return seen


@scenario(points=3, public=True, tolerance=CLOSE, misconceptions=BATCHNORM)
def batchnorm_eval_uses_running_stats(nn):
    """in eval mode BatchNorm1d normalizes with the running estimates and updates nothing"""
    bn = nn.BatchNorm1d(3)
    for _ in range(2):
        bn(torch.randn(6, 3) * 2 + 1)
    bn.eval()
    before = {name: t.clone() for name, t in state(bn).items()}
    outs = {in_eval("bn(x)"): attempt(bn, torch.randn(5, 3)), in_eval("bn(a batch of one)"): attempt(bn, torch.randn(1, 3))}
    unchanged = {name: torch.equal(before[name], t) for name, t in state(bn).items()}
    return {"buffers before eval": before, **outs, UNCHANGED_IN_EVAL: unchanged}


@scenario(points=2, public=True, tolerance=CLOSE, misconceptions=BATCHNORM)
def batchnorm_momentum_none_averages(nn):
    """momentum=None keeps a cumulative average of the batch statistics"""
    bn = nn.BatchNorm1d(2, momentum=None)
    seen = []
    for scale in (1.0, 2.0, 0.5, 3.0):
        seen.append({"bn(x)": bn(torch.randn(7, 2) * scale), BN_BUFFERS: state(bn)})
    return seen


@scenario(points=2, tolerance=CLOSE, misconceptions=BATCHNORM)
def batchnorm_gradients(nn):
    """BatchNorm1d's gradients reach the input, weight and bias, in training and eval mode"""
    bn = nn.BatchNorm1d(3)
    seen = {}
    for mode in (True, False):
        bn.train(mode)
        x = (torch.randn(6, 3) + 1).requires_grad_()
        (bn(x) * torch.randn(6, 3)).sum().backward()
        seen[f"training={mode}"] = grads(x=x, weight=bn.weight, bias=bn.bias)
        bn.zero_grad()
    return seen


@scenario(points=1)
def batchnorm_rejects_bad_inputs(nn):
    """BatchNorm1d raises ValueError for a 1D or 4D input, and for one value per feature in training"""
    bn = nn.BatchNorm1d(3)
    return {"bn(a 1D input)": attempt(bn, torch.randn(3)), "bn(a 4D input)": attempt(bn, torch.randn(2, 3, 2, 2)),
            "bn(a batch of one)": attempt(bn, torch.randn(1, 3)), "bn(one value per feature, 3D)": attempt(bn, torch.randn(1, 3, 1))}


# A BatchNorm1d setting and a run through it: features, momentum, affine,
# track_running_stats, input rank, training batches, then an eval batch.
BATCHNORM_RUNS = st.fixed_dictionaries({
    "features": st.integers(1, 4),
    "momentum": st.sampled_from([0.1, 0.5, None]),
    "affine": st.booleans(),
    "track": st.booleans(),
    "rank": st.sampled_from([2, 3]),
    "batches": st.integers(1, 3),
})


@scenario(points=3, tolerance=CLOSE, specs=BATCHNORM_RUNS, examples=20, misconceptions=BATCHNORM)
def batchnorm_random_settings(nn, spec):
    """every BatchNorm1d setting trains and evaluates like torch's, 2D and 3D inputs"""
    bn = nn.BatchNorm1d(spec["features"], momentum=spec["momentum"], affine=spec["affine"],
                        track_running_stats=spec["track"])
    shape = (5, spec["features"]) if spec["rank"] == 2 else (4, spec["features"], 3)
    seen = [{BN_BUFFERS: state(bn)}]  # where the estimates start, told apart from how they move
    seen += [{"bn(x)": bn(torch.randn(shape) * 2 + 0.5), BN_BUFFERS: state(bn)} for _ in range(spec["batches"])]
    bn.eval()
    seen.append({in_eval("bn(x)"): bn(torch.randn(shape)), BN_BUFFERS: state(bn)})
    return seen


# ---------------------------------------------------------------- MSELoss

@scenario(points=2, public=True, tolerance=CLOSE)
def mse_loss_reductions(nn):
    """MSELoss gives the mean, the sum or the elementwise squared errors, with torch's gradients"""
    x, target = torch.randn(4, 3), torch.randn(4, 3)
    seen = {}
    for reduction in ("mean", "sum", "none"):
        guess = x.clone().requires_grad_()
        loss = nn.MSELoss(reduction=reduction)(guess, target)
        loss.sum().backward()
        seen[f"reduction={reduction!r}"] = {"loss": loss, "guess.grad": guess.grad}
    return seen


@scenario(points=1)
def mse_loss_setting_and_errors(nn):
    """MSELoss keeps its reduction, holds no parameters, and rejects an unknown reduction"""
    loss = nn.MSELoss()
    return {"loss.reduction": loss.reduction, "list(loss.parameters())": list(loss.parameters()),
            "loss(ones, ones)": loss(torch.ones(2), torch.ones(2)),
            "MSELoss(reduction='average')(...)": attempt(lambda: nn.MSELoss(reduction="average")(torch.ones(2), torch.zeros(2)))}


# ---------------------------------------------------------------- print(model)

@scenario(points=2, public=True, misconceptions=[extra_repr_settings])
def repr_of_each_layer(nn):
    """each layer prints its settings exactly like torch"""
    layers = {"Linear(2, 3)": nn.Linear(2, 3), "Linear(5, 1, bias=False)": nn.Linear(5, 1, bias=False),
              "ReLU()": nn.ReLU(), "ReLU(inplace=True)": nn.ReLU(inplace=True), "BatchNorm1d(4)": nn.BatchNorm1d(4),
              "BatchNorm1d(8, eps=1e-3, momentum=None, affine=False, track_running_stats=False)":
                  nn.BatchNorm1d(8, eps=1e-3, momentum=None, affine=False, track_running_stats=False),
              "MSELoss()": nn.MSELoss(), "MSELoss(reduction='sum')": nn.MSELoss(reduction="sum"), "Module()": nn.Module()}
    return {**{f"repr({call})": repr(layer) for call, layer in layers.items()},
            LAYER_TENSORS: {call: [name for name, _ in (*layer.named_parameters(), *layer.named_buffers())]
                            for call, layer in layers.items()},
            "Linear(2, 3).extra_repr()": layers["Linear(2, 3)"].extra_repr(),
            "Module().extra_repr()": layers["Module()"].extra_repr()}


@scenario(points=3, public=True, misconceptions=[repr_tree, repr_folds_repeats])
def repr_of_nested_model(nn):
    """print(model) shows the registered tree: containers, nesting, empty slots"""
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.BatchNorm1d(4)
            self.act = nn.ReLU()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 4), Block(), nn.Sequential())
            self.heads = nn.ModuleList([nn.Linear(4, 1), nn.Linear(4, 2, bias=False)])
            self.spare = None
            self.add_module("missing", None)
            self.hidden = [nn.Linear(4, 4)]  # a plain list: not registered, not printed
            self.loss = nn.MSELoss()

    return printed(Net())


@scenario(points=2, public=True, misconceptions=[repr_tree, repr_folds_repeats])
def repr_folds_equal_layers_in_a_module_list(nn):
    """print(ModuleList) folds a run of equal layers into one line, as in the seed's classifier"""
    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(10, 64), nn.Linear(64, 64), nn.Linear(64, 64)])
            self.head = nn.Linear(64, 3)

    return {"print(Classifier())": printed(Classifier()),
            "repr(ModuleList([ReLU(), ReLU(), ReLU()]))": repr(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.ReLU()])),
            "repr(Sequential(ReLU(), ReLU()))": repr(nn.Sequential(nn.ReLU(), nn.ReLU()))}


@scenario(points=2, misconceptions=[repr_tree])
def repr_with_custom_extra_repr(nn):
    """a module's own extra_repr and _get_name are used, multi-line settings indented like children"""
    class Scaled(nn.Module):
        def __init__(self, lines):
            super().__init__()
            self.lines = lines

        def extra_repr(self):
            return "\n".join(self.lines)

    class Renamed(nn.Module):
        def _get_name(self):
            return "Nickname"

    outer = Scaled(["factor=2", "shift=0.5"])
    outer.inner = Scaled(["factor=3"])
    outer.deeper = Renamed()
    outer.deeper.leaf = Scaled(["a", "b"])
    return {"print(outer)": printed(outer), "repr(Scaled(['only']))": repr(Scaled(["only"])),
            "repr(Scaled([]))": repr(Scaled([])), "str(Renamed())": str(Renamed())}


LAYERS = st.one_of(
    st.tuples(st.just("linear"), st.integers(1, 4), st.integers(1, 4), st.booleans()),
    st.tuples(st.just("relu"), st.booleans()),
    st.tuples(st.just("batchnorm"), st.integers(1, 4), st.sampled_from([0.1, None]), st.booleans()),
    st.tuples(st.just("mse")),
)
TREES = st.recursive(
    LAYERS,
    lambda children: st.tuples(st.sampled_from(["seq", "list", "module"]), st.lists(children, max_size=3)),
    max_leaves=6,
)


@scenario(points=2, specs=TREES, shown=built_code, examples=25, misconceptions=[repr_tree, repr_folds_repeats, extra_repr_settings])
def repr_of_random_trees(nn, spec):
    """print(model) matches torch on random trees of layers and containers"""
    return printed(build(nn, spec))


@scenario(points=1, public=True, tolerance=CLOSE, misconceptions=[reset_keeps_stats])
def batchnorm_resets(nn):
    """reset_running_stats() restarts the estimates in place; reset_parameters() also resets weight and bias"""
    bn = nn.BatchNorm1d(3)
    for _ in range(2):
        bn(torch.randn(5, 3) * 2 + 1)
    with torch.no_grad():
        bn.weight.mul_(3)
        bn.bias.add_(1)
    held = {name: getattr(bn, name) for name in ("running_mean", "running_var", NUM_BATCHES_TRACKED, WEIGHT)}
    bn.reset_running_stats()
    observed = {"after reset_running_stats()": {BN_BUFFERS: state(bn), WEIGHT: bn.weight.detach().clone()}}
    bn(torch.randn(5, 3))
    bn.reset_parameters()
    observed["after a batch and reset_parameters()"] = {BN_BUFFERS: state(bn), WEIGHT: bn.weight, BIAS: bn.bias}
    untracked = nn.BatchNorm1d(2, track_running_stats=False, affine=False)
    return {**observed, "the same tensors throughout": {name: getattr(bn, name) is t for name, t in held.items()},
            "BatchNorm1d(2, track_running_stats=False, affine=False).reset_parameters()":
                attempt(lambda: [untracked.reset_parameters(), state(untracked)])}


@scenario(points=1, tolerance=CLOSE)
def batchnorm_empty_batch(nn):
    """an empty batch gives an empty output, keeps the running estimates, and is counted"""
    bn = nn.BatchNorm1d(3)
    bn(torch.randn(6, 3))
    seen = {}
    for call, x in (("bn(an empty 2D batch)", torch.randn(0, 3)), ("bn(an empty 3D batch)", torch.randn(0, 3, 4))):
        out = attempt(bn, x)
        seen[call] = {"shape": list(out.shape) if isinstance(out, torch.Tensor) else out, BN_BUFFERS: state(bn)}
    bn.eval()
    out = attempt(bn, torch.randn(0, 3))
    seen[in_eval("bn(an empty batch)")] = {"shape": list(out.shape) if isinstance(out, torch.Tensor) else out,
                                          BN_BUFFERS: state(bn)}
    return seen


@scenario(public=True, points=1, tolerance=CLOSE, misconceptions=[old_checkpoint_refused])
def batchnorm_old_checkpoint(nn):
    """a version-1 checkpoint (no num_batches_tracked) loads strictly; a version-2 one without it does not"""
    trained = nn.BatchNorm1d(3)
    trained(torch.randn(5, 3) * 2)
    observed = {}
    for label, version in (("a version-1 checkpoint", 1), ("a checkpoint without metadata", None),
                           ("a version-2 checkpoint", 2)):
        fresh = nn.BatchNorm1d(3)
        fresh.num_batches_tracked.fill_(4)
        old = old_batchnorm_checkpoint(trained, version)
        observed[label] = {LOAD_STRICT: attempt(lambda: tuple(fresh.load_state_dict(old))),
                           BN_BUFFERS: state(fresh), "the checkpoint's keys afterwards": list(old)}
    fresh = nn.BatchNorm1d(3)
    observed["a version-2 checkpoint, strict=False"] = tuple(fresh.load_state_dict(old_batchnorm_checkpoint(trained, 2),
                                                                                   strict=False))
    return observed
