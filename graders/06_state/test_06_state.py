"""Exercise 06: state_dict and strict loading. Scenarios save and load small
models (:mod:`modlab.grading.helpers.ex06_state`: nn.Linear is exercise 08)
and random module trees, and compare keys, order, values,
identities and the errors with torch.nn's."""
import io

import torch

from modlab.grading import attempt, scenario

from ..shared.probes import HOOK_LOG, NON_PERSISTENT_NAMES
from ..shared.trees import build_tree, lookup, module_trees, tree_code
from .misconceptions import (assign_copies, child_sees_all_keys, extra_state_ignored, first_problem_raises,
                             load_rebinds, local_metadata_not_passed, metadata_wrong, non_persistent_is_state,
                             non_strict_keys_wrong, shared_module_saved_once, size_mismatch_forgiven,
                             state_includes_unregistered, state_not_detached, state_not_recursive, state_order,
                             strict_ignored)
from .views import (AFTER_ASSIGN, ALIASES, COPIED_WITHOUT_ASSIGN, COUNTER_CALLS, ERROR_NAMES_EACH_KEY, KEYS_SEEN,
                    LOADED_TENSORS, MISSING_KEYS, REQUIRES_GRAD, SAME_AFTER_LOADING, STATE_DICT, STATE_DICT_KEYS,
                    TENSOR_CLASS, UNEXPECTED_KEYS, VERSIONS_SEEN, WRONG_SHAPES_RAISES, aliases, checkpoint,
                    counter_class, error_text, hooked_tree, items, mentioned, metadata, migrating_model, net_class,
                    old_checkpoints, registered, registered_tensors, scale_class, versioned_tree)

# What any state_dict() can show.
SAVING = [state_order, state_not_recursive, non_persistent_is_state, state_not_detached,
          shared_module_saved_once, state_includes_unregistered]


@scenario(points=3, public=True, misconceptions=SAVING)
def keys_in_torch_order(nn):
    """state_dict() is an OrderedDict: own parameters, own buffers, then each child, depth first"""
    model = net_class(nn)()
    return {"parameter keys": PARAMETER_KEYS, STATE_DICT: items(model.state_dict(), model),
            "model.first.state_dict() keys": list(model.first.state_dict())}


PARAMETER_KEYS = ["gain", "first.weight", "first.bias", "second.weight", "second.bias"]


@scenario(points=2, public=True, misconceptions=SAVING)
def values_are_detached_and_share_storage(nn):
    """values are detached tensors over the model's own storage, not copies"""
    model = net_class(nn)()
    state = model.state_dict()
    kinds = {key: {TENSOR_CLASS: type(v).__name__, REQUIRES_GRAD: v.requires_grad, "is_leaf": v.is_leaf,
                   "grad_fn is None": v.grad_fn is None} for key, v in state.items()}
    shared = {key: v.data_ptr() == lookup(model, key).data_ptr() for key, v in state.items()}
    with torch.no_grad():
        model.gain.mul_(10)
    return {"each value": kinds, "shares the model's storage": shared,
            "is the registered tensor": registered(model, state), "state['gain'] after model.gain *= 10": state["gain"]}
@scenario(points=2, misconceptions=SAVING)
def keep_vars_gives_the_registered_tensors(nn):
    """state_dict(keep_vars=True) holds the Parameters and buffers themselves"""
    model = net_class(nn)()
    state = model.state_dict(keep_vars=True)
    return {"model.state_dict(keep_vars=True)": items(state, model), "is the registered tensor": registered(model, state)}


@scenario(points=2, public=True, misconceptions=SAVING)
def non_persistent_and_empty_slots_left_out(nn):
    """non-persistent buffers and None parameters, buffers and children are not saved"""
    model = scale_class(nn)()
    model.register_parameter("scale", None)
    model.register_buffer("running", None)
    model.add_module("head", None)
    model.register_buffer("kept", torch.ones(2))
    return {NON_PERSISTENT_NAMES: ["cache"], STATE_DICT: items(model.state_dict(), model),
            "model.state_dict(keep_vars=True)": items(model.state_dict(keep_vars=True), model)}


