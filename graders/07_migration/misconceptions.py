"""Misconceptions of exercise 07, device and dtype migration. Scenarios show
every registered tensor by name as ``{"class", "requires_grad", "value",
"grad"}`` (or ``{"dtype", "device"}``), whether each Parameter is still the
same object, and mark tensors no one registered with ``unregistered:``."""
from __future__ import annotations

from modlab.grading.catalog import misconception
from modlab.grading.evidence import TensorView, named, raised

from .views import CLASSES_SEEN, DEVICE, DTYPE, GRAD, SAME_PARAMETER, SEEN, UNREGISTERED, VALUE

INTEGER = ("int8", "int16", "int32", "int64", "uint8", "bool")


def _is_integer(dtype: str) -> bool:
    return dtype.removeprefix("torch.") in INTEGER


def _entries(e):
    """``(torch, yours)`` per-tensor entries: the tensor's value and gradient, or its dtype and device."""
    return [(_entry(t), _entry(y, t)) for t, y in e.dicts_holding(VALUE, GRAD) + e.dicts_holding(DTYPE, DEVICE)]


def _views(e):
    """The entries of each view of the model's registered tensors (a list of ``[name, tensor]``), view by view."""
    views = []
    for t, y in e.pairs_where(lambda name, value: isinstance(value, (list, tuple)) and any(
            isinstance(item, dict) for item in named(value).values())):
        yours = named(y)
        views.append([(_entry(view), _entry(yours[name], view)) for name, view in named(t).items()
                      if isinstance(view, dict) and isinstance(yours.get(name), dict) and (VALUE in view or DTYPE in view)])
    return views


def _entry(view: dict, form: dict | None = None) -> dict:
    """A tensor's view as ``{dtype, device, grad}``, read in the form of ``form`` (torch's view of it)."""
    if VALUE in (form or view):
        return {DTYPE: _dtype(view.get(VALUE)), DEVICE: _device(view.get(VALUE)), GRAD: view.get(GRAD)}
    return {DTYPE: str(view.get(DTYPE)).removeprefix("torch."), DEVICE: view.get(DEVICE), GRAD: None}


def _dtype(value) -> str:
    return value.dtype if isinstance(value, TensorView) else ""


def _device(value) -> str:
    return value.device if isinstance(value, TensorView) else ""


@misconception("new-parameters-on-move", "07", """
    _apply must keep each Parameter object and replace its data (param.data = fn(param)): a new Parameter
    leaves an optimizer built before .to() holding tensors the model no longer uses""")
def new_parameters_on_move(e):
    """Requires: after the move, a Parameter is the same object in torch and a new one in the submission.

    Neighbour: `integer_buffers_cast` (07, variants.yaml) fails `to_keeps_parameter_identity[cpu]` too, without a
    new Parameter object: it keeps every Parameter and casts the integer buffers."""
    return any(t is True and y is False for seen_t, seen_y in e.pairs(SAME_PARAMETER)
               for t, y in zip(seen_t, seen_y))


@misconception("integer-buffers-cast", "07", """
    only floating-point and complex tensors take the new dtype: integer and bool buffers (such as
    num_batches_tracked) keep theirs; only .type() casts every tensor""")
def integer_buffers_cast(e):
    """Requires: torch kept an integer or bool tensor's dtype where the submission made it floating.

    Neighbour: `half_is_bfloat16` (07, student_bugs.yaml) fails `integer_buffers_keep_their_dtype[cpu]` too,
    without an integer tensor made floating: half() casts the floating tensors to bfloat16."""
    return any(_is_integer(t[DTYPE]) and y[DTYPE] and not _is_integer(y[DTYPE]) for t, y in _entries(e))


@misconception("grads-left-behind", "07", """
    a gradient moves with its parameter: _apply converts param.grad with the same fn, or the next optimizer
    step mixes dtypes or devices""")
def grads_left_behind(e):
    """Requires: a parameter's value has torch's dtype and device, its gradient does not.

    Neighbour: `half_is_bfloat16` (07, student_bugs.yaml) fails `grads_move_with_parameters[cpu]` too, without a
    value of torch's dtype beside the gradient: half() casts values and gradients alike, to bfloat16."""
    for t, y in _entries(e):
        grad_t, grad_y = t[GRAD], y[GRAD]
        if t[DTYPE] == y[DTYPE] and t[DEVICE] == y[DEVICE] and isinstance(grad_t, TensorView) \
                and isinstance(grad_y, TensorView) and (grad_t.dtype, grad_t.device) != (grad_y.dtype, grad_y.device):
            return True
    return False


@misconception("tensors-not-converted", "07", """
    to(), cuda() and cpu() must convert every registered tensor, on every device: parameters (their .data),
    gradients and buffers, in all the forms torch accepts (device, dtype, both, a tensor, keywords)""")
