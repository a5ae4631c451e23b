"""Exercise 08: real layers (Linear, ReLU, BatchNorm1d, MSELoss) and print(model).

What torch fixes exactly is compared bit for bit: initial weights under a
seed (the same random calls in the same order), registers and their dtypes,
copies, repr strings. What a layer *computes* is compared with ``CLOSE``,
because a correct forward pass written with other tensor operations rounds
differently from torch's fused kernels.
"""
import copy

import torch
# torch.optim's first optimizer imports torch._dynamo (2-10 s on a busy machine).
# Graders are imported once before workers fork, so importing it here keeps
# that cost out of every scenario's time limit.
import torch._dynamo  # noqa: F401
from hypothesis import strategies as st

from modlab.grading import Tolerance, hints, outcome, scenario

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

INIT_RNG = (
    "initialise like torch.nn.Linear: weight = Parameter(torch.empty(out_features, in_features)), then "
    "init.kaiming_uniform_(weight, a=math.sqrt(5)) and the bias uniform in ±1/sqrt(in_features): the same "
    "random calls in the same order give bit-identical weights under a seed"
)
EVAL_FROZEN = (
    "in eval mode BatchNorm normalizes with running_mean and running_var and updates nothing: neither the "
    "running estimates nor num_batches_tracked change"
)
COUNT_IS_INTEGER = (
    "num_batches_tracked counts batches: torch.tensor(0, dtype=torch.long), an integer buffer that .to(dtype) "
    "leaves alone"
)
RUNNING_STATS = (
    "running = (1 - momentum) * running + momentum * batch statistic, with the unbiased batch variance "
    "(divide by n - 1) for running_var but the biased one (divide by n) to normalize; momentum=None "
    "averages all batches so far (factor 1 / num_batches_tracked)"
)
EXTRA_REPR = (
    "print(model) shows each layer's settings through extra_repr, written exactly as torch writes them, "
    "e.g. 'in_features=2, out_features=3, bias=True'"
)
REPR_TREE = (
    "__repr__ walks _modules: the class name, then extra_repr's lines and one '(name): child' line per "
    "child, indented two spaces (a child's own lines too); a one-line extra_repr without children stays on one line"
)
# by_path picks the first name found in the difference's path: the specific
# buffer names before the registers that hold them.
BATCHNORM_HINTS = hints.by_path(num_batches_tracked=COUNT_IS_INTEGER, running_var=RUNNING_STATS,
                                running_mean=RUNNING_STATS)
LAYER_REGISTERS = hints.by_path(num_batches_tracked=COUNT_IS_INTEGER, parameters=hints.BARE_TENSOR,
                                buffers=hints.BARE_TENSOR)


def registers(module):
    """Each register as {name: [kind, dtype, shape]}, an empty slot as {name: None}, in order."""
    def entries(register):
        return {name: None if value is None else [type(value).__name__, str(value.dtype), list(value.shape)]
                for name, value in register.items()}

    return {"parameters": entries(module._parameters), "buffers": entries(module._buffers)}


def state(bn):
    """A BatchNorm1d's buffers, by name (None when it keeps no running statistics)."""
    return {name: getattr(bn, name) for name in ("running_mean", "running_var", "num_batches_tracked")}


def grads(*tensors):
    return [t.grad for t in tensors]


def printed(module, lines=40):
    """``repr(module)`` as ``lines`` entries, one per printed line (None past
    the last), then the number of lines. A difference then names the first
    line that differs; leading spaces show as ``·``, since one-line feedback
    would squeeze them away."""
    text = repr(module).split("\n")
    rows = ["·" * (len(line) - len(line.lstrip(" "))) + line.lstrip(" ") for line in text[:lines]]
    return rows + [None] * (lines - len(rows)) + [len(text)]


def init_hint(difference):
    """A plain Tensor where torch has a Parameter is the bare-tensor mistake; other differences, the draws."""
    return hints.BARE_TENSOR if difference and difference.path.endswith(".class") else INIT_RNG


