"""PyTorch's own tests of module hooks, from ``test/nn/test_module_hooks.py``,
run against ``torch.nn`` and against the reference ``mynn`` (the fixture ``nn``).

Not ported: ``TestModuleGlobalHooks`` and the registration-hook tests
(``test_hook_*_registration``), which test ``torch.nn.modules.module``'s
process-wide hook registries; mynn keeps hooks per module only. Ported from
PyTorch, BSD-3-Clause (see ``LICENSE-PyTorch``).
"""
import gc
import math
import pickle
import warnings
import weakref
from copy import deepcopy
from functools import partial
from tempfile import NamedTemporaryFile

import pytest
import torch

from upstream_support import assert_equal, out_of_scope, out_of_scope_here, sigmoid_module
from upstream_support import nn  # noqa: F401 (the fixture every test takes)

LEGACY_BACKWARD_HOOK = "register_backward_hook (deprecated, non-full backward hooks) is not in mynn"
NON_FULL_HOOK_WARNINGS = (UserWarning, FutureWarning)


def toy_model_classes(nn):
    """Upstream's module-level ``Net``, ``ToyModel``, ``KwargModel`` and
    ``FailsInForwardModel``, built on the implementation under test."""

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.seq1 = nn.Sequential(*[nn.Linear(10, 10) for _ in range(2)])
            self.seq2 = nn.Sequential(*[nn.Linear(10, 10) for _ in range(2)])

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.seq2(self.seq1(x))

    class ToyModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net1 = Net()
            self.net2 = Net()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net2(self.net1(x))

    class KwargModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net1 = Net()
            self.net2 = Net()

        def forward(self, x: torch.Tensor, bias: torch.Tensor = None) -> torch.Tensor:
            if bias is not None:
                x = x + bias
            return x

        def internal_forward_hook(self, module, args, kwargs, out):
            return out + kwargs["bias"]

    class FailsInForwardModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net1 = Net()

        def forward(self, x: torch.Tensor, fail: bool = True) -> torch.Tensor:
            if fail:
                raise RuntimeError("failing in forward")
            return self.net1(x)

    return Net, ToyModel, KwargModel, FailsInForwardModel


def forward_hook(fired_hooks, expected_module, hook_id, module, inp, out):
    fired_hooks.append(hook_id)
    assert id(module) == id(expected_module)
    assert len(inp) == 1


def forward_pre_hook(fired_hooks, expected_module, hook_id, module, inp):
    fired_hooks.append(hook_id)
    assert id(module) == id(expected_module)
    assert len(inp) == 1


def full_backward_hook(fired_hooks, expected_module, hook_id, module, grad_input, grad_output):
    fired_hooks.append(hook_id)
    assert id(module) == id(expected_module)
    assert len(grad_input) == 1
    assert len(grad_output) == 1


def full_backward_pre_hook(fired_hooks, expected_module, hook_id, module, grad_input):
    fired_hooks.append(hook_id)
    assert id(module) == id(expected_module)
    assert len(grad_input) == 1


def kwarg_forward_pre_hook(fired_hooks, expected_module, hook_id, module, args, kwargs):
    fired_hooks.append(hook_id)
    assert id(module) == id(expected_module)
    assert len(args) == 1
    kwargs["bias"] = 2 * kwargs["bias"]
    return args, kwargs


def kwarg_forward_hook(fired_hooks, expected_module, hook_id, module, args, kwargs, out):
    fired_hooks.append(hook_id)
    assert id(module) == id(expected_module)
    assert len(args) == 1

    out = out + kwargs["bias"]
    return out


class DummyContextManager:
    def __init__(self, inp):
        self.input = inp

    def __enter__(self, *args, **kwargs):
        self.input.append(2)

    def __exit__(self, *args, **kwargs):
        self.input.append(-1)


# -- TestModuleHooks ----------------------------------------------------------------

# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_forward_hooks
def test_forward_hooks(nn):
    _, ToyModel, _, _ = toy_model_classes(nn)
    fired_hooks = []
    model = ToyModel()
    x = torch.randn(10, 10)
    hook = partial(forward_hook, fired_hooks, model.net1.seq2)
    model.net1.seq2.register_forward_hook(partial(hook, 0))
    model.net1.seq2.register_forward_hook(partial(hook, 1), prepend=True)
    model.net1.seq2.register_forward_hook(partial(hook, 2))
    model.net1.seq2.register_forward_hook(partial(hook, 3))
    model.net1.seq2.register_forward_hook(partial(hook, 4), prepend=True)
    expected = [4, 1, 0, 2, 3]

    assert fired_hooks == []
    out = model(x)
    assert fired_hooks == expected
    out.sum().backward()
    assert fired_hooks == expected
    model(x).sum().backward()
    assert fired_hooks == expected + expected


# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_forward_pre_hooks
def test_forward_pre_hooks(nn):
    _, ToyModel, _, _ = toy_model_classes(nn)
    fired_hooks = []
    model = ToyModel()
    x = torch.randn(10, 10)
    hook = partial(forward_pre_hook, fired_hooks, model.net2.seq1)
    model.net2.seq1.register_forward_pre_hook(partial(hook, 0), prepend=True)
    model.net2.seq1.register_forward_pre_hook(partial(hook, 1))
    model.net2.seq1.register_forward_pre_hook(partial(hook, 2))
    model.net2.seq1.register_forward_pre_hook(partial(hook, 3))
    model.net2.seq1.register_forward_pre_hook(partial(hook, 4), prepend=True)
    expected = [4, 0, 1, 2, 3]

    assert fired_hooks == []
    out = model(x)
    assert fired_hooks == expected
    out.sum().backward()
    assert fired_hooks == expected
    model(x).sum().backward()
    assert fired_hooks == expected + expected


# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_full_backward_hooks
def test_full_backward_hooks(nn):
    _, ToyModel, _, _ = toy_model_classes(nn)
    fired_hooks = []
    model = ToyModel()
    x = torch.randn(10, 10)
    hook = partial(full_backward_hook, fired_hooks, model.net1)
    model.net1.register_full_backward_hook(partial(hook, 0))
    model.net1.register_full_backward_hook(partial(hook, 1))
    model.net1.register_full_backward_hook(partial(hook, 2))
    model.net1.register_full_backward_hook(partial(hook, 3), prepend=True)
    model.net1.register_full_backward_hook(partial(hook, 4), prepend=True)
    expected = [4, 3, 0, 1, 2]

    assert fired_hooks == []
    out = model(x)
    assert fired_hooks == []
    out.sum().backward()
    assert fired_hooks == expected
    model(x).sum().backward()
    assert fired_hooks == expected + expected


# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_full_backward_pre_hooks
def test_full_backward_pre_hooks(nn):
    _, ToyModel, _, _ = toy_model_classes(nn)
    fired_hooks = []
    model = ToyModel()
    x = torch.randn(10, 10)
    hook = partial(full_backward_pre_hook, fired_hooks, model.net1)
    model.net1.register_full_backward_pre_hook(partial(hook, 0), prepend=True)
    model.net1.register_full_backward_pre_hook(partial(hook, 1), prepend=True)
    model.net1.register_full_backward_pre_hook(partial(hook, 2))
    model.net1.register_full_backward_pre_hook(partial(hook, 3))
    model.net1.register_full_backward_pre_hook(partial(hook, 4))
    expected = [1, 0, 2, 3, 4]

    assert fired_hooks == []
    out = model(x)
    assert fired_hooks == []
    out.sum().backward()
    assert fired_hooks == expected
    model(x).sum().backward()
    assert fired_hooks == expected + expected

    # Backward pre hook can affect subsequent gradient computation
    a = torch.ones(2, requires_grad=True)
    model = nn.Linear(2, 2)

    def fn(_unused_module, grad_output):
        return (grad_output[0] * 0,)

    model.register_full_backward_pre_hook(fn)

    out = model(a)
    out.sum().backward()
    assert_equal(a.grad, torch.zeros_like(a))


# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_mixed_hooks
def test_mixed_hooks(nn):
    _, ToyModel, _, _ = toy_model_classes(nn)
    fired_hooks = []
    model = ToyModel()
    x = torch.randn(10, 10)
    model.register_forward_pre_hook(partial(forward_pre_hook, fired_hooks, model, 0))
    model.register_forward_hook(partial(forward_hook, fired_hooks, model, 1))
    model.register_full_backward_pre_hook(partial(full_backward_pre_hook, fired_hooks, model, 2))
    model.register_full_backward_hook(partial(full_backward_hook, fired_hooks, model, 3))

    assert fired_hooks == []
    out = model(x)
    assert fired_hooks == [0, 1]
    out.sum().backward()
    assert fired_hooks == [0, 1, 2, 3]
    model(x).sum().backward()
    assert fired_hooks == [0, 1, 2, 3, 0, 1, 2, 3]


# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_kwarg_hooks
def test_kwarg_hooks(nn):
    _, _, KwargModel, _ = toy_model_classes(nn)
    # 1. test forward pre hook
    fired_hooks = []
    x = torch.ones(10, 10)
    bias = torch.ones(10, 10)
    model = KwargModel()
    model.register_forward_pre_hook(
        partial(kwarg_forward_pre_hook, fired_hooks, model, 0),
        with_kwargs=True,
    )

    # forward-pre: bias' = bias * 2
    # So, out = x + bias * 2
    assert fired_hooks == []
    out = model(x, bias=bias)
    assert fired_hooks == [0]
    assert_equal(out, x + 2 * bias, rtol=0, atol=1e-5)

    # 2. test forward pre and forward hooks
    fired_hooks = []
    x = torch.ones(10, 10)
    bias = torch.ones(10, 10)
    model = KwargModel()
    model.register_forward_hook(
        partial(kwarg_forward_hook, fired_hooks, model, 1),
        with_kwargs=True,
    )
    model.register_forward_pre_hook(
        partial(kwarg_forward_pre_hook, fired_hooks, model, 0),
        with_kwargs=True,
    )

    # forward-pre: bias' = bias * 2
    # forward: out = x + bias'
    # forward-post: out = out + bias'
    # So, out = x + bias * 4
    assert fired_hooks == []
    out = model(x, bias=bias)
    assert fired_hooks == [0, 1]
    assert_equal(out, x + 4 * bias, rtol=0, atol=1e-5)

    # 3. test nn.Module member method as forward-post hook
    x = torch.ones(10, 10)
    bias = torch.ones(10, 10)
    model = KwargModel()
    model.register_forward_hook(model.internal_forward_hook, with_kwargs=True)

    # forward: out = x + bias
    # forward-post: out = out + bias
    # So, out = x + bias * 2
    out = model(x, bias=bias)
    assert_equal(out, x + 2 * bias, rtol=0, atol=1e-5)


# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_remove_kwarg_hooks
def test_remove_kwarg_hooks(nn):
    _, _, KwargModel, _ = toy_model_classes(nn)
    # test forward pre and forward hooks
    fired_hooks = []
    x = torch.ones(10, 10)
    bias = torch.ones(10, 10)
    model = KwargModel()
    forward_hook_handle = model.register_forward_hook(
        partial(kwarg_forward_hook, fired_hooks, model, 1),
        with_kwargs=True,
    )
    forward_pre_hook_handle = model.register_forward_pre_hook(
        partial(kwarg_forward_pre_hook, fired_hooks, model, 0),
        with_kwargs=True,
    )

    # forward-pre: bias' = bias * 2
    # forward: out = x + bias'
    # forward-post: out = out + bias'
    # So, out = x + bias * 4
    assert fired_hooks == []
    out = model(x, bias=bias)
    assert fired_hooks == [0, 1]
    assert_equal(out, x + 4 * bias, rtol=0, atol=1e-5)

    # forward-pre: bias' = bias * 2
    # forward: out = x + bias'
    # So, out = x + bias * 2
    forward_hook_handle.remove()
    out = model(x, bias=bias)
    assert fired_hooks == [0, 1, 0]
    assert_equal(out, x + 2 * bias, rtol=0, atol=1e-5)
    assert forward_hook_handle.id not in model._forward_hooks_with_kwargs

    # forward: out = x + bias
    # So, out = x + bias
    forward_pre_hook_handle.remove()
    out = model(x, bias=bias)
    assert fired_hooks == [0, 1, 0]
    assert_equal(out, x + bias, rtol=0, atol=1e-5)
    assert forward_pre_hook_handle.id not in model._forward_pre_hooks_with_kwargs


# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_always_called_forward_hooks
def test_always_called_forward_hooks(nn):
    _, _, _, FailsInForwardModel = toy_model_classes(nn)
    x = torch.ones(10, 10)
    model = FailsInForwardModel()
    stack = []
    ctx = None

    def setup_context():
        nonlocal ctx
        ctx = DummyContextManager(stack)

    def ctx_setup_hook(m, i):
        setup_context()
        ctx.__enter__()

    def ctx_setup_failure_hook(m, i):
        setup_context()
        ctx.__enter__()
        raise RuntimeError("failing in ctx setup")

    def ctx_shutdown_hook(m, i, o):
        ctx.__exit__()

    def ctx_shutdown_failure_hook(m, i, o):
        ctx.__exit__()
        raise RuntimeError("failing in ctx shutdown")

    def throw_hook(m, i, o):
        raise RuntimeError("failing in throw")

    forward_pre_hook_handle = model.register_forward_pre_hook(ctx_setup_hook)
    forward_hook_handle = model.register_forward_hook(ctx_shutdown_hook, always_call=True)
    assert len(model._forward_hooks_always_called) == 1

    # make sure always_called forward hook runs when model.forward raises RuntimeError
    with pytest.raises(RuntimeError, match="failing in forward"):
        model(x)
    assert stack == [2, -1]

    # make sure that always_called forward hook does not run twice if there is no error
    model(x, fail=False)
    assert stack == [2, -1, 2, -1]

    # make sure always_called forward hook runs when forward pre hook raises RuntimeError
    forward_pre_hook_handle.remove()
    model.register_forward_pre_hook(ctx_setup_failure_hook)

    with pytest.raises(RuntimeError, match="failing in ctx setup"):
        model(x, fail=False)
    assert stack == [2, -1, 2, -1, 2, -1]

    # make sure always_called hook runs when another always_called forward hook raises an error
    forward_hook_handle2 = model.register_forward_hook(throw_hook, prepend=True, always_call=True)

    # error raised should not be error of the forced hook
    with pytest.raises(RuntimeError, match="failing in ctx setup"):
        model(x, fail=False)
    assert stack == [2, -1, 2, -1, 2, -1, 2, -1]

    # make sure that always called forward hooks are properly removed
    forward_hook_handle.remove()
    forward_hook_handle2.remove()
    assert len(model._forward_hooks_always_called) == 0

    # make sure that always called forward hook is not run twice if it fails while running
    forward_hook_handle3 = model.register_forward_hook(ctx_shutdown_failure_hook, always_call=True)
    with pytest.raises(RuntimeError, match="failing in ctx setup"):
        model(x, fail=False)
    assert stack == [2, -1, 2, -1, 2, -1, 2, -1, 2, -1]

    forward_hook_handle3.remove()
    # (upstream goes on with nn.modules.module.register_module_forward_hook, a
    # process-wide hook: not ported, see the module docstring)


