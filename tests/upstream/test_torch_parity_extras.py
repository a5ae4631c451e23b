"""Not from PyTorch: behaviours issue 15 found diverging that PyTorch's own
tests (the other files here) do not reach. Same rule as the ported tests:
one body, run on ``torch.nn`` and on the reference ``mynn``."""
from collections import OrderedDict

import pytest
import torch

from upstream_support import assert_equal
from upstream_support import nn  # noqa: F401 (the fixture every test takes)


def scalar_module(nn):
    module = nn.Module()
    module.scale = nn.Parameter(torch.tensor(2.0))
    return module


def test_a_shape_1_tensor_loads_into_a_0_dim_parameter(nn):
    module = scalar_module(nn)
    result = module.load_state_dict({"scale": torch.tensor([5.0])})
    assert module.scale.shape == ()
    assert module.scale.item() == 5.0
    assert repr(result) == str(result) == "<All keys matched successfully>"


def test_incompatible_keys_print_as_a_named_tuple_when_something_is_off(nn):
    result = scalar_module(nn).load_state_dict({"other": torch.ones(1)}, strict=False)
    assert repr(result) == "_IncompatibleKeys(missing_keys=['scale'], unexpected_keys=['other'])"
    assert isinstance(result, tuple) and result._fields == ("missing_keys", "unexpected_keys")


def test_state_dict_metadata_records_each_version(nn):
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    metadata = model.state_dict()._metadata
    assert list(metadata) == ["", "0", "1"]
    assert [entry["version"] for entry in metadata.values()] == [1, 1, 2]
    assert not hasattr(model.state_dict(destination={}), "_metadata")


def test_a_torch_style_load_override_migrates_an_old_checkpoint(nn):
    class Renamed(nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.zeros(2))

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                  unexpected_keys, error_msgs):
            if local_metadata.get("version", 1) < 2 and prefix + "w" in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)

    model = nn.Sequential(Renamed())
    old = {"0.w": torch.ones(2)}
    assert model.load_state_dict(old).missing_keys == []
    assert_equal(model[0].weight, torch.ones(2))
    assert list(old) == ["0.w"], "load_state_dict works on a copy"


def test_buffer_marks_a_tensor_for_registration(nn):
    buffer = nn.Buffer(torch.ones(2), persistent=False)
    assert type(buffer) is torch.Tensor
    assert isinstance(buffer, nn.Buffer) and not isinstance(torch.ones(2), nn.Buffer)
    assert buffer.persistent is False
    assert nn.Buffer().shape == (0,)
    module = nn.Module()
    module.cache = buffer
    assert module._buffers["cache"] is buffer and "cache" in module._non_persistent_buffers_set


def test_get_parameter_and_friends_reject_what_is_not_theirs(nn):
    model = nn.Sequential(nn.BatchNorm1d(2))
    assert model.get_parameter("0.weight") is model[0].weight
    assert model.get_buffer("0.running_mean") is model[0].running_mean
    assert model.get_submodule("") is model
    for getter, target in [(model.get_parameter, "0.running_mean"), (model.get_buffer, "0.weight"),
                           (model.get_submodule, "0.weight"), (model.get_submodule, "1"),
                           (model.get_parameter, "0.nothing")]:
        with pytest.raises(AttributeError):
            getter(target)


def test_batchnorm_reset_parameters_restores_the_initial_state(nn):
    bn = nn.BatchNorm1d(3)
    bn(torch.randn(4, 3))
    with torch.no_grad():
        bn.weight.mul_(3)
        bn.bias.add_(1)
    bn.reset_parameters()
    assert_equal(bn.state_dict(), nn.BatchNorm1d(3).state_dict())


def test_sequential_multiplication_takes_a_positive_int(nn):
    model = nn.Sequential(nn.ReLU())
    with pytest.raises(ValueError):
        model * 0
    with pytest.raises(TypeError):
        model * 1.5
    with pytest.raises(KeyError):  # *= looks children up by number, as torch does
        named = nn.Sequential(OrderedDict(relu=nn.ReLU()))
        named *= 2


def test_a_handle_clears_every_table_it_marked(nn):
    model = nn.ReLU()
    handle = model.register_forward_hook(lambda *args: None, with_kwargs=True, always_call=True)
    assert handle.id in model._forward_hooks_with_kwargs and handle.id in model._forward_hooks_always_called
    later = model.register_forward_pre_hook(lambda *args: None)
    assert later.id > handle.id
    with handle:
        pass
    assert handle.id not in model._forward_hooks
    assert handle.id not in model._forward_hooks_with_kwargs and handle.id not in model._forward_hooks_always_called
    handle.remove()  # twice is harmless


def test_a_public_state_dict_post_hook_must_return_none(nn):
    model = nn.Linear(2, 2)
    model.register_state_dict_post_hook(lambda module, state, prefix, metadata: {})
    with pytest.raises(RuntimeError, match="must return None"):
        model.state_dict()


def test_with_kwargs_pre_hook_must_return_args_and_kwargs(nn):
    model = nn.ReLU()
    model.register_forward_pre_hook(lambda module, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        model(torch.ones((1,)))
