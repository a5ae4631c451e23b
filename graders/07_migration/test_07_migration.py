"""Exercise 07: device and dtype migration. Every scenario runs once per
device ("cpu", "cuda"; CUDA cases skip where CUDA is absent). On the CPU a
move to "cpu" changes nothing, so those cases still grade what the CPU can
show: dtypes, identities, gradients, integer buffers and unregistered layers."""
import torch

from modlab.grading import attempt, scenario

from ..shared.trees import build_tree, module_trees, tree_code
from .misconceptions import (apply_order, grads_left_behind, integer_buffers_cast, integer_dtype_accepted,
                             new_parameters_on_move, tensors_not_converted, type_keeps_integers,
                             unregistered_tensors_moved)
from .views import (CLASSES_SEEN, DEVICE, DTYPE, SAME_PARAMETER, SEEN, UNREGISTERED, affine_class, dtypes, net_class,
                    parameters, registered, same_objects, tensors, trained)

# What any conversion of the registered tensors can show.
CONVERTING = [new_parameters_on_move, integer_buffers_cast, grads_left_behind, tensors_not_converted,
              unregistered_tensors_moved]




@scenario(points=3, public=True, devices=True, misconceptions=CONVERTING)
def to_keeps_parameter_identity(nn, device):
    """to(device, float64) converts every parameter in place: same objects, still leaves"""
    model = net_class(nn)()
    before = parameters(model)
    returned = model.to(device, torch.float64)
    leaves = [[name, [t.is_leaf, t.requires_grad]] for name, t in registered(model)]
    return {"model.to(...) is model": returned is model, SAME_PARAMETER: same_objects(model, before),
            "[is_leaf, requires_grad]": leaves, "registered tensors": tensors(model)}