# upstream: test/nn/test_module_hooks.py::TestModuleHooks::test_bw_hook_warning_for_non_tensor_or_tuple
def test_bw_hook_warning_for_non_tensor_or_tuple(nn):
    # Test to verify that backward hook raises warning
    # if result is not a Tensor or tuple of Tensors.
    counter = {'forward': 0, 'backward': 0}

    def fw_pre_hook(module, _inputs):
        counter['forward'] += 1

    def fw_hook(module, _inputs, _outputs):
        counter['forward'] += 1

    def bw_hook(module, _inputs, _outputs):
        counter['backward'] += 1

    class TestModule(nn.Module):
        def forward(self, dict):
            inp = dict['x']
            x = torch.nn.functional.softmax(inp, dim=0)
            return {'x': x}

    x = torch.ones(2, requires_grad=True)
    model = TestModule()
    model.register_forward_pre_hook(fw_pre_hook)
    model.register_forward_hook(fw_hook)
    model.register_full_backward_pre_hook(bw_hook)
    model.register_full_backward_hook(bw_hook)

    with warnings.catch_warnings(record=True) as w:
        y = model({'x': x})['x']
        loss = y.sum()
        loss.backward()

    assert counter['forward'] == 2
    assert counter['backward'] == 0
    assert len(w) == 1
    assert "should be a Tensor or a tuple of Tensors" in str(w[0].message)


# -- TestStateDictHooks -------------------------------------------------------------

def _hook_to_pickle(*args, **kwargs):
    pass


# upstream: test/nn/test_module_hooks.py::TestStateDictHooks::test_load_state_dict_pre_hook
def test_load_state_dict_pre_hook(nn):

    m = nn.Linear(10, 10)
    m_state_dict = m.state_dict()

    m_load = nn.Linear(10, 10)

    hook_called = 0

    def hook_without_module(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        assert_equal(m_state_dict, state_dict)
        nonlocal hook_called
        hook_called += 1

    def hook_with_module(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                         error_msgs):
        assert_equal(m_state_dict, state_dict)
        assert m_load is module
        nonlocal hook_called
        hook_called += 1

    hook_called = 0
    m_load._register_load_state_dict_pre_hook(hook_without_module)
    m_load.load_state_dict(m_state_dict)
    assert 1 == hook_called

    hook_called = 0
    m_load._register_load_state_dict_pre_hook(hook_with_module, True)
    m_load.load_state_dict(m_state_dict)
    assert 2 == hook_called


# upstream: test/nn/test_module_hooks.py::TestStateDictHooks::test_no_extra_ref_to_module
def test_no_extra_ref_to_module(nn):
    try:
        gc.disable()
        m = nn.Linear(10, 10)

        m._register_load_state_dict_pre_hook(_hook_to_pickle, True)
        weak_m = weakref.ref(m)
        del m

        assert weak_m() is None
    finally:
        gc.enable()


# upstream: test/nn/test_module_hooks.py::TestStateDictHooks::test_pickled_hook
def test_pickled_hook(nn):
    m = nn.Linear(10, 10)
    m._register_load_state_dict_pre_hook(_hook_to_pickle, True)
    pickle.loads(pickle.dumps(m))


# upstream: test/nn/test_module_hooks.py::TestStateDictHooks::test_load_state_dict_module_pre_hook
def test_load_state_dict_module_pre_hook(nn):
    hook_called = 0

    # Test with module instance method as hook
    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = nn.Parameter(torch.rand(10))

        def my_pre_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                             error_msgs):
            assert [] == error_msgs
            assert [] == unexpected_keys
            assert [] == missing_keys
            assert strict
            nonlocal hook_called
            hook_called += 1

        def my_pre_load_hook_with_module(
            self,
            module,
            state_dict,
            prefix,
            local_metadata,
            strict,
            missing_keys,
            unexpected_keys,
            error_msgs,
        ):
            assert [] == error_msgs
            assert [] == unexpected_keys
            assert [] == missing_keys
            assert strict
            assert self is module
            nonlocal hook_called
            hook_called += 1

    # Test that hooks registered on a submodule are also called
    # appropriately, i.e. with the submodule as module argument in
    # my_pre_load_hook_with_module.
    class MyModuleContainer(nn.Module):
        def __init__(self, mod):
            super().__init__()
            self.mod = mod

    for ctor in [MyModuleContainer, lambda x: x]:
        m = ctor(MyModule())
        state_dict = m.state_dict()
        if isinstance(m, MyModuleContainer):
            mod = m.mod
        else:
            mod = m

        hook_called = 0
        mod._register_load_state_dict_pre_hook(mod.my_pre_load_hook)
        m.load_state_dict(state_dict)
        assert 1 == hook_called

        hook_called = 0
        mod._register_load_state_dict_pre_hook(mod.my_pre_load_hook_with_module, True)
        m.load_state_dict(state_dict)
        assert 2 == hook_called


