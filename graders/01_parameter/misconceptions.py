"""Misconceptions of exercise 01, Parameter. The scenarios observe fields named
after the expressions they evaluate (``p.requires_grad``)."""
from modlab.grading.catalog import misconception

from .views import (COPIES_ONE_OBJECT, COPY_CLASS, COPY_IS_P, COPY_REQUIRES_GRAD, COPY_SHARES_STORAGE, EMPTY, FLAGS,
                    KEYWORD_FALSE, LOADED_CLASS, LOADED_ONE_OBJECT, LOADED_REQUIRES_GRAD, P_CLASS, P_REQUIRES_GRAD,
                    P_SHAPE, POSITIONAL_FALSE, REPR_FROZEN, REPR_TRAINED, RESULT_TYPES, SHARES_STORAGE, UNDER_NO_GRAD)


def _is_parameter(e) -> bool:
    """The submission's Parameter(...) is a Parameter: a precondition of every
    entry that blames one particular method of the class."""
    return all(y == "Parameter" for _, y in e.pairs(P_CLASS))


def _holds_its_data(e) -> bool:
    """The submission's Parameter has its data's shape: one that dropped its data fails every
    check of a method for that one reason."""
    return all(t == y for t, y in e.pairs(P_SHAPE))


@misconception("new-returns-plain-tensor", "01", """
    Parameter.__new__ must return an instance of the class: torch.Tensor._make_subclass(cls, data,
    requires_grad) re-labels data's storage as a Parameter; returning data itself (or a tensor made from
    it) gives a plain Tensor that no Module will register""")
def new_returns_plain_tensor(e):
    """Requires: torch made a Parameter where the submission's Parameter(data) is a plain Tensor.

    Neighbour: `requires_grad_off_by_default` (01, variants.yaml) fails `is_a_tensor_that_requires_grad` too,
    without a plain Tensor: its Parameter(data) is a Parameter that does not require grad."""
    return any(t == "Parameter" and y == "Tensor" for t, y in e.pairs(P_CLASS))


@misconception("requires-grad-default", "01", """
    a Parameter requires grad unless told otherwise: requires_grad defaults to True, so that
    backward() fills p.grad for the optimizer""")
def requires_grad_default(e):
    """Requires: the submission's Parameter(data) is a Parameter, and without requires_grad= it does not
    require grad where torch's does.

    Neighbour: `new_returns_the_data` (01, variants.yaml) fails `is_a_tensor_that_requires_grad` too,
    without a Parameter that lacks requires_grad: its Parameter(data) is data itself, a plain Tensor
    that requires grad."""
    return _is_parameter(e) and any(t is True and y is False for t, y in e.pairs(P_REQUIRES_GRAD))


@misconception("parameter-copies-data", "01", """
    Parameter(data) wraps data's own storage: torch.Tensor._make_subclass(cls, data, requires_grad) makes
    no copy, so writing to data changes the Parameter; data.clone(), torch.tensor(data) or
    data.detach().clone() copy""")
def parameter_copies_data(e):
    """Requires: torch's Parameter shares data's storage, the submission's, a Parameter of data's shape,
    does not (one that dropped its data holds none of it to share).

    Neighbour: `operations_stay_parameters` (01, variants.yaml) fails `shares_storage_with_data` too,
    without a storage of its own: its Parameter shares data's, but p.detach() stays a Parameter
    (operations keep the class)."""
    return _holds_its_data(e) and any(t is True and y is False for t, y in e.pairs(SHARES_STORAGE))


@misconception("requires-grad-ignored", "01", """
    Parameter(data, requires_grad=False) must not require grad: pass requires_grad on to
    _make_subclass instead of always using True""")
def requires_grad_ignored(e):
    """Requires: Parameter(t, requires_grad=False) (or Parameter(t, False)) requires grad in the submission.

    Neighbour: `none_test_by_truthiness` (01, student_bugs.yaml) fails `requires_grad_false_is_kept` too,
    without a Parameter that requires grad: `if not data` raises for a tensor of two elements (its truth
    value is ambiguous)."""
    return any(t is False and y is True for t, y in
               e.pairs(KEYWORD_FALSE) + e.pairs(POSITIONAL_FALSE))


@misconception("no-grad-drops-requires-grad", "01", """
    requires_grad is set on the Parameter itself, so torch.no_grad() cannot switch it off:
    _make_subclass(cls, data, requires_grad) sets the flag directly, while a tensor made by an operation
    (data * 1, data.requires_grad_() inside no_grad) does not require grad there""")
