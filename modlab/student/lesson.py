"""What a lesson notebook shows when a cell reaches code the student has not written yet.

A lesson's "try yours" cells run the student's own package. Before the
student writes it, a cell reaches a stub, which raises
``NotImplementedError("exercise 01: __new__")``, and a traceback through
torch would hide the one fact that matters. Loaded as an IPython extension
by the notebook's first code cell (``%load_ext modlab.student.lesson``), this
module shows such an error as the line ``modlab check`` prints for it::

    NotImplementedError: still the stub: fill in __new__ in mynn/parameter.py (exercise 01), ...

Any other exception keeps its usual traceback. The cells that run the
student's code carry the ``raises-exception`` tag (see
:mod:`modlab.instructor.notebooks`), so "Run All" goes on past them.

May import: :mod:`modlab.grading.explain` (the stub's explanation).
"""
from __future__ import annotations

from pathlib import Path

from modlab.grading.explain import Graded, explain_raised, stub_function

AFTER = "then restart the kernel and run this cell again (Python imports a module once)"


def load_ipython_extension(ipython) -> None:
    """IPython's hook for ``%load_ext modlab.student.lesson``: explain stubs' errors."""
    ipython.set_custom_exc((NotImplementedError,), _show)


def stub_explanation(error: BaseException, traceback) -> str:
    """The line shown for a stub's error, or ``""`` for any other exception.

    Args:
        error: the exception a cell raised.
        traceback: its traceback; the innermost frame is where it was raised.

    Example::

        stub_explanation(NotImplementedError("exercise 01: __new__"), tb)
        # 'NotImplementedError: still the stub: fill in __new__ in mynn/parameter.py (exercise 01), then ...'
    """
    raised = {"type": type(error).__name__, "message": str(error)}
    if stub_function(raised) is None:
        return ""
    while traceback is not None and traceback.tb_next is not None:
        traceback = traceback.tb_next
    if traceback is not None:
        raised["file"] = _shown(Path(traceback.tb_frame.f_code.co_filename))
    explanation = explain_raised(raised, Graded(exercise="", own=(), graft=False))
    return f"{raised['type']}: {explanation}, {AFTER}"


def _show(shell, etype, value, traceback, tb_offset=None) -> None:
    """IPython's custom handler: the explanation as the cell's error, or the usual traceback."""
    line = stub_explanation(value, traceback)
    if line:
        value._render_traceback_ = lambda: [line]  # IPython shows an exception's own rendering
    shell.showtraceback((etype, value, traceback), tb_offset=tb_offset)


def _shown(path: Path) -> str:
    """A file as the notebook's reader knows it: relative to the notebook's folder when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.name
