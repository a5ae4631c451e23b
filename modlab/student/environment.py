"""What a runner admin needs to know before grading: ``modlab env``."""
from __future__ import annotations

import platform
import time

import torch

from modlab import __version__
from modlab.course import Course
from modlab.engine import process_memory
from modlab.isolation.launcher import start_method


def describe(course: Course) -> list[tuple[str, str]]:
    """Versions, the worker start method, and CUDA as a grading worker sees it.

    CUDA is probed in a forked worker first, as grading does, so that this
    process stays free to fork; only then does the smoke check touch CUDA here.
    """
    facts = [
        ("modlab", __version__),
        ("python", platform.python_version()),
        ("torch", torch.__version__),
        ("torch built for CUDA", torch.version.cuda or "no (CPU build)"),
        ("worker start method", start_method()),
    ]
    cuda = process_memory().oracle(course).cuda
    facts.append(("CUDA available to workers", "yes" if cuda else "no"))
    if cuda:
        facts.append(("device", torch.cuda.get_device_name(0)))
        facts.append(("smoke check", cuda_round_trip()))
    return facts


def cuda_round_trip() -> str:
    """Move a small module to CUDA and back; compare its output with the CPU's."""
    started = time.monotonic()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    x = torch.randn(4, 8)
    on_cpu = model(x)
    on_gpu = model.cuda()(x.cuda()).cpu()
    back = model.cpu()(x)
    agrees = torch.allclose(on_cpu, on_gpu, atol=1e-4) and torch.equal(on_cpu, back)
    seconds = time.monotonic() - started
    return f"{'passed' if agrees else 'FAILED'}: Linear/ReLU model to CUDA and back in {seconds:.2f} s"