# ---------------------------------------------------------------- Linear

@scenario(points=3, public=True, hint=init_hint)
def linear_initial_weights_match_under_a_seed(nn):
    """Linear draws torch's initial weights under the same seed, bit for bit"""
    layers = [nn.Linear(3, 4), nn.Linear(1, 1), nn.Linear(7, 2, bias=False), nn.Linear(64, 3)]
    after = torch.rand(2)  # the same number of random draws leaves the generator in the same state
    return [[layer.weight, layer.bias] for layer in layers] + [after]


@scenario(points=2, public=True, hint=LAYER_REGISTERS)
def linear_registers_weight_and_bias(nn):
    """Linear registers weight and bias as Parameters (bias=False keeps an empty slot)"""
    with_bias, without = nn.Linear(3, 2), nn.Linear(3, 2, bias=False)
    return [registers(with_bias), registers(without), [name for name, _ in with_bias.named_parameters()],
            [with_bias.in_features, with_bias.out_features], list(without.state_dict())]


@scenario(points=2, public=True, tolerance=CLOSE)
def linear_forward_and_gradients(nn):
    """Linear computes x @ weight.T + bias over any leading dimensions, with torch's gradients"""
    layer = nn.Linear(4, 3)
    seen = []
    for shape in [(5, 4), (2, 3, 4), (4,)]:
        x = torch.randn(shape, requires_grad=True)
        out = layer(x)
        (out * torch.randn(out.shape)).sum().backward()
        seen.append([out, *grads(x, layer.weight, layer.bias)])
        layer.zero_grad()
    return seen


@scenario(points=1, devices=True)
def linear_factory_arguments(nn, device):
    """Linear(..., device=, dtype=) creates its parameters there, with the same values"""
    layer = nn.Linear(3, 2, device=device, dtype=torch.float64)
    out = layer(torch.ones(1, 3, device=device, dtype=torch.float64))
    return [layer.weight, layer.bias, out.dtype, out.device.type]


@scenario(points=2, tolerance=CLOSE, hint=hints.BARE_TENSOR)
def linear_trains_with_torch_optim(nn):
    """torch.optim.SGD over Linear's parameters() updates the layer in place"""
    layer = nn.Linear(3, 1)
    weight = layer.weight
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    for _ in range(5):
        optimizer.zero_grad()
        ((layer(x) - y) ** 2).mean().backward()
        optimizer.step()
    return [layer.weight is weight, layer.weight, layer.bias]


@scenario(points=1, hint=BATCHNORM_HINTS)
def layer_copies_are_exact(nn):
    """deepcopy and load_state_dict copy layers' parameters and buffers bit for bit"""
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    model(torch.randn(6, 3))
    original = model.state_dict()
    twin = copy.deepcopy(model)
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    fresh.load_state_dict(original)
    same = [{key: torch.equal(value, copied.state_dict()[key]) for key, value in original.items()}
            for copied in (twin, fresh)]
    return [same, {"num_batches_tracked": twin.state_dict()["1.num_batches_tracked"]},
            twin[0].weight is model[0].weight]


# ---------------------------------------------------------------- ReLU

@scenario(points=1, public=True, tolerance=CLOSE)
def relu_forward_and_gradient(nn):
    """ReLU zeroes negative entries, keeps no state, and passes gradients where x > 0"""
    relu = nn.ReLU()
    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 3.0])
    out = relu(x)
    y = torch.tensor([-1.5, -0.25, 0.25, 2.0], requires_grad=True)  # no exact zero: the kink is a convention
    relu(y).pow(2).sum().backward()
    return [out, y.grad, registers(relu), out is x, x]


@scenario(points=1)
def relu_inplace(nn):
    """ReLU(inplace=True) overwrites its input and returns it"""
    x = torch.tensor([-1.0, 2.0, -3.0])
    out = nn.ReLU(inplace=True)(x)
    return [out is x, x, nn.ReLU(True).inplace]


