"""Exercise 02: momentum. Two steps of SGD with momentum, and the buffer it keeps."""
from hypothesis import strategies as st

from modlab.grading import scenario

from .misconceptions import momentum_buffer_not_kept
from .views import two_steps

# torch.optim's first optimizer imports torch._dynamo (over a second of CPU): where the workers
# come from imports it once, keeping it out of every scenario's time limit.
WORKER_IMPORTS = ("torch._dynamo",)


@scenario(points=2, public=True, misconceptions=[momentum_buffer_not_kept])
def momentum_keeps_a_running_buffer(optim):
    """with momentum=0.9 the buffer is 0.9 * the first gradient + the second, and steers both steps"""
    return two_steps(optim, momentum=0.9)


@scenario(points=1, public=True, misconceptions=[momentum_buffer_not_kept])
def nesterov_looks_ahead(optim):
    """Nesterov's step is the gradient plus momentum times the buffer"""
    return two_steps(optim, momentum=0.9, nesterov=True)


SETTINGS = st.fixed_dictionaries({"momentum": st.sampled_from([0.5, 0.9]), "dampening": st.sampled_from([0, 0.1, 0.5])})


@scenario(points=1, specs=SETTINGS, examples=6, misconceptions=[momentum_buffer_not_kept])
def dampening_scales_the_new_gradient(optim, spec):
    """with dampening, the buffer takes (1 - dampening) of each new gradient"""
    return two_steps(optim, **spec)