# upstream: test/nn/test_module_hooks.py::TestStateDictHooks::test_load_state_dict_post_hook
def test_load_state_dict_post_hook(nn):
    hook_called = 0

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = nn.Parameter(torch.rand(10))

        def my_post_load_hook(self, module, incompatible_keys):
            assert module is self
            nonlocal hook_called
            incompatible_keys.missing_keys.append("foo")
            incompatible_keys.unexpected_keys.append("bar")
            hook_called += 1

    nested = MyModule()
    wrapped = nn.ModuleList([nested])
    handle = nested.register_load_state_dict_post_hook(nested.my_post_load_hook)
    # Hook must be called even if it is wrapped
    ret = wrapped.load_state_dict(wrapped.state_dict(), strict=False)
    assert hook_called == 1
    # Ensure that the hook modified missing_keys and unexpected_keys
    missing = ret.missing_keys
    unexpected = ret.unexpected_keys
    assert missing == ["foo"]
    assert unexpected == ["bar"]
    # When called with strict=True, the error raised should mention the
    # missing and unexpected keys the hook added.
    with pytest.raises(RuntimeError, match="foo.*\n.*bar"):
        wrapped.load_state_dict(wrapped.state_dict(), strict=True)
    assert hook_called == 2
    # Removing the hook via handle.remove() should cause it not to
    # fire anymore.
    handle.remove()
    # Hook did not run so it should not have added any keys
    ret = wrapped.load_state_dict(wrapped.state_dict(), strict=False)
    assert ret.missing_keys == []
    assert ret.unexpected_keys == []
    # hook_called should not have been incremented
    assert hook_called == 2

    def load_hook_clear_incompatible(module, incompatible_keys):
        incompatible_keys.missing_keys.clear()
        incompatible_keys.unexpected_keys.clear()

    nested.register_load_state_dict_post_hook(load_hook_clear_incompatible)
    state_dict = wrapped.state_dict()
    state_dict["extra"] = torch.ones(1)
    # load state_dict with strict=True should not throw.
    ret = wrapped.load_state_dict(state_dict, strict=True)
    # explicitly ensure that the post hook clearned out incompatible_keys
    assert [] == ret.missing_keys
    assert [] == ret.unexpected_keys


# upstream: test/nn/test_module_hooks.py::TestStateDictHooks::test_load_state_dict_post_hook_backward_compatibility
def test_load_state_dict_post_hook_backward_compatibility(nn):
    def my_post_load_hook(mod, _):
        nonlocal called
        called = True

    # adapted: nn.Softmin(10), nn.Softmax(10) and nn.LogSoftmax(10) become modules mynn has
    for m in [nn.ReLU(), nn.Linear(10, 10), nn.BatchNorm1d(10)]:
        called = False
        sd = deepcopy(m.state_dict())
        assert hasattr(m, '_load_state_dict_post_hooks')
        # Simulate an older model that did not have this attr
        delattr(m, '_load_state_dict_post_hooks')
        # Save and load, and ensure that load_state_dict works (without proper
        # BC we would run into errors because this attribute would be expected).
        # In particular, Softmax runs into the issue described here:
        # https://github.com/pytorch/pytorch/issues/77280
        with NamedTemporaryFile() as f:
            # Note that torch.save / torch.load is not recommended to save/load
            # modules.
            torch.save(m, f.name)
            # adapted: weights_only=False, since torch 2.6 loads only weights by default
            m = torch.load(f.name, weights_only=False)
            m.load_state_dict(sd)
            assert not called

        # Ensure hooks can be registered and called.
        m.register_load_state_dict_post_hook(my_post_load_hook)
        m.load_state_dict(sd)
        assert called


# -- TestModuleHookNN ---------------------------------------------------------------

# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hooks (one case per backward_register_fn)
@pytest.mark.parametrize("backward_register_fn", [
    "register_backward_hook", "register_full_backward_hook", "register_full_backward_pre_hook"])