# ---------------------------------------------------------------- BatchNorm1d

@scenario(points=2, public=True, hint=LAYER_REGISTERS)
def batchnorm_registers_parameters_and_buffers(nn):
    """BatchNorm1d registers weight/bias and running_mean/running_var/num_batches_tracked like torch"""
    variants = [nn.BatchNorm1d(3), nn.BatchNorm1d(2, affine=False), nn.BatchNorm1d(2, track_running_stats=False),
                nn.BatchNorm1d(2, dtype=torch.float64)]
    return [[registers(bn), list(bn.state_dict()), state(bn), bn.weight, bn.bias] for bn in variants]


@scenario(points=3, public=True, tolerance=CLOSE, hint=BATCHNORM_HINTS)
def batchnorm_training_updates_running_stats(nn):
    """in training mode BatchNorm1d normalizes with batch statistics and updates the running estimates"""
    bn = nn.BatchNorm1d(4)
    # Feature 1 varies little (variance ~1e-4), so eps placed outside the square
    # root shows; it is centred on 0, so computing the variance as
    # E[x^2] - E[x]^2 loses no more digits than any other correct way.
    spread, centre = torch.tensor([1.0, 0.01, 3.0, 0.5]), torch.tensor([1.0, 0.0, -1.0, 0.5])
    seen = []
    for _ in range(3):
        seen.append([bn(torch.randn(8, 4) * spread + centre), state(bn)])
    return seen


@scenario(points=3, public=True, tolerance=CLOSE, hint=EVAL_FROZEN)
def batchnorm_eval_uses_running_stats(nn):
    """in eval mode BatchNorm1d normalizes with the running estimates and updates nothing"""
    bn = nn.BatchNorm1d(3)
    for _ in range(2):
        bn(torch.randn(6, 3) * 2 + 1)
    bn.eval()
    before = {name: t.clone() for name, t in state(bn).items()}
    outs = [bn(torch.randn(5, 3)), bn(torch.randn(1, 3))]  # eval accepts a batch of one
    unchanged = {name: torch.equal(before[name], t) for name, t in state(bn).items()}
    return [outs, unchanged, state(bn)]


@scenario(points=2, tolerance=CLOSE, hint=RUNNING_STATS)
def batchnorm_momentum_none_averages(nn):
    """momentum=None keeps a cumulative average of the batch statistics"""
    bn = nn.BatchNorm1d(2, momentum=None)
    for scale in (1.0, 2.0, 0.5, 3.0):
        bn(torch.randn(7, 2) * scale)
    return state(bn)


@scenario(points=2, tolerance=CLOSE, hint=BATCHNORM_HINTS)
def batchnorm_gradients(nn):
    """BatchNorm1d's gradients reach the input, weight and bias, in training and eval mode"""
    bn = nn.BatchNorm1d(3)
    seen = []
    for mode in (True, False):
        bn.train(mode)
        x = (torch.randn(6, 3) + 1).requires_grad_()
        (bn(x) * torch.randn(6, 3)).sum().backward()
        seen.append(grads(x, bn.weight, bn.bias))
        bn.zero_grad()
    return seen


@scenario(points=1)
def batchnorm_rejects_bad_inputs(nn):
    """BatchNorm1d raises ValueError for a 1D or 4D input, and for one value per feature in training"""
    bn = nn.BatchNorm1d(3)
    return [outcome(bn, torch.randn(3)), outcome(bn, torch.randn(2, 3, 2, 2)), outcome(bn, torch.randn(1, 3)),
            outcome(bn, torch.randn(1, 3, 1))]


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


