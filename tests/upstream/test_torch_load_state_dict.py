"""PyTorch's own tests of ``load_state_dict``, from ``test/nn/test_load_state_dict.py``,
run against ``torch.nn`` and against the reference ``mynn`` (the fixture ``nn``).

Upstream runs most of these twice, with ``torch.__future__``'s
swap-module-params mode on and off (``@swap([True, False])``); they are
ported for the default mode (off), the one mynn implements. Ported from
PyTorch, BSD-3-Clause (see ``LICENSE-PyTorch``).
"""
import gc
from copy import deepcopy
from tempfile import NamedTemporaryFile

import numpy as np
import pytest
import torch

from upstream_support import assert_equal
from upstream_support import nn  # noqa: F401 (the fixture every test takes)


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_invalid
def test_load_state_dict_invalid(nn):
    m = nn.Linear(2, 2, bias=False)

    state_dict = {"weight": np.random.randn(2, 2)}
    with pytest.raises(RuntimeError, match="expected torch.Tensor or Tensor-like object from checkpoint but received"):
        m.load_state_dict(state_dict)

    state_dict = {"weight": ((1.0, 1.0), (2.0, 2.0))}
    with pytest.raises(RuntimeError, match="expected torch.Tensor or Tensor-like object from checkpoint but received"):
        m.load_state_dict(state_dict)


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_type
def test_load_state_dict_type(nn):
    m = nn.Module()

    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got"):
        m.load_state_dict("")
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got"):
        m.load_state_dict(2)


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict
def test_load_state_dict(nn):
    # adapted: nn.Conv2d(3, 3, 3, bias=...) becomes nn.Linear(3, 3, bias=...),
    # nn.BatchNorm2d(2) becomes nn.BatchNorm1d(2)
    l = nn.Linear(5, 5)  # noqa: E741
    block = nn.Module()
    block.conv1 = nn.Linear(3, 3, bias=True)
    block.conv2 = nn.Linear(3, 3, bias=False)
    net = nn.Module()
    net.linear1 = l
    net.linear2 = l
    net.bn = nn.BatchNorm1d(2)
    net.block = block
    net.add_module("empty", None)
    conv1_bias_dtype = block.conv1.bias.dtype

    state_dict = net.state_dict()
    state_dict.update(
        {
            "linear1.weight": torch.ones(5, 5),
            "block.conv1.bias": torch.arange(1, 4, dtype=conv1_bias_dtype),
            "bn.running_mean": torch.randn(2),
        }
    )
    # Also test if a DDP state_dict can be loaded from a local model.
    ddp_state_dict = net.state_dict()
    ddp_state_dict.update(
        {
            "module.linear1.weight": torch.ones(5, 5),
            "module.block.conv1.bias": torch.arange(1, 4, dtype=conv1_bias_dtype),
            "module.bn.running_mean": torch.randn(2),
        }
    )
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(ddp_state_dict, "module.")
    for sd in [state_dict, ddp_state_dict]:
        incompatible_keys = net.load_state_dict(sd)
        assert len(incompatible_keys.missing_keys) == 0
        assert len(incompatible_keys.unexpected_keys) == 0
        assert "Incompatible" not in str(incompatible_keys)
        assert_equal(net.linear1.weight, sd["linear1.weight"])
        assert_equal(net.block.conv1.bias, sd["block.conv1.bias"])
        assert_equal(net.bn.running_mean, sd["bn.running_mean"])

    state_dict = net.state_dict()
    state_dict.update({"extra": torch.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    incompatible_keys = net.load_state_dict(state_dict, strict=False)
    assert len(incompatible_keys.missing_keys) == 0
    assert len(incompatible_keys.unexpected_keys) == 1
    assert "extra" in incompatible_keys.unexpected_keys
    assert "Incompatible" in str(incompatible_keys)

    state_dict = net.state_dict()
    state_dict.update({"extra.param": torch.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    incompatible_keys = net.load_state_dict(state_dict, strict=False)
    assert len(incompatible_keys.missing_keys) == 0
    assert len(incompatible_keys.unexpected_keys) == 1
    assert "extra.param" in incompatible_keys.unexpected_keys

    state_dict = net.state_dict()
    del state_dict["linear1.weight"]
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    incompatible_keys = net.load_state_dict(state_dict, strict=False)
    assert len(incompatible_keys.missing_keys) == 1
    assert len(incompatible_keys.unexpected_keys) == 0
    assert "linear1.weight" in incompatible_keys.missing_keys
    state_dict.update({"extra.param": torch.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    incompatible_keys = net.load_state_dict(state_dict, strict=False)
    assert len(incompatible_keys.missing_keys) == 1
    assert len(incompatible_keys.unexpected_keys) == 1
    assert "linear1.weight" in incompatible_keys.missing_keys
    assert "extra.param" in incompatible_keys.unexpected_keys

    state_dict = net.state_dict()
    state_dict.update({"bn.running_mean": torch.rand(14, 4)})  # wrong size
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict, strict=False)

    state_dict = net.state_dict()
    old_state_dict = deepcopy(state_dict)
    state_dict = {
        "linear1.weight": torch.ones(5, 5),
        "block.conv1.bias": torch.arange(1, 4, dtype=conv1_bias_dtype),
        "bn.running_mean": torch.randn(2),
        "nonexistent_key": torch.rand(3),
    }
    net.load_state_dict(state_dict, strict=False)
    assert_equal(net.linear1.weight, state_dict["linear1.weight"])
    assert_equal(net.block.conv1.bias, state_dict["block.conv1.bias"])
    assert_equal(net.bn.running_mean, state_dict["bn.running_mean"])
    new_state_dict = net.state_dict()
    del old_state_dict["linear1.weight"]
    del old_state_dict["block.conv1.bias"]
    del old_state_dict["bn.running_mean"]
    for (
        k,
        v,
    ) in old_state_dict.items():
        assert v.equal(new_state_dict[k])


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_BC
def test_load_state_dict_BC(nn):
    # BatchNormNd
    # Added num_batches_tracked buffer at version 2. For state dict with
    # earlier versions or no versions, it should provide default value of 0.
    # adapted: nn.BatchNorm2d(3) becomes nn.BatchNorm1d(3)
    bn = nn.BatchNorm1d(3)
    state_dict = bn.state_dict()
    del state_dict["num_batches_tracked"]
    state_dict._metadata[""]["version"] = 1  # version 1
    bn.load_state_dict(state_dict)
    assert bn.num_batches_tracked.dtype == torch.long
    assert bn.num_batches_tracked.item() == 0
    del state_dict._metadata[""]["version"]  # no version
    bn.load_state_dict(state_dict)
    assert bn.num_batches_tracked.dtype == torch.long
    assert bn.num_batches_tracked.item() == 0


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_child
def test_load_state_dict_child(nn):
    base_module = nn.Linear(1, 1)
    model = base_module
    for _ in range(3):
        model = nn.Sequential(*[deepcopy(model) for _ in range(10)])

    def hook_fn(
        module,
        state_dict,
        prefix,
        local_metadata,
        strict,
        missing_keys,
        unexpected_keys,
        error_msgs,
    ):
        module_state_dict = module.state_dict()
        assert len(module_state_dict.keys()) == len(state_dict.keys())

    model[0][0].register_load_state_dict_pre_hook(hook_fn)
    model.load_state_dict(model.state_dict(), strict=True)


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_register_state_dict_pre_hook_backward_compat
def test_register_state_dict_pre_hook_backward_compat(nn):
    called = False

    def my_state_dict_pre_hook(*args, **kwargs):
        nonlocal called
        called = True

    m = nn.Linear(1, 1)
    assert hasattr(m, "_state_dict_pre_hooks")
    delattr(m, "_state_dict_pre_hooks")
    # Save and load, ensure we can still call state_dict
    # without running into issues.
    with NamedTemporaryFile() as f:
        # Note that torch.save / torch.load is not recommended
        # to save / load modules.
        torch.save(m, f.name)
        # adapted: weights_only=False, since torch 2.6 loads only weights by default
        m = torch.load(f.name, weights_only=False)

    # Ensure we can run state_dict without issues
    _ = m.state_dict()
    assert not called
    m.register_state_dict_pre_hook(my_state_dict_pre_hook)
    _ = m.state_dict()
    assert called


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_ref_cycle
def test_load_state_dict_ref_cycle(nn):
    # load_state_dict shouldn't cause a reference cycle involving Tensors
    # adapted: torch.nn.LSTM(16, 16, bidirectional=True) becomes a Sequential of Linear and BatchNorm1d
    m = nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16))

    gc.collect()
    m.load_state_dict(deepcopy(m).state_dict())
    refcycles = gc.collect()

    assert refcycles == 0


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_custom
def test_load_state_dict_custom(nn):
    class CustomState(nn.Module):
        def __init__(self):
            super().__init__()
            self.param = nn.Parameter(torch.ones(1))
            self.sub = nn.Linear(5, 5)

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            destination[prefix + "serialized"] = self.param.data + 1

        def _load_from_state_dict(
            self,
            state_dict,
            prefix,
            local_metadata,
            strict,
            missing_keys,
            unexpected_keys,
            error_msgs,
        ):
            # skip some of the error handling
            self.param.data.copy_(state_dict[prefix + "serialized"] - 1)

    # use sequential to verify nesting
    m = nn.Sequential(CustomState())
    with torch.no_grad():
        m[0].param[0] = 10
        m[0].sub.weight[0, 0] = 555
    state_dict = m.state_dict()
    assert state_dict["0.serialized"].item() == 11
    assert "0.sub.weight" in state_dict
    assert "0.param" not in state_dict
    del m
    mm = nn.Sequential(CustomState())
    assert mm[0].param[0].item() == 1
    mm.load_state_dict(state_dict)
    assert mm[0].param[0].item() == 10
    assert mm[0].sub.weight[0, 0].item() == 555


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_assign_meta
@pytest.mark.parametrize("keep_vars", [True, False])
def test_load_state_dict_assign_meta(nn, keep_vars):
    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 5)
            self.bn = nn.BatchNorm1d(5)
            self.x = nn.Parameter(torch.rand(5), requires_grad=False)

        def forward(self, input):
            return self.x + self.bn(self.fc1(input))

    swap = torch.__future__.get_swap_module_params_on_conversion()
    net = MyModule()
    state_dict = net.state_dict(keep_vars=keep_vars)
    for v in state_dict.values():
        v.requires_grad_(False)

    with torch.device("meta"):
        net_meta = MyModule()

    net_meta_state_dict_old = net_meta.state_dict(keep_vars=True)
    net_meta.load_state_dict(state_dict, assign=True)

    # Make sure parameters and persistent buffers were assigned
    net_meta_state_dict = net_meta.state_dict(keep_vars=True)
    for key in state_dict.keys():
        if key in net_meta._parameters:
            if keep_vars and not swap:
                # state_dict[key] is an nn.Parameter
                assert state_dict[key] is net_meta_state_dict[key]
            else:
                if swap:
                    assert net_meta_state_dict[key] is net_meta_state_dict_old[key]
                else:
                    # state_dict[key] is not an nn.Parameter so it will be detached when wrapping with a Parameter
                    assert net_meta_state_dict[key] is not net_meta_state_dict_old[key]
                    assert net_meta_state_dict_old[key].requires_grad == net_meta_state_dict[key].requires_grad
            assert net_meta_state_dict_old[key].requires_grad == net_meta_state_dict[key].requires_grad
            assert_equal(state_dict[key], net_meta_state_dict[key])
        elif (
            key in net_meta._buffers
            and key not in net_meta._non_persistent_buffers_set
        ):
            assert state_dict[key] is net_meta_state_dict[key]
            assert_equal(state_dict[key], net_meta_state_dict[key])

    # Make sure that ordering of parameters and buffers is preserved
    net_named_parameters = net.named_parameters()
    net_named_buffers = net.named_buffers()
    net_meta_named_parameters = net_meta.named_parameters()
    net_meta_named_buffers = net_meta.named_buffers()

    for (n1, _), (n2, _) in zip(net_named_parameters, net_meta_named_parameters):
        assert n1 == n2

    for (n1, _), (n2, _) in zip(net_named_buffers, net_meta_named_buffers):
        assert n1 == n2

    # Make sure outputs are the same
    t = torch.randn(4, 3)
    out_net = net(t)
    out_net_meta = net_meta(t.clone())

    assert_equal(out_net, out_net_meta)


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_assign_with_optimizer
def test_load_state_dict_assign_with_optimizer(nn):
    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 5)
            self.bn = nn.BatchNorm1d(5)

        def forward(self, input):
            return self.bn(self.fc1(input))

    net = MyModule()
    opt = torch.optim.Adam(net.parameters(), lr=1000)
    x = torch.randn(4, 3)
    num_iters = 3

    for i in range(num_iters):
        opt.zero_grad()
        out = net(x)
        out.sum().backward()
        opt.step()

    opt_state_dict = deepcopy(opt.state_dict())
    net_state_dict = deepcopy(net.state_dict())

    with torch.device("meta"):
        net_meta = MyModule()

    net_meta.load_state_dict(net_state_dict, assign=True)
    # must create optimizer only after loading state_dict when assign=True
    opt2 = torch.optim.Adam(net_meta.parameters(), lr=1000)
    opt2.load_state_dict(opt_state_dict)

    y = x.clone()
    for i in range(num_iters):
        opt.zero_grad()
        out = net(x)
        out.sum().backward()
        opt.step()

        opt2.zero_grad()
        out2 = net_meta(y)
        out2.sum().backward()
        opt2.step()

    assert_equal(opt.state_dict(), opt2.state_dict())
    assert_equal(net.state_dict(), net_meta.state_dict())


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_assign_shape_stride
def test_load_state_dict_assign_shape_stride(nn):
    # Assigned tensor is allowed to have different properties than initial
    # tensor except for shape
    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 5)
            self.bn = nn.BatchNorm1d(5)

        def forward(self, input):
            return self.bn(self.fc1(input))

    net = MyModule()
    state_dict = net.state_dict()
    # loading should be ok if stride is different
    state_dict["fc1.weight"] = torch.randn(3, 5).transpose(0, 1)
    net2 = MyModule()
    net2.load_state_dict(state_dict, strict=False, assign=True)

    state_dict["fc1.weight"] = torch.randn(2, 4)
    with pytest.raises(RuntimeError, match="size mismatch for fc1.weight: copying a param with shape"):
        net2.load_state_dict(state_dict, strict=False, assign=True)


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_warn_assign
def test_load_state_dict_warn_assign(nn):
    with torch.device("meta"):
        m = nn.Linear(3, 5)
    state_dict = m.state_dict()
    state_dict["weight"] = torch.empty_like(state_dict["weight"], device="cpu")
    with pytest.warns(UserWarning, match="for weight: copying from a non-meta parameter in the checkpoint to a meta"):
        m.load_state_dict(state_dict)


# upstream: test/nn/test_load_state_dict.py::TestLoadStateDict::test_load_state_dict_with_unexpected_key
def test_load_state_dict_with_unexpected_key(nn):
    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(5, 10)

    m = MyModule()

    # Unexpected key & strict = True
    with pytest.raises(RuntimeError, match="Unexpected key"):
        state_dict = m.state_dict()
        state_dict["fc1.bad_suffix"] = torch.randn(5, 10)
        m.load_state_dict(state_dict)

    # Unexpected key & strict = False
    state_dict = m.load_state_dict(state_dict, strict=False)
    assert "fc1.bad_suffix" in state_dict.unexpected_keys

    # Unexpected key whose prefix matches a valid key & strict = True
    with pytest.raises(RuntimeError, match="Unexpected key"):
        state_dict = m.state_dict()
        state_dict["fc1.weight.bad_suffix"] = torch.randn(5, 10)
        m.load_state_dict(state_dict)

    # Unexpected key whose prefix matches a valid key & strict = False
    state_dict = m.load_state_dict(state_dict, strict=False)
    assert "fc1.weight.bad_suffix" in state_dict.unexpected_keys