def no_grad_drops_requires_grad(e):
    """Requires: a Parameter made under torch.no_grad() does not require grad in the submission, one made
    outside does (as in torch).

    Neighbour: `requires_grad_off_by_default` (01, variants.yaml) fails `requires_grad_survives_no_grad`
    too, without a Parameter made outside no_grad that requires grad: requires_grad defaults to False
    everywhere."""
    return not e.differing(P_REQUIRES_GRAD) and any(
        t is True and y is False for t, y in e.pairs(UNDER_NO_GRAD))


@misconception("default-data", "01", "Parameter() with no data holds an empty tensor: torch.empty(0)")
def default_data(e):
    """Requires: Parameter() is a tensor in the submission, not an empty 1-D one (a __new__ that returns
    nothing fails every Parameter, with data or without).

    Neighbour: `new_returns_the_data` (01, variants.yaml) fails `default_is_empty` too, without a tensor of
    another shape: Parameter() is torch.empty(0), but a plain Tensor."""
    return any(t.shape == (0,) and getattr(y, "shape", (0,)) != (0,) for t, y in e.pairs(EMPTY))


@misconception("operations-keep-parameter", "01", """
    operations on a Parameter give plain Tensors: a sum or a product of weights is not itself a weight.
    torch.nn.Parameter runs every torch function as on a plain tensor (__torch_function__ is
    torch._C._disabled_torch_function_impl), so only the Parameter you registered is a Parameter""")
def operations_keep_parameter(e):
    """Requires: torch's results of operations (or p.detach()) are plain Tensors where the submission's are
    Parameters.

    Neighbour: `requires_grad_off_by_default` (01, variants.yaml) fails `operations_return_plain_tensors`
    too, without a result that stays a Parameter: the results are plain Tensors that do not require
    grad, as the Parameter itself does not."""
    results = any(t == "Tensor" and y == "Parameter"
                  for kinds_t, kinds_y in e.pairs(RESULT_TYPES)
                  for t, y in zip(kinds_t.values(), kinds_y.values()))
    return results or e.here == ("Tensor", "Parameter") and e.difference.path[-1].value == "class"


@misconception("repr-prefix", "01", """
    repr(p) is 'Parameter containing:' on its own line, then the tensor's own repr
    (tensor([...], requires_grad=True)), printed as for a plain tensor""")
def repr_prefix(e):
    """Requires: the submission's Parameter (a Parameter of its data's shape, with torch's requires_grad)
    prints otherwise than torch's.

    Neighbour: `requires_grad_argument_ignored` (01, variants.yaml) fails `repr_says_parameter_containing`
    too, without torch's requires_grad: Parameter(t, requires_grad=False) requires grad, so its repr
    says so."""
    same_flags = all(t == y for t, y in e.pairs(FLAGS))
    return _is_parameter(e) and _holds_its_data(e) and same_flags and bool(e.differing(REPR_TRAINED)
                                                   or e.differing(REPR_FROZEN))


@misconception("deepcopy-not-a-copy", "01", """
    copy.deepcopy(p) must give a new Parameter over copied data with p's requires_grad, once per
    object: __deepcopy__(memo) builds type(self)(self.detach().clone(), self.requires_grad) and records
    it in memo[id(self)], so a Parameter shared within a model is copied once""")
def deepcopy_not_a_copy(e):
    """Requires: the submission's Parameter itself is right (class, shape, requires_grad), but its deep copy
    differs from torch's (class, identity, storage, requires_grad or sharing).

    Neighbour: `requires_grad_off_by_default` (01, variants.yaml) fails `deepcopy_is_a_new_parameter` too, without a
    right Parameter: Parameter(t) does not require grad, so its copy does not either."""
    copy_fields = (COPY_CLASS, COPY_IS_P, COPY_SHARES_STORAGE, COPY_REQUIRES_GRAD,
                   COPIES_ONE_OBJECT)
    parameter_right = _is_parameter(e) and _holds_its_data(e) and not e.differing(P_REQUIRES_GRAD)
    return parameter_right and any(e.differing(field) for field in copy_fields)


@misconception("pickle-loses-parameter", "01", """
    torch.save pickles through __reduce_ex__: return (a rebuild function, its arguments) that makes a
    Parameter again over the same data with the same requires_grad, as torch._utils._rebuild_parameter
    does; without it the loaded tensor is a plain Tensor or forgets requires_grad""")
def pickle_loses_parameter(e):
    """Requires: the submission's Parameter is right (class, requires_grad), but after torch.save and
    torch.load its class, requires_grad or sharing differ.

    Neighbour: `pickle_reduces_itself` (01, student_bugs.yaml) fails `survives_save_and_load` too, without a
    loaded copy to compare: saving raises, since its reduction pickles the Parameter itself, without end."""
    loaded_fields = (LOADED_CLASS, LOADED_REQUIRES_GRAD, LOADED_ONE_OBJECT)
    return _is_parameter(e) and not e.differing(P_REQUIRES_GRAD) and any(e.differing(f) for f in loaded_fields)