def tensors_not_converted(e):
    """Requires: in one view of the model's registered tensors, a floating tensor is on another device than
    torch's, or has another dtype than torch's while another floating tensor of the same view has, in the
    submission, the dtype torch gave it (the conversion reached some tensors and missed this one).

    Neighbour: `double_casts_to_float32` (07, student_bugs.yaml) fails `integer_buffers_keep_their_dtype[cpu]`
    too, without a tensor the conversion missed: double() converts every floating tensor, to float32."""
    for view in _views(e):
        floating = [(t, y) for t, y in view if t[DTYPE] and y[DTYPE] and not _is_integer(t[DTYPE])
                    and not _is_integer(y[DTYPE])]
        reached = {y[DTYPE] for _, y in floating}
        if any(t[DEVICE] != y[DEVICE] or t[DTYPE] != y[DTYPE] and t[DTYPE] in reached for t, y in floating):
            return True
    return False


@misconception("unregistered-tensors-moved", "07", """
    .to() converts registered tensors only: a bare tensor attribute, a Parameter in a plain dict or a layer in
    a plain list is not part of the model and stays where it was (walk the registers, not __dict__)""")
def unregistered_tensors_moved(e):
    """Requires: a tensor the scenario left unregistered kept its dtype and device in torch, not in the
    submission.

    Neighbour: `apply_drops_converted_parameters` (07, variants.yaml) fails `bare_tensor_attributes_stay[cpu]` too,
    without an unregistered tensor converted: _apply drops fn's result, so the registered weight stays float32."""
    for t, y in e.pairs_where(lambda name, value: name.startswith(UNREGISTERED)):
        items_t, items_y = (t, y) if isinstance(t, list) else ([t], [y])
        for a, b in zip(items_t, items_y if isinstance(items_y, list) else [items_y]):
            if _dtype_of(a) and _dtype_of(b) and _dtype_of(a) != _dtype_of(b):
                return True
    return False


def _dtype_of(value) -> str:
    if isinstance(value, TensorView):
        return value.dtype
    if isinstance(value, dict):
        return str(value.get(DTYPE, "")).removeprefix("torch.")
    return ""


@misconception("integer-dtype-accepted", "07", """
    Module.to() accepts only floating-point or complex dtypes and raises TypeError for any other, before it
    converts anything""")
def integer_dtype_accepted(e):
    """Requires: torch refused an integer or bool dtype with TypeError; the submission raised no TypeError,
    nor a NameError (a to() whose own code cannot run fails before it reads any dtype).

    Neighbour: `to_refuses_complex_dtypes` (07, variants.yaml) fails `to_with_an_integer_dtype_raises[cpu]` too,
    without an integer dtype accepted: it refuses every dtype that is not floating point, complex64 too."""
    return any(raised(t, "TypeError") and not raised(y, "TypeError", "NameError", "UnboundLocalError")
               for t, y in e.pairs_where(lambda name, value: name.startswith("model.to(")))


@misconception("type-keeps-integers", "07", """
    .type(dtype) casts every tensor, integer buffers included (unlike .to(), .float() or .double()): it is
    _apply(lambda t: t.type(dtype))""")
def type_keeps_integers(e):
    """Requires: after .type(), torch made an integer buffer floating where the submission kept it an integer,
    and every tensor the submission made floating has torch's dtype (the cast reached the floating ones).

    Neighbour: `apply_skips_buffers` (07, student_bugs.yaml) fails `type_casts_every_tensor[cpu]` too, without
    the floating buffers cast: _apply converts no buffer at all, integer or floating."""
    for t, y in e.pairs_where(lambda name, value: ".type(" in name):
        views = [(a, b) for a, b in zip(named(t).values(), named(y).values()) if isinstance(a, dict) and isinstance(b, dict)]
        dtypes = [(_dtype(a.get(VALUE)), _dtype(b.get(VALUE))) for a, b in views]
        if any(not _is_integer(want) and _is_integer(got) for want, got in dtypes) \
                and all(want == got for want, got in dtypes if got and not _is_integer(got)):
            return True
    return False


@misconception("apply-order", "07", """
    apply(fn) and _apply(fn) recurse into children() first (each distinct child once), then handle the module
    itself, and return self""")
def apply_order(e):
    """Requires: fn saw torch's modules in another order.

    Neighbour: `to_returns_nothing` (07, variants.yaml) fails `apply_visits_children_first[cpu]` too, without another
    order: to() returns None, so model.to(device).apply(fn) raises before fn sees a module."""
    for t, y in e.pairs(CLASSES_SEEN) + e.pairs(SEEN):
        if isinstance(t, list) and isinstance(y, list) and t != y and sorted(map(str, t)) == sorted(map(str, y)):
            return True
    return False
