"""Exercise 01: SGD's step. Each scenario builds an optimizer with ``optim`` (torch.optim, or
the graded package) over plain tensors, steps it, and observes the tensors."""
import torch
from hypothesis import strategies as st

from modlab.grading import attempt, scenario

from .misconceptions import weight_decay_ignored
from .views import DECAYED, PLAIN, trained

# torch.optim's first optimizer imports torch._dynamo (over a second of CPU): where the workers
# come from imports it once, keeping it out of every scenario's time limit.
WORKER_IMPORTS = ("torch._dynamo",)


@scenario(points=2, public=True, misconceptions=[weight_decay_ignored])
def one_step_moves_against_the_gradient(optim):
    """one step moves w by -lr * (grad + weight_decay * w)"""
    return {PLAIN: trained(optim, lr=0.1), DECAYED: trained(optim, lr=0.1, weight_decay=0.5),
            "w after a step, lr=0.1, maximize=True": trained(optim, lr=0.1, maximize=True)}


@scenario(points=1, public=True)
def invalid_settings_raise(optim):
    """a negative rate or decay, no tensors, or Nesterov without momentum raise ValueError"""
    w = torch.ones(1, requires_grad=True)
    return {"SGD([w], lr=-1)": attempt(optim.SGD, [w], lr=-1), "SGD([], lr=0.1)": attempt(optim.SGD, [], lr=0.1),
            "SGD([w], lr=0.1, weight_decay=-1)": attempt(optim.SGD, [w], lr=0.1, weight_decay=-1),
            "SGD([w], lr=0.1, nesterov=True)": attempt(optim.SGD, [w], lr=0.1, nesterov=True)}


@scenario(points=1)
def zero_grad_forgets_the_gradients(optim):
    """zero_grad() sets each gradient to None, zero_grad(set_to_none=False) to zeros"""
    w, v = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    optimizer = optim.SGD([w, v], lr=0.1)
    w.grad, v.grad = torch.ones(2), torch.ones(2)
    optimizer.zero_grad(set_to_none=False)
    zeroed = [w.grad, v.grad]
    optimizer.zero_grad()
    return {"grads after zero_grad(set_to_none=False)": zeroed, "grads after zero_grad()": [w.grad, v.grad]}


SETTINGS = st.fixed_dictionaries({"lr": st.sampled_from([0.01, 0.1, 0.5]), "weight_decay": st.sampled_from([0, 0.1, 1.0]),
                                  "maximize": st.booleans(), "steps": st.integers(1, 3)})


@scenario(points=2, specs=SETTINGS, examples=15, misconceptions=[weight_decay_ignored])
def any_settings_step_as_torch_does(optim, spec):
    """steps with any rate, decay and direction end where torch's do"""
    settings = dict(spec)
    steps = settings.pop("steps")
    return {"w after the steps": trained(optim, steps, **settings)}
