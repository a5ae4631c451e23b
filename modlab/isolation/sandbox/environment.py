"""The worker's environment: only the kept variables, its own directory, no inherited descriptors."""
from __future__ import annotations

import os
try:
    import resource
except ImportError:  # Windows: no rlimits there; its workers are spawned and run unconfined
    resource = None
import sys
import tempfile

# Variables a worker (and the zygote it is forked from) may see; everything
# else (tokens, CI settings, grading-mode switches) is left behind.
KEPT_ENVIRONMENT = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONHASHSEED", "LD_LIBRARY_PATH",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
    "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
)


# Prefixes of the variables that configure the interpreter and what it loads (torch,
# Hypothesis): a process that loads torch before it reads its work starts with them.
LOADING = ("PYTHON", "TORCH", "CUDA", "OMP_", "MKL_", "HYPOTHESIS")


def clean_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The kept variables of this process's environment, plus ``extra``."""
    kept = {key: value for key, value in os.environ.items() if key in KEPT_ENVIRONMENT}
    return {**kept, **(extra or {})}


def loading_environment(settings: tuple[str, ...] = ()) -> dict[str, str]:
    """The environment of a process that forks a zygote before it reads its work (a check
    server, a relaunched grading command): the kept variables, those with a ``LOADING``
    prefix and the named ``settings``, never a credential. The zygote keeps its memory."""
    return clean_environment({key: value for key, value in os.environ.items()
                              if key.startswith(LOADING) or key in settings})


def quiet_descriptors(keep_fd: int, streams: tuple[int, ...] = (0, 1, 2)) -> None:
    """``streams`` (stdin, stdout, stderr) on /dev/null; every other inherited
    descriptor but ``keep_fd`` closed.

    What the submission prints goes nowhere: fake results printed to stdout or
    stderr never reach the grader, which reads only the connection. (A forked
    zygote keeps its stderr, as a fresh one does.)
    """
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in streams:
        os.dup2(quiet, fd)
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, _max_fd())


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 65536


def scrub_environment(workdir: str) -> None:
    for key in [k for k in os.environ if k not in KEPT_ENVIRONMENT]:
        del os.environ[key]
    for key in ("HOME", "TMPDIR"):
        os.environ[key] = workdir
    tempfile.tempdir = workdir
    sys.argv[:] = [""]
    sys.dont_write_bytecode = True
    os.chdir(workdir)