@scenario(points=2, public=True, misconceptions=SAVING)
def shared_module_saved_under_every_name(nn):
    """a module registered under two names (and a tied Parameter) is saved under each name"""
    Scale = scale_class(nn)
    model = nn.Module()
    model.encoder = Scale()
    model.decoder = Scale()
    model.again = model.encoder
    model.decoder.weight = model.encoder.weight
    state = model.state_dict()
    return {ALIASES: ["again", "decoder.weight"], STATE_DICT: items(state, model),
            "again.bias shares encoder.bias": state["again.bias"].data_ptr() == state["encoder.bias"].data_ptr()
            if "again.bias" in state and "encoder.bias" in state else None}


@scenario(points=1, misconceptions=SAVING)
def destination_and_prefix(nn):
    """state_dict(destination=d, prefix=p) fills d with prefixed keys and returns it"""
    model = net_class(nn)()
    mine = {"kept": torch.zeros(1)}
    returned = model.state_dict(destination=mine, prefix="model.")
    return {"returns destination": returned is mine, "destination": items(mine, model, "model."),
            "model.state_dict(prefix='x.') keys": list(model.state_dict(prefix="x."))}


@scenario(points=2, public=True, misconceptions=SAVING)
def unregistered_layers_are_not_state(nn):
    """layers in a plain list and bare tensor attributes are not in state_dict()"""
    Scale = scale_class(nn)
    model = nn.Module()
    model.layers = [Scale(), Scale()]
    model.scale = torch.ones(3)
    model.head = Scale()
    return {STATE_DICT: items(model.state_dict(), model)}


LOADING = [load_rebinds, strict_ignored, first_problem_raises, size_mismatch_forgiven,
           non_persistent_is_state]


@scenario(points=3, public=True, misconceptions=LOADING)
def load_copies_in_place(nn):
    """load_state_dict() copies values into the same tensor objects, without grad history"""
    Net = net_class(nn)
    source, model = Net(), Net()
    before = registered_tensors(model)
    result = model.load_state_dict(source.state_dict())
    after = registered_tensors(model)
    same = {key: after.get(key) is tensor for key, tensor in before.items()}
    leaves = {key: [v.is_leaf, v.requires_grad, v.grad_fn is None] for key, v in after.items()}
    with torch.no_grad():  # the model holds copies: changing the source leaves it alone
        source.gain.add_(1)
    return {"load_state_dict returns": tuple(result), SAME_AFTER_LOADING: same,
            "[is_leaf, requires_grad, grad_fn is None]": leaves, STATE_DICT: items(model.state_dict(), model),
            "model.first.cache": model.first.cache}


