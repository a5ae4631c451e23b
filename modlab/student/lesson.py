"""What a lesson notebook shows when a cell reaches code the student has not written yet.

A lesson's "try yours" cells run the student's own package. Before the
student writes it, a cell reaches a stub, which raises
``NotImplementedError("exercise 10: forward")``, and a traceback through
torch would hide the one fact that matters. Loaded as an IPython extension
by the notebook's first code cell (``%load_ext modlab.student.lesson``), this
module shows such an error as the line ``modlab check`` prints for it::

    NotImplementedError: still the stub: fill in forward in mynn/losses.py (exercise 10), ...

Any other exception keeps its usual traceback. The cells that run the
student's code carry the ``raises-exception`` tag (see
:mod:`modlab.instructor.notebooks`), so "Run All" goes on past them.

In nbgrader's layout, each exercise is an assignment folder of its own
(``10_losses/``, ``11_optim/``), each holding the whole package, the
files of other exercises as stubs. Loading the extension first brings in
the student's own work of earlier exercises (:func:`bring_earlier_work`), so
the package a lesson runs is the student's as it stands.

May import: :mod:`modlab.grading.explain` (what the stub's error means) and
:mod:`modlab.formats.feedback` (its words).
"""
from __future__ import annotations

from pathlib import Path

from modlab.course import stub_of, stubbed_exercises
from modlab.formats.feedback import explanation_text
from modlab.grading.explain import Graded, explain_raised

AFTER = "then restart the kernel and run this cell again (Python imports a module once)"


def load_ipython_extension(ipython) -> None:
    """IPython's hook for ``%load_ext modlab.student.lesson``: bring in earlier work, explain stubs' errors."""
    for line in bring_earlier_work(Path.cwd()):
        print(line)
    ipython.set_custom_exc((NotImplementedError,), _show)


def bring_earlier_work(assignment: Path) -> list[str]:
    """Replace each stub file of ``assignment``'s package by the student's finished
    file from the assignment folder of its exercise, beside this one.

    The package is the folder of the assignment that holds stubs. A file is
    brought in only where this copy is still a stub of an earlier exercise and
    the student's own copy, in that exercise's folder
    (``../10_losses/mynn/losses.py``, or beside its notebook), holds no stub
    of it any more. Nothing else is touched, so work done here is kept.

    Returns:
        One line per file brought in, naming where it came from.

    Example::

        bring_earlier_work(Path("~/11_optim").expanduser())
        # ['mynn/losses.py: your work from ../10_losses/ (exercise 10)']
    """
    this = assignment.name.split("_")[0]
    package = _package_of(assignment) if this.isdigit() else None
    brought = []
    for stub in sorted((assignment / package).glob("*.py")) if package else []:
        exercise = _stub_of(stub)
        found = _finished(assignment.parent, exercise, package, stub.name) if exercise and exercise < this else None
        if found is not None:
            folder, own = found
            stub.write_text(own.read_text(encoding="utf-8"), encoding="utf-8")
            brought.append(f"{package}/{stub.name}: your work from ../{folder.name}/ (exercise {exercise})")
    return brought


def _package_of(assignment: Path) -> str | None:
    """The folder of ``assignment`` holding the package: the one whose modules hold stubs."""
    for folder in sorted(p for p in assignment.iterdir() if p.is_dir()):
        if any(_stub_of(path) for path in folder.glob("*.py")):
            return folder.name
    return None


def _stub_of(path: Path) -> str | None:
    """The exercise a file is the stub of (all its markers name it), or None."""
    marks = stubbed_exercises(path.read_text(encoding="utf-8", errors="replace"))
    return marks.pop() if len(marks) == 1 else None


def _finished(parent: Path, exercise: str, package: str, name: str) -> tuple[Path, Path] | None:
    """The folder of ``exercise`` and the student's copy of ``name`` in it, once it is no stub of it."""
    for folder in sorted(parent.glob(f"{exercise}_*")):
        for own in (folder / package / name, folder / name):
            if own.is_file() and exercise not in stubbed_exercises(own.read_text(encoding="utf-8", errors="replace")):
                return folder, own
    return None


def stub_explanation(error: BaseException, traceback) -> str:
    """The line shown for a stub's error, or ``""`` for any other exception.

    Args:
        error: the exception a cell raised.
        traceback: its traceback; the innermost frame is where it was raised.

    Example::

        stub_explanation(NotImplementedError("exercise 10: forward"), tb)
        # 'NotImplementedError: still the stub: fill in forward in mynn/losses.py (exercise 10), then ...'
    """
    raised = {"type": type(error).__name__, "message": str(error)}
    if stub_of(raised) is None:
        return ""
    while traceback is not None and traceback.tb_next is not None:
        traceback = traceback.tb_next
    if traceback is not None:
        raised["file"] = _shown(Path(traceback.tb_frame.f_code.co_filename))
    explanation = explanation_text(explain_raised(raised, Graded(exercise="", own=(), graft=False)))
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