def test_hooks(nn, backward_register_fn, request):
    if backward_register_fn == "register_backward_hook":
        out_of_scope_here(request, nn, LEGACY_BACKWARD_HOOK)
    # adapted: nn.Sigmoid is written on the implementation's nn.Module
    module = sigmoid_module(nn)
    input = torch.ones(5, 5, requires_grad=True)

    counter = {
        'forwards': 0,
        'backwards': 0
    }

    def fw_hook(inc, h_module, input, output):
        assert isinstance(input, tuple)
        assert isinstance(output, torch.Tensor)
        assert h_module is module
        assert_equal(input[0], torch.ones(5, 5))
        assert_equal(output, torch.empty(5, 5).fill_(1 / (1 + 1 / math.e)))
        counter['forwards'] += inc

    def bw_hook(inc, h_module, grad_input, grad_output):
        assert isinstance(grad_input, tuple)
        assert isinstance(grad_output, tuple)
        assert h_module is module
        assert_equal(grad_output[0], torch.ones(5, 5) * 2)
        counter['backwards'] += inc

    # backward_pre_hook expects callback with only `module` and `grad_output`
    # as arguments.
    def bw_pre_hook(inc, h_module, grad_output):
        assert isinstance(grad_output, tuple)
        assert h_module is module
        assert_equal(grad_output[0], torch.ones(5, 5) * 2)
        counter['backwards'] += inc

    test_fwd = module.register_forward_hook(lambda *args: fw_hook(1, *args))

    module(input)
    module(input)
    assert counter['forwards'] == 2
    assert counter['backwards'] == 0

    bw_hook_fn = bw_pre_hook if backward_register_fn == 'register_full_backward_pre_hook' else bw_hook
    test_bwd = getattr(module, backward_register_fn)(
        lambda *args: bw_hook_fn(1, *args))

    output = module(input)
    assert counter['forwards'] == 3
    assert counter['backwards'] == 0

    output.backward(torch.ones(5, 5) * 2, retain_graph=True)
    assert counter['forwards'] == 3
    assert counter['backwards'] == 1

    output.backward(torch.ones(5, 5) * 2, retain_graph=True)
    assert counter['forwards'] == 3
    assert counter['backwards'] == 2

    test2_fwd = module.register_forward_hook(lambda *args: fw_hook(2, *args))

    output = module(input)
    assert counter['forwards'] == 6
    assert counter['backwards'] == 2

    test2_bwd = getattr(module, backward_register_fn)(lambda *args: bw_hook_fn(2, *args))

    module(input).backward(torch.ones(5, 5) * 2)
    assert counter['forwards'] == 9
    assert counter['backwards'] == 5

    test2_bwd.remove()

    module(input).backward(torch.ones(5, 5) * 2)
    assert counter['forwards'] == 12
    assert counter['backwards'] == 6

    test2_fwd.remove()

    module(input).backward(torch.ones(5, 5) * 2)
    assert counter['forwards'] == 13
    assert counter['backwards'] == 7

    test_fwd.remove()
    test_bwd.remove()


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_cpp
def test_hook_cpp(nn):
    bn = nn.BatchNorm1d(5)

    def hook(module, grad_inputs, grad_outputs):
        assert len(grad_inputs) == 1
        assert len(grad_outputs) == 1
        assert module == bn

    bn.register_full_backward_hook(hook)
    output = bn(torch.randn(5, 5, requires_grad=True))
    output.sum().backward()


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_backward_hooks_interaction
def test_backward_hooks_interaction(nn):
    # Test to make sure that the grad_outputs
    # updated by full_backward_pre_hook are received by
    # the full_backward_hook
    # adapted: torch.nn.Sigmoid is written on the implementation's nn.Module
    module = sigmoid_module(nn)

    cnt = {'backward_cnt': 0}

    def bw_pre_hook(m, grad_output):
        cnt['backward_cnt'] += 1
        return (grad_output[0] * 0.5, )

    def bw_hook(m, grad_in, grad_output):
        assert_equal(torch.full_like(grad_output[0], 0.5), grad_output[0])
        cnt['backward_cnt'] += 1
        return grad_output

    module.register_full_backward_pre_hook(bw_pre_hook)
    module.register_full_backward_hook(bw_hook)

    t = torch.ones(1, 2, requires_grad=True)
    module(t).sum().backward()
    assert cnt['backward_cnt'] == 2


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_invalid_outputs (its legacy half)
@out_of_scope(LEGACY_BACKWARD_HOOK)
def test_hook_invalid_outputs(nn):
    # adapted: nn.Sigmoid is written on the implementation's nn.Module; the
    # full backward pre-hook half of upstream's test is the next test
    module = sigmoid_module(nn)
    input = torch.randn(5, 5, requires_grad=True)

    def bw_fail1(self, grad_input, grad_output):
        return grad_input[:-1]

    def bw_fail2(self, grad_input, grad_output):
        return grad_input + (torch.randn(2, 2),)

    with module.register_backward_hook(bw_fail1):
        with pytest.raises(RuntimeError, match='got 0, but expected 1'):
            module(input).sum().backward()

    with module.register_backward_hook(bw_fail2):
        with pytest.raises(RuntimeError, match='got 2, but expected 1'):
            module(input).sum().backward()


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_invalid_outputs (its full pre-hook half)
def test_hook_invalid_outputs_of_full_backward_pre_hooks(nn):
    # adapted: nn.Sigmoid is written on the implementation's nn.Module
    module = sigmoid_module(nn)
    input = torch.randn(5, 5, requires_grad=True)

    def bw_pre_fail1(self, grad_output):
        return ()

    def bw_pre_fail2(self, grad_output):
        return grad_output + (torch.randn(2, 2),)

    with module.register_full_backward_pre_hook(bw_pre_fail1):
        with pytest.raises(RuntimeError, match='got 0, but expected 1'):
            module(input).sum().backward()

    with module.register_full_backward_pre_hook(bw_pre_fail2):
        with pytest.raises(RuntimeError, match='got 2, but expected 1'):
            module(input).sum().backward()


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_requires_grad
def test_hook_requires_grad(nn):
    class MyModule(nn.Module):
        def forward(self, arg1, arg2, arg3):
            assert arg1.requires_grad
            assert not arg2.requires_grad
            assert arg3.requires_grad
            return arg1.sum() + arg2.sum() + arg3.sum()

    inp = torch.rand(2, requires_grad=True)
    mod = MyModule()

    mod(inp, inp.detach(), inp)
    # Ensure that requires grad is properly propagated
    mod.register_full_backward_hook(lambda mod, gI, gO: None)
    mod(inp, inp.detach(), inp)


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_no_requires_grad
def test_hook_no_requires_grad(nn):
    mod = nn.Linear(2, 3)

    inp = torch.rand(1, 2)

    return_val = "None"
    hook_called = [0]

    def hook(mod, grad_input, grad_output):
        hook_called[0] += 1
        for gI in grad_input:
            assert gI is None
        for gO in grad_output:
            assert gO.size() == (1, 3)

        if return_val == "grad_input":
            return grad_input
        elif return_val == "invalid":
            # If the inputs were requiring gradients, this would be
            # a valid return
            return inp
        elif return_val == "None":
            return None
        else:
            raise RuntimeError("Invalid return_val string")

    mod.register_full_backward_hook(hook)

    # This should run and trigger the hook properly
    mod(inp).sum().backward()
    assert hook_called[0] == 1

    return_val = "grad_input"

    mod(inp).sum().backward()
    assert hook_called[0] == 2

    return_val = "invalid"
    with pytest.raises(RuntimeError, match="where no input requires gradient"):
        mod(inp).sum().backward()


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_last_arg_requires_grad
def test_hook_last_arg_requires_grad(nn):
    # adapted: nn.L1Loss becomes nn.MSELoss
    mod = nn.MSELoss()
    inp = torch.rand(1, requires_grad=True)
    mod.register_full_backward_hook(lambda m, gI, gO: None)

    mod(inp.detach(), inp)


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_extra_input
def test_hook_extra_input(nn):
    class MyModule(nn.Module):
        def forward(self, non_tensor, tensor):
            return tensor.clone(), non_tensor

    inp = torch.rand(2, requires_grad=True)
    mod = MyModule()

    def hook(mod, grad_input, grad_output):
        assert grad_input[0] is None
        assert isinstance(grad_input[1], torch.Tensor)

        assert isinstance(grad_output[0], torch.Tensor)
        assert grad_output[1] is None

    mod.register_full_backward_hook(hook)
    out, _ = mod(True, inp)
    out.sum().backward()


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_inplace
def test_hook_inplace(nn):
    class MyModule(nn.Module):
        def forward(self, inp, do_inplace):
            self.inp = inp
            if do_inplace:
                inp += 1
            return inp.clone()

    hook_called = [0]

    def hook(mod, grad_input, grad_output):
        hook_called[0] += 1

    def hook_pre(mod, grad_output):
        hook_called[0] += 1

    inp = torch.rand(10, requires_grad=True)
    mod = MyModule()
    # adapted: newer torch calls the function BackwardHookFunction, older BackwardHookFunctionBackward
    for hook_fn, register_fn in [(hook, mod.register_full_backward_hook),
                                 (hook_pre, mod.register_full_backward_pre_hook)]:
        hook_called[0] = 0
        with register_fn(hook_fn):
            # No inplace should work
            mod(inp, False).sum().backward()
            assert hook_called[0] == 1

            # Input inplace error should throw an error
            with pytest.raises(RuntimeError, match="Output 0 of BackwardHookFunction(Backward)? is "
                                                   "a view and is being modified inplace."):
                mod(inp.clone(), True)

            # Input inplace error should throw an error if we try to re-use the view after they have
            # been modified
            local_inp = inp.clone()
            out = mod(local_inp, False)
            local_inp[0] *= 1
            with pytest.raises(RuntimeError, match="Output 0 of BackwardHookFunction(Backward)? is "
                                                   "a view and its base or another view"):
                # Any operation involving the view will fail here
                mod.inp + 2

            # Output inplace error should throw an error
            out = mod(inp, False)
            with pytest.raises(RuntimeError, match="BackwardHookFunction(Backward)? is a view "
                                                   "and is being modified inplace."):
                out += 1


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_non_full_warning
@out_of_scope(LEGACY_BACKWARD_HOOK)
def test_hook_non_full_warning(nn):
    def noop(*args):
        pass

    # adapted: newer torch warns with a FutureWarning, older with a UserWarning
    a = torch.rand(2, requires_grad=True)
    b = torch.rand(2, requires_grad=True)

    # Check invalid input container
    class MyModule(nn.Module):
        def forward(self, l):  # noqa: E741
            return l[0].clone(), l[1].clone()

    m = MyModule()
    m.register_backward_hook(noop)

    with pytest.warns(NON_FULL_HOOK_WARNINGS, match="does not take as input a single Tensor or a tuple of Tensors"):
        m([a, b])

    # Check invalid output container
    class MyModule(nn.Module):
        def forward(self, a, b):
            return [a.clone(), b.clone()]

    m = MyModule()
    m.register_backward_hook(noop)

    with pytest.warns(NON_FULL_HOOK_WARNINGS, match="does not return a single Tensor or a tuple of Tensors"):
        m(a, b)

    # Check invalid output from different Nodes
    class MyModule(nn.Module):
        def forward(self, a, b):
            return a.clone(), b.clone()

    m = MyModule()
    m.register_backward_hook(noop)

    with pytest.warns(NON_FULL_HOOK_WARNINGS, match="outputs are generated by different autograd Nodes"):
        m(a, b)

    # Check invalid forward with multiple Nodes
    class MyModule(nn.Module):
        def forward(self, a):
            return a.clone().clone()

    m = MyModule()
    m.register_backward_hook(noop)

    with pytest.warns(NON_FULL_HOOK_WARNINGS, match="the forward contains multiple autograd Nodes"):
        m(a)


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_backward_size
def test_hook_backward_size(nn):
    # Make module with multiple operations in forward
    # And different size for input and outputs
    class MyModule(nn.Module):
        def forward(self, arg1, arg2):
            tmp = arg1.sum() * arg2
            tmp = tmp + arg2.sum() * arg1.sum()
            tmp = tmp.sum().view(1)
            tmp = tmp.expand(8).contiguous()
            return tmp

    module = MyModule()
    inp1 = torch.randn(5, 5, requires_grad=True)
    inp2 = torch.randn(10, 10, requires_grad=True)

    def bw_hook(module, grad_input, grad_output):
        assert len(grad_input) == 2
        assert grad_input[0].size() == torch.Size([5, 5])
        assert grad_input[1].size() == torch.Size([10, 10])
        assert len(grad_output) == 1
        assert grad_output[0].size() == torch.Size([8])

    with module.register_full_backward_hook(bw_hook):
        module(inp1, inp2).sum().backward()


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_backward_writeable
@out_of_scope(LEGACY_BACKWARD_HOOK)
def test_hook_backward_writeable(nn):
    # adapted: nn.Sigmoid is written on the implementation's nn.Module
    module = sigmoid_module(nn)
    input = torch.randn(5, 5, requires_grad=True)
    sig_x = torch.nn.functional.sigmoid(input)

    def bw_hook(module, grad_input, grad_output):
        for grad in grad_input:
            assert isinstance(grad, torch.Tensor)
        for grad in grad_output:
            assert isinstance(grad, torch.Tensor)
        return tuple(gi * 2 for gi in grad_input)

    module.register_backward_hook(bw_hook)
    module(input).backward(torch.ones(5, 5))
    expected_grad = sig_x * (1 - sig_x) * 2
    assert_equal(input.grad, expected_grad)


