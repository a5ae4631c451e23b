"""Exercise 06: state_dict and strict loading. Scenarios save and load small
models built in the body (the leaf modules are defined here: nn.Linear is
exercise 08) and random module trees, and compare keys, order, values,
identities and the errors with torch.nn's."""
import io

import torch

from modlab.grading import hints, outcome, scenario
from modlab.grading.trees import build_tree, lookup, module_trees

NON_PERSISTENT = (
    "a buffer registered with persistent=False (and an empty None slot) is not state: state_dict() "
    "leaves it out, and load_state_dict() calls its key unexpected"
)
DETACH = (
    "state_dict() values are the tensors detached (tensor.detach()): no grad, same storage, no copy; "
    "keep_vars=True gives the Parameters themselves"
)
SHARED_STATE = (
    "state_dict() walks _modules without skipping repeats: a module registered under two names is "
    "saved under both names"
)
SILENT_STRICT = (
    "strict=True must raise RuntimeError listing every missing and unexpected key, after looking at "
    "all of them; strict=False returns them as (missing_keys, unexpected_keys) instead"
)
REBIND = (
    "load_state_dict() copies into the existing tensors (param.copy_(value) under torch.no_grad()): "
    "assigning new tensors or Parameters breaks the optimizer, which still holds the old objects, "
    "and gives the model the checkpoint's dtype instead of its own"
)
SIZE_MISMATCH = (
    "a shape mismatch is an error even with strict=False: strict only forgives missing and "
    "unexpected keys"
)
ORDER = hints.ORDER + "; state_dict() also puts a module's buffers after its parameters"
MISSING_STATE = (
    "state_dict() saves every parameter and persistent buffer of every module in _modules, under every "
    "name it is registered as, even when the same module or Parameter is registered twice"
)


def state_hint(difference):
    """The misconception behind a difference in what state_dict() returned."""
    detail, path = (difference.detail, difference.path) if difference else ("", "")
    if path.endswith((".class", ".requires_grad")):
        return DETACH
    if "extra" in detail:
        return NON_PERSISTENT
    if "missing" in detail:
        return MISSING_STATE
    return ORDER if "different order" in detail else None


def scale_class(nn):
    """``y = x * weight + bias``, with a step counter (an int64 buffer) and a
    cache that is not state (a non-persistent buffer)."""

    class Scale(nn.Module):
        def __init__(self, size=3):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(size))
            self.bias = nn.Parameter(torch.randn(size))
            self.register_buffer("steps", torch.zeros((), dtype=torch.long))
            self.register_buffer("cache", torch.zeros(size), persistent=False)

        def forward(self, x):
            return x * self.weight + self.bias

    return Scale


def net_class(nn):
    """Two Scale layers around a Parameter and a buffer of the parent itself."""
    Scale = scale_class(nn)

    class Net(nn.Module):
        def __init__(self, size=3):
            super().__init__()
            self.first = Scale(size)
            self.gain = nn.Parameter(torch.randn(size))
            self.register_buffer("mean", torch.randn(size))
            self.second = Scale(size)

        def forward(self, x):
            return self.second(self.first(x) * self.gain + self.mean)

    return Net


def items(state):
    """A state dict as plain data: its type, then its keys and tensors in order."""
    return [type(state).__name__, state]


def registered(model, state):
    """For each key, whether the model's registered tensor is that very object."""
    return [lookup(model, key) is value for key, value in state.items()]


def error_text(action, *args, **kwargs):
    """The exception type and its message (``outcome`` keeps only the type)."""
    try:
        return ["no error", action(*args, **kwargs)]
    except Exception as exc:  # the type and the wording are the observation
        return [type(exc).__name__, str(exc)]


def mentioned(raised, keys):
    """Which of ``keys`` an error message names (in quotes or after ``for``)."""
    text = raised[1] if raised[0] != "no error" else ""
    return [f'"{key}"' in text or f"for {key}:" in text for key in keys]


def checkpoint(model, **changes):
    """The model's state dict, cloned, with ``changes`` applied (None deletes a key)."""
    state = {key: value.clone() for key, value in model.state_dict().items()}
    for key, value in changes.items():
        key = key.replace("__", ".")
        if value is None:
            del state[key]
        else:
            state[key] = value
    return state


@scenario(points=3, public=True, hint=state_hint)
def keys_in_torch_order(nn):
    """state_dict() is an OrderedDict: own parameters, own buffers, then each child, depth first"""
    model = net_class(nn)()
    return [items(model.state_dict()), list(model.first.state_dict())]


