"""The misconception catalog: each entry is a claim and the evidence that backs it.

An entry has an id (``tied-twice``), the text a student reads, the exercise
that teaches it, and a **detector**: a function of the failed check's
:class:`~modlab.grading.evidence.Evidence` that says whether this failure
shows the misconception. A scenario lists the misconceptions worth trying
(``@scenario(misconceptions=["tied-twice"])``); a hint is shown only when its
detector fires, so a wrong hint needs a wrong detector, and every detector
has a labelled buggy submission that must fire it and neighbours that must
not (``tests/buggy/``)::

    @misconception("bare-tensor", "02", "a bare tensor where a Parameter was meant: ...")
    def bare_tensor(e):
        \"\"\"torch registered a Parameter where the submission holds a plain Tensor.\"\"\"
        return any(t == "Parameter" and y == "Tensor" for t, y in kinds(e))

Entries live in one module per exercise (``ex03_walk.py``); the few that more
than one exercise grades live in ``shared.py``. ``docs/misconceptions.md``
is generated from this catalog and the scenarios that use it.
"""
from .catalog import CATALOG, Misconception, detect, misconception, unknown
from . import shared, ex01_parameter, ex02_registration, ex03_walk, ex04_calling  # noqa: F401  fill CATALOG
from . import ex05_containers, ex06_state, ex07_migration, ex08_layers, ex09_capstone  # noqa: F401

__all__ = ["CATALOG", "Misconception", "detect", "misconception", "unknown"]