@scenario(points=3, tolerance=CLOSE, specs=BATCHNORM_RUNS, examples=20, hint=BATCHNORM_HINTS)
def batchnorm_random_settings(nn, spec):
    """every BatchNorm1d setting trains and evaluates like torch's, 2D and 3D inputs"""
    bn = nn.BatchNorm1d(spec["features"], momentum=spec["momentum"], affine=spec["affine"],
                        track_running_stats=spec["track"])
    shape = (5, spec["features"]) if spec["rank"] == 2 else (4, spec["features"], 3)
    seen = [bn(torch.randn(shape) * 2 + 0.5) for _ in range(spec["batches"])]
    bn.eval()
    return [seen, bn(torch.randn(shape)), state(bn)]


# ---------------------------------------------------------------- MSELoss

@scenario(points=2, public=True, tolerance=CLOSE)
def mse_loss_reductions(nn):
    """MSELoss gives the mean, the sum or the elementwise squared errors, with torch's gradients"""
    x, target = torch.randn(4, 3), torch.randn(4, 3)
    seen = []
    for reduction in ("mean", "sum", "none"):
        guess = x.clone().requires_grad_()
        loss = nn.MSELoss(reduction=reduction)(guess, target)
        loss.sum().backward()
        seen.append([loss, guess.grad])
    return seen


@scenario(points=1)
def mse_loss_setting_and_errors(nn):
    """MSELoss keeps its reduction, holds no parameters, and rejects an unknown reduction"""
    loss = nn.MSELoss()
    return [loss.reduction, list(loss.parameters()), loss(torch.ones(2), torch.ones(2)),
            outcome(lambda: nn.MSELoss(reduction="average")(torch.ones(2), torch.zeros(2)))]


# ---------------------------------------------------------------- print(model)

@scenario(points=2, public=True, hint=EXTRA_REPR)
def repr_of_each_layer(nn):
    """each layer prints its settings exactly like torch"""
    layers = [nn.Linear(2, 3), nn.Linear(5, 1, bias=False), nn.ReLU(), nn.ReLU(inplace=True), nn.BatchNorm1d(4),
              nn.BatchNorm1d(8, eps=1e-3, momentum=None, affine=False, track_running_stats=False), nn.MSELoss(),
              nn.MSELoss(reduction="sum"), nn.Module()]
    return [repr(layer) for layer in layers] + [layers[0].extra_repr(), layers[-1].extra_repr()]


@scenario(points=3, public=True, hint=REPR_TREE)
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


@scenario(points=2, public=True, hint=REPR_TREE)
def repr_folds_equal_layers_in_a_module_list(nn):
    """print(ModuleList) folds a run of equal layers into one line, as in the seed's classifier"""
    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(10, 64), nn.Linear(64, 64), nn.Linear(64, 64)])
            self.head = nn.Linear(64, 3)

    return [printed(Classifier()), repr(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.ReLU()])),
            repr(nn.Sequential(nn.ReLU(), nn.ReLU()))]


@scenario(points=2, hint=REPR_TREE)
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
    return [printed(outer), repr(Scaled(["only"])), repr(Scaled([])), str(Renamed())]


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


def build(nn, spec):
    """The module a TREES spec describes, built with this world's nn."""
    kind, *args = spec
    if kind == "linear":
        return nn.Linear(args[0], args[1], bias=args[2])
    if kind == "relu":
        return nn.ReLU(inplace=args[0])
    if kind == "batchnorm":
        return nn.BatchNorm1d(args[0], momentum=args[1], affine=args[2])
    if kind == "mse":
        return nn.MSELoss()
    children = [build(nn, child) for child in args[0]]
    if kind == "seq":
        return nn.Sequential(*children)
    if kind == "list":
        return nn.ModuleList(children)
    module = nn.Module()
    for index, child in enumerate(children):
        setattr(module, f"part{index}", child)
    return module


@scenario(points=2, specs=TREES, examples=25, hint=REPR_TREE)
def repr_of_random_trees(nn, spec):
    """print(model) matches torch on random trees of layers and containers"""
    return printed(build(nn, spec))