@scenario(points=2, public=True, hint=DETACH)
def values_are_detached_and_share_storage(nn):
    """values are detached tensors over the model's own storage, not copies"""
    model = net_class(nn)()
    state = model.state_dict()
    kinds = [[type(v).__name__, v.requires_grad, v.is_leaf, v.grad_fn is None] for v in state.values()]
    shared = [v.data_ptr() == lookup(model, k).data_ptr() for k, v in state.items()]
    with torch.no_grad():
        model.gain.mul_(10)
    return [kinds, shared, registered(model, state), state["gain"]]


@scenario(points=2, hint=state_hint)
def keep_vars_gives_the_registered_tensors(nn):
    """state_dict(keep_vars=True) holds the Parameters and buffers themselves"""
    model = net_class(nn)()
    state = model.state_dict(keep_vars=True)
    return [items(state), registered(model, state)]


@scenario(points=2, public=True, hint=state_hint)
def non_persistent_and_empty_slots_left_out(nn):
    """non-persistent buffers and None parameters, buffers and children are not saved"""
    model = scale_class(nn)()
    model.register_parameter("scale", None)
    model.register_buffer("running", None)
    model.add_module("head", None)
    model.register_buffer("kept", torch.ones(2))
    return [items(model.state_dict()), items(model.state_dict(keep_vars=True))]


@scenario(points=2, hint=state_hint)
def shared_module_saved_under_every_name(nn):
    """a module registered under two names (and a tied Parameter) is saved under each name"""
    Scale = scale_class(nn)
    model = nn.Module()
    model.encoder = Scale()
    model.decoder = Scale()
    model.again = model.encoder
    model.decoder.weight = model.encoder.weight
    state = model.state_dict()
    return [items(state), state["again.bias"].data_ptr() == state["encoder.bias"].data_ptr()]


@scenario(points=1, hint=state_hint)
def destination_and_prefix(nn):
    """state_dict(destination=d, prefix=p) fills d with prefixed keys and returns it"""
    model = net_class(nn)()
    mine = {"kept": torch.zeros(1)}
    returned = model.state_dict(destination=mine, prefix="model.")
    return [returned is mine, items(mine), list(model.state_dict(prefix="x."))]


@scenario(points=2, hint=hints.PLAIN_LIST)
def unregistered_layers_are_not_state(nn):
    """layers in a plain list and bare tensor attributes are not in state_dict()"""
    Scale = scale_class(nn)
    model = nn.Module()
    model.layers = [Scale(), Scale()]
    model.scale = torch.ones(3)
    model.head = Scale()
    return items(model.state_dict())


@scenario(points=3, public=True, hint=REBIND)
def load_copies_in_place(nn):
    """load_state_dict() copies values into the same tensor objects, without grad history"""
    Net = net_class(nn)
    source, model = Net(), Net()
    before = model.state_dict(keep_vars=True)
    result = model.load_state_dict(source.state_dict())
    after = model.state_dict(keep_vars=True)
    same = [after[key] is tensor for key, tensor in before.items()]
    leaves = [[v.is_leaf, v.requires_grad, v.grad_fn is None] for v in after.values()]
    with torch.no_grad():  # the model holds copies: changing the source leaves it alone
        source.gain.add_(1)
    return [tuple(result), same, leaves, items(model.state_dict()), model.first.cache]


@scenario(points=2, hint=REBIND)
def optimizer_keeps_training_after_load(nn):
    """an optimizer built before load_state_dict() still trains the model after it"""
    Net = net_class(nn)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.load_state_dict(Net().state_dict())
    loss = model(torch.ones(2, 3)).pow(2).sum()
    loss.backward()
    optimizer.step()
    return items(model.state_dict())


@scenario(points=2, hint=REBIND)
def model_dtype_wins(nn):
    """loading float64 values into a float32 model keeps the model float32 (and int64 buffers int64)"""
    model = scale_class(nn)()
    state = {"weight": torch.arange(3, dtype=torch.float64) / 3, "bias": torch.ones(3, dtype=torch.float64),
             "steps": torch.tensor(7.9, dtype=torch.float64)}
    model.load_state_dict(state)
    return items(model.state_dict())


@scenario(points=3, public=True, hint=SILENT_STRICT)
def strict_reports_missing_and_unexpected(nn):
    """strict loading raises RuntimeError naming every missing and unexpected key"""
    model = net_class(nn)()
    state = checkpoint(model, gain=None, second__steps=None, extra=torch.ones(1), first__extra=torch.ones(1),
                       ghost__weight=torch.ones(1))
    raised = error_text(model.load_state_dict, state)
    keys = ["gain", "second.steps", "extra", "first.extra", "ghost.weight"]
    return [raised[0], mentioned(raised, keys)]


@scenario(points=2, hint=SILENT_STRICT)
def strict_failure_still_copies_what_fits(nn):
    """a failed strict load has copied every key that fits before raising"""
    model = net_class(nn)()
    state = checkpoint(net_class(nn)(), gain=None, extra=torch.ones(1))
    return [outcome(model.load_state_dict, state), items(model.state_dict())]