# upstream: test/nn/test_module_hooks.py::TestModuleHookNN::test_hook_forward_preforward_writable
def test_hook_forward_preforward_writable(nn):
    # adapted: nn.Sigmoid is written on the implementation's nn.Module
    module = sigmoid_module(nn)
    input = torch.randn(5, 5, requires_grad=True)
    sig_x = torch.nn.functional.sigmoid(input)

    def forward_pre_hook(m, input):
        return torch.nn.functional.relu(input[0])

    def forward_hook(m, input, output):
        return -output

    module.register_forward_pre_hook(forward_pre_hook)
    module.register_forward_hook(forward_hook)
    output = module(input)
    expected_res = -torch.nn.functional.sigmoid(torch.nn.functional.relu(input))
    assert_equal(output, expected_res)
    output.backward(torch.ones(5, 5) * 2, retain_graph=True)
    mask = (input > 0)
    expected_grad = -sig_x * (1 - sig_x) * 2 * mask
    assert_equal(input.grad, expected_grad)


# upstream: test/nn/test_module_hooks.py::TestModuleGlobalHooks::test_module_forward_preforward_hook_removable
def test_module_forward_preforward_hook_removable(nn):
    """
    This test is to test when multiple pre-forward hook functions can be
    registered successfully and used correctly, if the handle can be removable
    during the pre-forward hook function call.
    """
    # adapted: nn.Sigmoid is written on the implementation's nn.Module
    module = sigmoid_module(nn)

    def removable_hook(m, input):
        nonlocal handle
        handle.remove()
        return input

    def removable_hook_2(m, input):
        nonlocal handle_2
        handle_2.remove()
        return input

    handle = module.register_forward_pre_hook(removable_hook)
    handle_2 = module.register_forward_pre_hook(removable_hook_2)

    # make sure hook register is successful
    assert len(handle.hooks_dict_ref()) == 2
    assert len(handle_2.hooks_dict_ref()) == 2

    input = torch.randn(2, 2)
    output = module(input)
    assert_equal(torch.sigmoid(input), output)

    # make sure hook removal is successful
    assert handle.id not in handle.hooks_dict_ref()
    assert handle_2.id not in handle.hooks_dict_ref()
    assert len(handle.hooks_dict_ref()) == 0
    assert len(handle_2.hooks_dict_ref()) == 0


# upstream: test/nn/test_module_hooks.py::TestModuleGlobalHooks::test_module_forward_forward_hook_removable
def test_module_forward_forward_hook_removable(nn):
    """
    This test is to test when multiple forward hook functions can be registered
    successfully and used correctly, if the handle can be removable during the
    forward hook function call.
    """
    # adapted: nn.Sigmoid is written on the implementation's nn.Module
    module = sigmoid_module(nn)

    def removable_hook(m, input, output):
        nonlocal handle
        handle.remove()
        return output

    def removable_hook_2(m, input, output):
        nonlocal handle_2
        handle_2.remove()
        return output

    handle = module.register_forward_hook(removable_hook)
    handle_2 = module.register_forward_hook(removable_hook_2)

    # make sure hook register is successful
    assert len(handle.hooks_dict_ref()) == 2
    assert len(handle_2.hooks_dict_ref()) == 2

    input = torch.randn(2, 2)
    output = module(input)
    assert_equal(torch.sigmoid(input), output)

    # make sure hook removal is successful
    assert handle.id not in handle.hooks_dict_ref()
    assert handle_2.id not in handle.hooks_dict_ref()
    assert len(handle.hooks_dict_ref()) == 0
    assert len(handle_2.hooks_dict_ref()) == 0