@scenario(points=2, public=True, misconceptions=LOADING)
def optimizer_keeps_training_after_load(nn):
    """an optimizer built before load_state_dict() still trains the model after it"""
    Net = net_class(nn)
    model = Net()
    before = registered_tensors(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.load_state_dict(Net().state_dict())
    after = registered_tensors(model)
    loss = model(torch.ones(2, 3)).pow(2).sum()
    loss.backward()
    optimizer.step()
    return {SAME_AFTER_LOADING: {key: after.get(key) is tensor for key, tensor in before.items()},
            "model.state_dict() after a step": items(model.state_dict(), model)}


@scenario(points=2, misconceptions=LOADING)
def model_dtype_wins(nn):
    """loading float64 values into a float32 model keeps the model float32 (and int64 buffers int64)"""
    model = scale_class(nn)()
    before = registered_tensors(model)
    state = {"weight": torch.arange(3, dtype=torch.float64) / 3, "bias": torch.ones(3, dtype=torch.float64),
             "steps": torch.tensor(7.9, dtype=torch.float64)}
    model.load_state_dict(state)
    after = registered_tensors(model)
    return {SAME_AFTER_LOADING: {key: after.get(key) is tensor for key, tensor in before.items()},
            STATE_DICT: items(model.state_dict(), model)}


@scenario(points=3, public=True, misconceptions=[*LOADING, non_strict_keys_wrong])
def strict_reports_missing_and_unexpected(nn):
    """strict loading raises RuntimeError naming every missing and unexpected key"""
    model = net_class(nn)()
    state = checkpoint(model, gain=None, second__steps=None, extra=torch.ones(1), first__extra=torch.ones(1),
                       ghost__weight=torch.ones(1))
    raised = error_text(model.load_state_dict, state)
    keys = ["gain", "second.steps", "extra", "first.extra", "ghost.weight"]
    return {"load_state_dict(strict=True) raises": raised[0], ERROR_NAMES_EACH_KEY: dict(zip(keys, mentioned(raised, keys)))}


@scenario(points=2, misconceptions=LOADING)
def strict_failure_still_copies_what_fits(nn):
    """a failed strict load has copied every key that fits before raising"""
    model = net_class(nn)()
    state = checkpoint(net_class(nn)(), gain=None, extra=torch.ones(1))
    return {"load_state_dict(strict=True)": attempt(model.load_state_dict, state),
            "model.state_dict() afterwards": items(model.state_dict(), model)}


@scenario(points=3, public=True, misconceptions=[*LOADING, non_strict_keys_wrong])
def non_strict_returns_the_keys(nn):
    """strict=False loads what fits and returns the named tuple (missing_keys, unexpected_keys)"""
    model = net_class(nn)()
    state = checkpoint(net_class(nn)(), gain=None, first__bias=None, extra=torch.ones(1),
                       second__extra=torch.ones(1))
    result = model.load_state_dict(state, strict=False)
    return {"returns a tuple": isinstance(result, tuple), MISSING_KEYS: list(result.missing_keys),
            UNEXPECTED_KEYS: list(result.unexpected_keys), "its fields": list(result._fields),
            STATE_DICT: items(model.state_dict(), model)}


@scenario(points=1, misconceptions=LOADING)
def matching_load_returns_empty_lists(nn):
    """a load where every key matches returns ([], []), strict or not"""
    Net = net_class(nn)
    model = Net()
    strict = model.load_state_dict(Net().state_dict())
    lenient = model.load_state_dict(Net().state_dict(), strict=False)
    return {"strict: missing_keys": list(strict.missing_keys), "strict: unexpected_keys": list(strict.unexpected_keys),
            "strict=False returns": [list(part) for part in lenient]}


@scenario(points=2, public=True, misconceptions=LOADING)
def size_mismatch_raises_even_when_not_strict(nn):
    """a shape mismatch raises RuntimeError with strict=False too, after copying what fits"""
    model = net_class(nn)()
    state = checkpoint(net_class(nn)(), first__weight=torch.ones(4), mean=torch.ones(1, 3))
    raised = error_text(model.load_state_dict, state, strict=False)
    # Both mismatches in children: an error that names one of them stopped there, while a load that
    # never reaches the children names neither.
    in_children = checkpoint(net_class(nn)(), first__weight=torch.ones(4), second__weight=torch.ones(4))
    children_raised = error_text(net_class(nn)().load_state_dict, in_children, strict=False)
    return {WRONG_SHAPES_RAISES: raised[0],
            ERROR_NAMES_EACH_KEY: dict(zip(["first.weight", "mean"], mentioned(raised, ["first.weight", "mean"]))),
            "model.state_dict() afterwards": items(model.state_dict(), model),
            "first.weight and second.weight of wrong shapes": {
                ERROR_NAMES_EACH_KEY: dict(zip(["first.weight", "second.weight"],
                                               mentioned(children_raised, ["first.weight", "second.weight"])))}}


@scenario(points=2, public=True, misconceptions=[*LOADING, non_strict_keys_wrong])
def keys_without_a_slot_are_unexpected(nn):
    """keys for a non-persistent buffer or a None parameter are unexpected"""
    model = scale_class(nn)()
    model.register_parameter("scale", None)
    state = checkpoint(model, cache=torch.ones(3), scale=torch.ones(1))
    return {NON_PERSISTENT_NAMES: ["cache"],
            UNEXPECTED_KEYS: list(model.load_state_dict(state, strict=False).unexpected_keys),
            "load_state_dict(strict=True)": attempt(model.load_state_dict, state)}


@scenario(points=2, misconceptions=LOADING)
def error_message_reads_like_torch(nn):
    """the RuntimeError says what torch says: missing, unexpected, then each size mismatch"""
    model = net_class(nn)()
    state = checkpoint(model, gain=None, extra=torch.ones(1), second__bias=torch.ones(2),
                       first__weight=torch.ones(3, 1))
    return {"load_state_dict(strict=True) raises": error_text(model.load_state_dict, state),
            "load_state_dict(strict=False) raises": error_text(model.load_state_dict, state, strict=False)}


@scenario(points=1)
def non_mapping_raises_type_error(nn):
    """load_state_dict() of something that is not a mapping raises TypeError"""
    model = scale_class(nn)()
    pairs = list(model.state_dict().items())
    return {"load_state_dict(a list of pairs)": attempt(model.load_state_dict, pairs),
            "load_state_dict(None)": attempt(model.load_state_dict, None),
            "load_state_dict(a dict)": attempt(model.load_state_dict, dict(pairs))}


@scenario(points=3, public=True, misconceptions=[*SAVING, *LOADING])
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
    return {"load_state_dict returns": tuple(result), "fresh.state_dict()": items(fresh.state_dict(), fresh),
            "fresh(x)": fresh(x), "fresh(x) equals trained(x)": torch.equal(fresh(x), trained(x))}


TREES = module_trees(containers=True)


@scenario(points=3, specs=TREES, shown=tree_code, examples=40, misconceptions=SAVING)
def random_trees_state_dict(nn, spec):
    """on random module trees, state_dict() has torch's keys, order and values"""
    model = build_tree(nn, spec)
    return {ALIASES: aliases(model), STATE_DICT: items(model.state_dict(), model),
            "is the registered tensor": registered(model, model.state_dict(keep_vars=True))}


@scenario(points=3, specs=TREES, shown=tree_code, examples=40, misconceptions=LOADING)
def random_trees_load_in_place(nn, spec):
    """on random module trees, loading another tree's state copies it into the same tensors"""
    source, model = build_tree(nn, spec), build_tree(nn, spec)
    before = registered_tensors(model)
    result = model.load_state_dict(source.state_dict())
    return {ALIASES: aliases(model), "load_state_dict returns": tuple(result), STATE_DICT: items(model.state_dict(), model),
            SAME_AFTER_LOADING: registered(model, before)}


@scenario(points=2, specs=TREES, shown=tree_code, examples=30, misconceptions=[*LOADING, non_strict_keys_wrong])
def random_trees_non_strict_keys(nn, spec):
    """on random module trees, strict=False names the dropped keys missing and the odd ones unexpected"""
    source, model = build_tree(nn, spec), build_tree(nn, spec)
    state = source.state_dict()
    keys = list(state)
    for key in keys[::2]:
        state[key + "_x"] = state.pop(key)  # each one both missing and unexpected
    result = model.load_state_dict(state, strict=False)
    return {ALIASES: aliases(model), MISSING_KEYS: list(result.missing_keys),
            UNEXPECTED_KEYS: list(result.unexpected_keys), STATE_DICT: items(model.state_dict(), model),
            "load_state_dict(strict=True)": attempt(model.load_state_dict, state)}


# Checkpoint versions, torch's _load_from_state_dict, and the rest of torch's loading.

@scenario(points=2, public=True, misconceptions=[metadata_wrong])
def metadata_versions(nn):
    """state_dict()._metadata records {'version': module._version} under each module's prefix, without its dot"""
    model = versioned_tree(nn)
    state = model.state_dict()
    prefixed = model.state_dict(prefix="net.")
    return {STATE_DICT_KEYS: list(state), "model.state_dict()._metadata": metadata(state),
            "model.state_dict(prefix='net.')._metadata": metadata(prefixed),
            "model.state_dict(destination={}) has _metadata": hasattr(model.state_dict(destination={}), "_metadata")}


@scenario(points=2, public=True, misconceptions=[local_metadata_not_passed])
def torch_style_override_migrates(nn):
    """a torch-style _load_from_state_dict override sees its own metadata and renames a version-1 key"""
    observed = {}
    for label, old in [*old_checkpoints(), ("its own state_dict()", None)]:
        model, seen = migrating_model(nn)
        old = model.state_dict() if old is None else old
        keys_before = list(old)
        returned = attempt(lambda: tuple(model.load_state_dict(old)))
        observed[label] = {"load_state_dict returns": returned,
                           VERSIONS_SEEN: [[prefix, version] for prefix, version, _ in seen],
                           "the weights": [model.body.weight, model.body.inner.weight, model.head.weight],
                           "the checkpoint is unchanged": list(old) == keys_before}
    return observed


@scenario(public=True, points=1, misconceptions=[child_sees_all_keys])
def child_sees_own_keys(nn):
    """each module's _load_from_state_dict sees only the keys under its own prefix"""
    model, seen = migrating_model(nn)
    state = model.state_dict()
    state["body.stray"] = torch.ones(1)
    state["other.weight"] = torch.ones(1)
    result = model.load_state_dict(state, strict=False)
    return {KEYS_SEEN: [[prefix, keys] for prefix, _, keys in seen],
            UNEXPECTED_KEYS: list(result.unexpected_keys), MISSING_KEYS: list(result.missing_keys)}


@scenario(points=1)
def scalar_checkpoint(nn):
    """a shape-[1] value loads into a 0-dimensional parameter (old checkpoints); other shapes do not"""
    model = nn.Module()
    model.scale = nn.Parameter(torch.zeros(()))
    model.register_buffer("count", torch.zeros((), dtype=torch.long))
    loaded = model.load_state_dict({"scale": torch.full((1,), 2.5), "count": torch.full((1,), 7)})
    return {"load_state_dict(shape-[1] values)": tuple(loaded), "model.scale": model.scale, "model.count": model.count,
            "load_state_dict(a shape-[1, 1] value)": attempt(model.load_state_dict, {"scale": torch.ones(1, 1),
                                                                                       "count": torch.ones(())}),
            "model.scale afterwards": model.scale}


@scenario(points=1)
def result_repr(nn):
    """load_state_dict's result prints <All keys matched successfully>, or its two lists"""
    Scale = scale_class(nn)
    model = Scale()
    matched = model.load_state_dict(Scale().state_dict())
    partial = model.load_state_dict(checkpoint(model, bias=None, extra=torch.ones(1)), strict=False)
    return {"repr of a full match": repr(matched), "str of a full match": str(matched), "repr of a partial load": repr(partial),
            "a partial load's fields": [list(partial.missing_keys), list(partial.unexpected_keys)]}


@scenario(points=2, public=True, misconceptions=[extra_state_ignored])
def extra_state(nn):
    """get_extra_state() is saved under prefix + '_extra_state' and handed to set_extra_state() on loading"""
    Counter = counter_class(nn)
    model = nn.Module()
    model.counter = Counter()
    model.counter.inner = Counter()
    model.plain = nn.Module()
    model.counter.calls = 3
    with torch.no_grad():  # unlike a fresh Counter's, so that loading them shows
        model.counter.weight.fill_(2)
        model.counter.inner.weight.fill_(3)
    state = model.state_dict()
    fresh = nn.Module()
    fresh.counter = Counter()
    fresh.counter.inner = Counter()
    fresh.plain = nn.Module()
    result = attempt(lambda: tuple(fresh.load_state_dict(state)))
    without = {key: value for key, value in state.items() if not key.endswith("_extra_state")}
    return {STATE_DICT: {key: value for key, value in state.items()},
            "fresh.load_state_dict(state) returns": result, COUNTER_CALLS: fresh.counter.calls,
            LOADED_TENSORS: {key: value for key, value in fresh.state_dict().items() if not key.endswith("_extra_state")},
            "load_state_dict(state without the extra state, strict=False)":
                attempt(lambda: tuple(fresh.load_state_dict(without, strict=False))),
            "plain.load_state_dict({'_extra_state': 1}, strict=False)":
                attempt(lambda: tuple(nn.Module().load_state_dict({"_extra_state": 1}, strict=False)))}


@scenario(public=True, points=2, misconceptions=[assign_copies])
def assign_loads(nn):
    """load_state_dict(assign=True) puts the checkpoint's tensors in place, as Parameters keeping requires_grad"""
    model = scale_class(nn)()
    model.bias.requires_grad_(False)
    source = {"weight": torch.arange(3, dtype=torch.float64), "bias": nn.Parameter(torch.ones(3)),
              "steps": torch.tensor(4)}
    old = model.weight
    copied = scale_class(nn)()
    copied.load_state_dict(source)
    result = model.load_state_dict(source, assign=True)
    return {"load_state_dict(..., assign=True) returns": tuple(result),
            AFTER_ASSIGN: {key: lookup(model, key) is value or
                                                        lookup(model, key).data_ptr() == value.data_ptr()
                                                        for key, value in source.items()},
            "model.state_dict(keep_vars=True)": items(model.state_dict(keep_vars=True), model),
            "model.weight is the old Parameter": model.weight is old,
            COPIED_WITHOUT_ASSIGN: copied.weight.detach()}


@scenario(points=1)
def state_hooks_order(nn):
    """state-dict and load hooks run in torch's order, with torch's arguments; a post-hook may edit the keys"""
    model, log = hooked_tree(nn)
    keys = list(model.state_dict())
    log.append("| load_state_dict")
    state = model.state_dict()
    state["extra"] = torch.ones(1)
    result = attempt(lambda: tuple(model.load_state_dict(state)))
    return {"state_dict() keys": keys, "load_state_dict (a post-hook drops 'extra')": result, HOOK_LOG: log}
