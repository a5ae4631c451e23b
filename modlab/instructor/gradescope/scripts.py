"""The two scripts Gradescope runs: ``setup.sh`` once, when it builds the autograder's
image, and ``run_autograder`` for every submission.

``setup.sh`` installs the Python the course grades with (from Ubuntu's packages
where the image lacks it) and, in a virtual environment, exactly the versions of
``requirements.txt``, which ``modlab gradescope build`` writes from the course's
``constraints.txt`` (shipped too, so that any dependency of theirs it pins is
pinned there as well): torch as PyTorch's CPU build, wheels only.
``run_autograder`` grades ``/autograder/submission`` with the zip's own ``modlab``.

Both read two variables, so that they can be tried outside Gradescope (the
project's tests do): ``AUTOGRADER_ROOT`` (default ``/autograder``) and
``MODLAB_VENV`` (default ``/autograder/venv``). Where the virtual environment
already exists, ``setup.sh`` installs into it; where the Python is already
there, it asks nothing of apt.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from modlab.formats.gradescope import AFTER_DUE_DATE, VISIBLE, Visibility
from modlab.instructor.student_readme import CPU_INDEX

VENV = "/autograder/venv"
THIS_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


@dataclass(frozen=True)
class Settings:
    """What an autograder zip grades, and how.

    Attributes:
        exercises: the exercise ids graded, in course order; empty for the whole course.
        visibility: when students see public and hidden checks.
        python: the ``X.Y`` Python version installed on Gradescope (default: this one).
    """

    exercises: tuple[str, ...] = ()
    visibility: Visibility = Visibility(public=VISIBLE, hidden=AFTER_DUE_DATE)
    python: str = THIS_PYTHON

    def __post_init__(self):
        if not re.fullmatch(r"3\.\d{1,2}", self.python):  # it goes into setup.sh: nothing but a version
            raise ValueError(f"Python version {self.python!r}: expected 3.X, e.g. {THIS_PYTHON}")


def setup_sh(settings: Settings) -> str:
    """``setup.sh``: the Python, a virtual environment, and the pinned packages of ``requirements.txt``.

    Example::

        setup_sh(Settings(python="3.11"))   # '#!/usr/bin/env bash\\n# Gradescope runs this once ...'
    """
    python = f"python{settings.python}"
    return f"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
# Written by `modlab gradescope build`: it installs Python {settings.python} and, in a virtual
# environment, the exact versions of requirements.txt (from the course's constraints.txt,
# which also pins whatever else of theirs it names), torch as PyTorch's CPU build, wheels only.
set -euo pipefail
cd "$(dirname "$0")"
VENV="${{MODLAB_VENV:-{VENV}}}"

if ! {python} -c "import ensurepip, venv" 2> /dev/null; then
    apt-get update
    apt-get install -y --no-install-recommends {python} {python}-venv
fi
if [ ! -x "$VENV/bin/python" ]; then
    {python} -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --no-cache-dir --only-binary=:all: \\
    --extra-index-url {CPU_INDEX} -r requirements.txt -c constraints.txt

# The reference and the graders are the grading process's (root's) alone: a submission's code,
# run as a user of its own, cannot read them even where the kernel has no Landlock.
chmod -R go-rwx solutions graders
"""


def run_autograder(settings: Settings) -> str:
    """``run_autograder``: ``modlab gradescope run`` with the zip's settings, by the zip's own ``modlab``.

    Example::

        run_autograder(Settings(exercises=("10",)))   # '... --exercise 10 --public-checks visible ...'
    """
    options = [f"--exercise {exercise}" for exercise in settings.exercises]
    options += [f"--public-checks {settings.visibility.public}", f"--hidden-checks {settings.visibility.hidden}"]
    return f"""#!/usr/bin/env bash
# Gradescope runs this for every submission. Written by `modlab gradescope build`:
# `modlab gradescope run` grades /autograder/submission with the course's graders, each
# exercise in its own sandboxed worker, and writes /autograder/results/results.json.
# (The zip's `python -m modlab` is that command alone.)
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
cd "$ROOT/source"
exec "${{MODLAB_VENV:-{VENV}}}/bin/python" -m modlab --root "$ROOT" {" ".join(options)}
"""