@scenario(points=3, public=True, devices=True, misconceptions=CONVERTING)
def optimizer_built_before_to_still_trains(nn, device):
    """an optimizer built before .to() still trains the moved model"""
    model = net_class(nn)()
    before = parameters(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.to(device, torch.float64)
    same = same_objects(model, before)
    losses = []
    for _ in range(2):
        optimizer.zero_grad()
        loss = model(torch.ones(2, 3, dtype=torch.float64, device=device)).pow(2).sum()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return {SAME_PARAMETER: same, "losses": losses, "registered tensors": tensors(model)}


@scenario(points=3, public=True, devices=True, misconceptions=CONVERTING)
def grads_move_with_parameters(nn, device):
    """gradients take their parameter's new dtype and device"""
    model = trained(net_class(nn)(), torch.ones(2, 3))
    model.to(device, torch.float64)
    after_to = tensors(model)
    model.half()
    return {"registered tensors after .to(device, float64)": after_to, "registered tensors after .half()": tensors(model)}


@scenario(points=3, public=True, devices=True, misconceptions=CONVERTING)
def integer_buffers_keep_their_dtype(nn, device):
    """to(), double(), half() and float() cast floating tensors only: int64 and bool buffers stay"""
    model = affine_class(nn)()
    seen = {}
    for call, convert in (("model.to(device, torch.float64)", lambda: model.to(device, torch.float64)),
                          ("model.half()", model.half), ("model.double()", model.double), ("model.float()", model.float)):
        convert()
        seen[f"dtypes after {call}"] = dtypes(model)
    return {**seen, "model.steps": model.steps, "model.mask": model.mask}


@scenario(points=2, devices=True, misconceptions=CONVERTING)
def buffers_are_replaced(nn, device):
    """a converted buffer is a new tensor in the register; an unconverted one is kept"""
    model = affine_class(nn)()
    mean, steps = model.mean, model.steps
    model.to(device, torch.float64)
    return {"model.mean is the old mean": model.mean is mean, "model.steps is the old steps": model.steps is steps,
            "model._buffers['mean'] is model.mean": model._buffers["mean"] is model.mean, "model.mean": model.mean}


@scenario(points=2, public=True, devices=True, misconceptions=[integer_dtype_accepted])
def to_with_an_integer_dtype_raises(nn, device):
    """to(torch.int64) and friends raise TypeError and leave the model as it was; a complex dtype is accepted"""
    model = affine_class(nn)()
    return {"model.to(torch.int64)": attempt(model.to, torch.int64),
            "model.to(device, torch.int32)": attempt(model.to, device, torch.int32),
            "model.to(dtype=torch.bool)": attempt(model.to, dtype=torch.bool),
            "model.to(a long tensor)": attempt(model.to, torch.ones(1, dtype=torch.long)),
            "registered tensors": tensors(model),
            "model.to(torch.complex64) is model": attempt(lambda: model.to(torch.complex64) is model)}


@scenario(points=3, public=True, devices=True, misconceptions=CONVERTING)
def to_argument_forms(nn, device):
    """to() takes a device, a dtype, both, a tensor, keywords and non_blocking, like torch"""
    model = affine_class(nn)()
    calls = {
        "model.to(torch.float64)": lambda: model.to(torch.float64),
        "model.to(device)": lambda: model.to(device),
        "model.to(device, torch.float16)": lambda: model.to(device, torch.float16),
        "model.to(dtype=torch.float32, device=torch.device(device))":
            lambda: model.to(dtype=torch.float32, device=torch.device(device)),
        "model.to(a float64 tensor on device)": lambda: model.to(torch.zeros(1, dtype=torch.float64, device=device)),
        "model.to(torch.float32, non_blocking=True)": lambda: model.to(torch.float32, non_blocking=True),
        "model.to('cpu')": lambda: model.to("cpu"),
        "model.to(device=device, non_blocking=True)": lambda: model.to(device=device, non_blocking=True),
    }
    seen = {}
    for call, convert in calls.items():
        seen[call] = {"returns model": convert() is model, "dtypes": dtypes(model)}
    return {**seen, "registered tensors": tensors(model)}


@scenario(points=1, devices=True, misconceptions=CONVERTING)
def complex_dtypes(nn, device):
    """to(complex64) converts floating tensors to complex; double() leaves complex ones alone"""
    model = affine_class(nn)()
    model.to(device, torch.complex64)
    first = tensors(model)
    model.double()
    return {"registered tensors after .to(device, complex64)": first, "registered tensors after .double()": tensors(model)}


@scenario(points=2, devices=True, misconceptions=CONVERTING)
def half_and_back_loses_precision(nn, device):
    """half() then float() rounds the values through float16, as torch does"""
    model = affine_class(nn)().to(device)
    with torch.no_grad():
        model.weight.mul_(1 / 3)
    model.double().half().float()
    return {"registered tensors": tensors(model)}


@scenario(points=2, public=True, devices=True, misconceptions=[type_keeps_integers])
def type_casts_every_tensor(nn, device):
    """type(dtype) casts integer buffers too; an integer type fails on the parameters"""
    model = affine_class(nn)().to(device)
    returned = model.type(torch.float64)
    cast = tensors(model)
    return {"model.type(torch.float64) is model": returned is model, "registered tensors after .type(torch.float64)": cast,
            "model.type(torch.int32)": attempt(model.type, torch.int32), "registered tensors at the end": tensors(model)}


@scenario(points=3, public=True, devices=True, misconceptions=CONVERTING)
def cuda_and_cpu_move_everything(nn, device):
    """cuda() moves every parameter, gradient and buffer to the GPU, cpu() brings them back"""
    model = trained(net_class(nn)(), torch.ones(2, 3))
    before = parameters(model)
    there = model.cuda() if device == "cuda" else model.cpu()
    moved = {"returns model": there is model, "devices": [[name, str(t.device)] for name, t in registered(model)],
             SAME_PARAMETER: same_objects(model, before)}
    back = model.cpu()
    return {f"after model.{device}()": moved, "model.cpu() is model": back is model, "registered tensors": tensors(model)}


@scenario(points=2, public=True, devices=True, misconceptions=[apply_order])
def apply_visits_children_first(nn, device):
    """apply(fn) calls fn on each distinct child, recursively, then on the module itself"""
    Affine = affine_class(nn)
    model = net_class(nn)()
    model.twin = model.first           # the same child twice in one parent: visited once
    model.inner = nn.Module()
    model.inner.again = model.second   # reachable from another parent too: visited again
    seen = []
    returned = model.to(device).apply(lambda m: seen.append(type(m).__name__))

    @torch.no_grad()
    def init(m):
        if isinstance(m, Affine):
            m.weight.fill_(0.5)

    model.apply(init)
    return {"model.apply(fn) is model": returned is model, CLASSES_SEEN: seen,
            "registered tensors": tensors(model)}


@scenario(points=3, public=True, devices=True, misconceptions=CONVERTING)
def plain_list_layers_stay_behind(nn, device):
    """layers in a plain list are not moved: after .to(float64) the next forward fails"""
    Affine = affine_class(nn)

    class Stack(nn.Module):
        def __init__(self, hidden):
            super().__init__()
            self.hidden = hidden
            self.head = Affine()

        def forward(self, x):
            for layer in self.hidden:
                x = torch.relu(layer(x))
            return self.head(x)

    broken = Stack([Affine(), Affine()]).to(device, torch.float64)
    fixed = Stack(nn.ModuleList([Affine(), Affine()])).to(device, torch.float64)
    x = torch.ones(2, 3, dtype=torch.float64, device=device)
    failure = attempt(broken, x)
    return {"broken.head.weight": {DTYPE: broken.head.weight.dtype, DEVICE: broken.head.weight.device.type},
            f"{UNREGISTERED} broken.hidden[i].weight": [{DTYPE: layer.weight.dtype, DEVICE: layer.weight.device.type}
                                                      for layer in broken.hidden],
            "broken(x)": failure, "fixed(x)": fixed(x)}


@scenario(points=2, public=True, devices=True, misconceptions=CONVERTING)
def bare_tensor_attributes_stay(nn, device):
    """a bare tensor attribute is not state: .to() leaves it where it was"""
    model = affine_class(nn)()
    model.scale = torch.ones(3)
    model.extras = {"w": nn.Parameter(torch.ones(2))}
    model.to(device, torch.float64)
    return {f"{UNREGISTERED} model.scale": model.scale, f"{UNREGISTERED} model.extras['w']": model.extras["w"],
            "model.weight": {DTYPE: model.weight.dtype, DEVICE: model.weight.device.type}}


@scenario(points=1, devices=True, misconceptions=CONVERTING)
def empty_slots_stay_none(nn, device):
    """None parameters, buffers and children are skipped and stay None"""
    model = affine_class(nn)()
    model.register_parameter("scale", None)
    model.register_buffer("running", None)
    model.add_module("head", None)
    model.to(device, torch.float64).half().cpu()
    return {"model.scale": model.scale, "model.running": model.running, "model.head": model.head,
            "registered tensors": tensors(model)}


@scenario(points=2, devices=True, misconceptions=CONVERTING)
def tied_and_shared_stay_tied(nn, device):
    """a tied Parameter and a shared module are still one object after the move"""
    Affine = affine_class(nn)
    model = nn.Module()
    model.encoder, model.decoder = Affine(), Affine()
    model.decoder.weight = model.encoder.weight
    model.again = model.encoder
    model.to(device, torch.float64)
    return {"decoder.weight is encoder.weight": model.decoder.weight is model.encoder.weight,
            "again is encoder": model.again is model.encoder, "registered tensors": tensors(model)}


@scenario(points=2, devices=True, misconceptions=[*CONVERTING, apply_order])
def private_apply_converts_under_no_grad(nn, device):
    """_apply(fn) keeps parameters as leaves, converts gradients and buffers too, and returns self"""
    model = trained(net_class(nn)(), torch.ones(2, 3)).to(device)
    returned = model._apply(lambda t: t * 2 if t.is_floating_point() else t + 1)
    leaves = [[name, [t.is_leaf, t.grad_fn is None]] for name, t in registered(model)]
    return {"model._apply(fn) is model": returned is model, "[is_leaf, grad_fn is None]": leaves,
            "registered tensors": tensors(model)}


TREES = module_trees(containers=True)


@scenario(points=3, devices=True, specs=TREES, shown=tree_code, examples=30, misconceptions=CONVERTING)
def random_trees_to_float64(nn, device, spec):
    """on random module trees, to(device, float64) converts like torch and keeps every Parameter"""
    model = build_tree(nn, spec)
    before = parameters(model)
    model.to(device, torch.float64)
    return {SAME_PARAMETER: same_objects(model, before), "registered tensors": tensors(model)}


@scenario(points=2, devices=True, specs=TREES, shown=tree_code, examples=30, misconceptions=[*CONVERTING, apply_order])
def random_trees_apply(nn, device, spec):
    """on random module trees, _apply and apply visit what torch visits, as often"""
    model = build_tree(nn, spec).to(device)
    model._apply(lambda t: t + 1)
    seen = []
    model.apply(lambda m: seen.append(sorted(m._parameters) + sorted(m._modules)))
    return {SEEN: seen, "registered tensors": tensors(model)}