@scenario(points=3, public=True, hint=SILENT_STRICT)
def non_strict_returns_the_keys(nn):
    """strict=False loads what fits and returns the named tuple (missing_keys, unexpected_keys)"""
    model = net_class(nn)()
    state = checkpoint(net_class(nn)(), gain=None, first__bias=None, extra=torch.ones(1),
                       second__extra=torch.ones(1))
    result = model.load_state_dict(state, strict=False)
    return [isinstance(result, tuple), tuple(result), result.missing_keys, result.unexpected_keys,
            list(result._fields), items(model.state_dict())]


@scenario(points=1)
def matching_load_returns_empty_lists(nn):
    """a load where every key matches returns ([], []), strict or not"""
    Net = net_class(nn)
    model = Net()
    strict = model.load_state_dict(Net().state_dict())
    lenient = model.load_state_dict(Net().state_dict(), strict=False)
    return [tuple(strict), strict.missing_keys, strict.unexpected_keys, tuple(lenient)]


@scenario(points=2, hint=SIZE_MISMATCH)
def size_mismatch_raises_even_when_not_strict(nn):
    """a shape mismatch raises RuntimeError with strict=False too, after copying what fits"""
    model = net_class(nn)()
    state = checkpoint(net_class(nn)(), first__weight=torch.ones(4), mean=torch.ones(1, 3))
    raised = error_text(model.load_state_dict, state, strict=False)
    return [raised[0], mentioned(raised, ["first.weight", "mean"]), items(model.state_dict())]


@scenario(points=2, hint=NON_PERSISTENT)
def keys_without_a_slot_are_unexpected(nn):
    """keys for a non-persistent buffer or a None parameter are unexpected"""
    model = scale_class(nn)()
    model.register_parameter("scale", None)
    state = checkpoint(model, cache=torch.ones(3), scale=torch.ones(1))
    return [model.load_state_dict(state, strict=False).unexpected_keys, outcome(model.load_state_dict, state)]


@scenario(points=2, hint=SILENT_STRICT)
def error_message_reads_like_torch(nn):
    """the RuntimeError says what torch says: missing, unexpected, then each size mismatch"""
    model = net_class(nn)()
    state = checkpoint(model, gain=None, extra=torch.ones(1), second__bias=torch.ones(2),
                       first__weight=torch.ones(3, 1))
    return [error_text(model.load_state_dict, state), error_text(model.load_state_dict, state, strict=False)]


@scenario(points=1)
def non_mapping_raises_type_error(nn):
    """load_state_dict() of something that is not a mapping raises TypeError"""
    model = scale_class(nn)()
    pairs = list(model.state_dict().items())
    return [outcome(model.load_state_dict, pairs), outcome(model.load_state_dict, None),
            outcome(model.load_state_dict, dict(pairs))]


@scenario(points=3, public=True)
def round_trip_through_torch_save(nn):
    """a state dict saved with torch.save loads strictly into a fresh model, with equal outputs"""
    Net = net_class(nn)
    trained, fresh = Net(), Net()
    trained.first.steps.add_(5)
    buffer = io.BytesIO()
    torch.save(trained.state_dict(), buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    result = fresh.load_state_dict(loaded)
    x = torch.randn(4, 3)
    return [tuple(result), items(fresh.state_dict()), fresh(x), torch.equal(fresh(x), trained(x))]


TREES = module_trees(containers=True)


@scenario(points=3, specs=TREES, examples=40, hint=state_hint)
def random_trees_state_dict(nn, spec):
    """on random module trees, state_dict() has torch's keys, order and values"""
    model = build_tree(nn, spec)
    return [items(model.state_dict()), registered(model, model.state_dict(keep_vars=True))]


@scenario(points=3, specs=TREES, examples=40, hint=REBIND)
def random_trees_load_in_place(nn, spec):
    """on random module trees, loading another tree's state copies it into the same tensors"""
    source, model = build_tree(nn, spec), build_tree(nn, spec)
    before = model.state_dict(keep_vars=True)
    result = model.load_state_dict(source.state_dict())
    return [tuple(result), items(model.state_dict()), registered(model, before)]


@scenario(points=2, specs=TREES, examples=30, hint=SILENT_STRICT)
def random_trees_non_strict_keys(nn, spec):
    """on random module trees, strict=False names the dropped keys missing and the odd ones unexpected"""
    source, model = build_tree(nn, spec), build_tree(nn, spec)
    state = source.state_dict()
    keys = list(state)
    for key in keys[::2]:
        state[key + "_x"] = state.pop(key)  # each one both missing and unexpected
    result = model.load_state_dict(state, strict=False)
    return [tuple(result), items(model.state_dict()), outcome(model.load_state_dict, state)]
