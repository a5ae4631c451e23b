"""Fields: the names a course's scenarios observe under and its detectors read, defined once.

A scenario returns a dict whose keys read as the expression observed
(``"root.named_modules()"``), and a misconception's detector looks for the
same keys (``e.pairs(...)``). Written out twice, the two drift apart in
silence: a renamed key leaves the detector finding nothing, and the hint
is never shown. So each key a detector reads is a :class:`Field`, defined
once in the course (an exercise's ``views.py``, or ``shared/``) and used by
name on both sides::

    NAMED_MODULES = Field("root.named_modules()")           # views.py
    return {NAMED_MODULES: named_types(root.named_modules())}  # a scenario
    e.pairs(NAMED_MODULES)                                  # a detector

A Field is a str, so observations, their JSON and their feedback are as
before. :func:`fields_reached` reads code objects, never running them, to
find the Fields a function can reach: those it names and those of the
course's functions it calls. With it :func:`unobserved_fields` finds a
detector that reads a Field which none of the scenarios listing it
observes, and the loader refuses such a course when it loads
(:func:`modlab.grading.loader.load_course_scenarios`).

A detector may also match the expression a key shows
(``name.startswith("del m.")``): such a key is the Python expression the
scenario observed, and the pattern matches Python's syntax, not a name a
grader made up; a name a grader makes up is a Field.
"""
from __future__ import annotations

import sys
import types
from pathlib import Path


class Field(str):
    """A name an observation's field goes by, shared by name between scenarios and detectors."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Field({str.__repr__(self)})"


class UndeclaredField(TypeError):
    """A detector read a field by a plain string: a course's bug, never the submission's."""


def require_field(name) -> Field:
    """``name`` itself, once it is known to be a :class:`Field`.

    Raises:
        UndeclaredField: it is a plain string.
    """
    if not isinstance(name, Field):
        raise UndeclaredField(f"{name!r}: a detector reads fields by the Field the scenarios observe under "
                              "(defined once in the exercise's views.py), not by a string written out again")
    return name


def fields_reached(function, within: Path) -> set[Field]:
    """The Fields ``function`` can reach: named in its code, in its default
    arguments, or in the code of the functions and classes it names that are
    defined under ``within`` (the course's graders folder), transitively.

    Example::

        fields_reached(tied_weights_are_yielded_once.body, course.graders)   # {Field('names with ...'), ...}
    """
    root = str(Path(within).resolve())
    found: set[Field] = set()
    seen: set[int] = set()
    pending = [function]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        namespaces = [current.__globals__]
        for code in _codes(current.__code__):
            for name in code.co_names:
                for value in _named(name, namespaces):
                    if isinstance(value, types.ModuleType) and _inside(getattr(value, "__file__", None), root):
                        namespaces.append(vars(value))  # ``views.ALIASES``: its names are looked up there too
                    for item in _flattened(value):
                        if isinstance(item, Field):
                            found.add(item)
                        elif _course_function(item, root):
                            pending.append(item)
                        elif isinstance(item, type) and _inside(_module_file(item), root):
                            pending += [member for member in vars(item).values() if _course_function(member, root)]
        for default in (*(current.__defaults__ or ()), *(current.__kwdefaults__ or {}).values()):
            found.update(item for item in _flattened(default) if isinstance(item, Field))
    return found


def _codes(code: types.CodeType):
    """A code object and every code object nested in it (lambdas, comprehensions, inner functions and classes)."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _codes(constant)


def _named(name: str, namespaces: list[dict]):
    for namespace in namespaces:
        if name in namespace:
            yield namespace[name]


def _flattened(value):
    """A value, and the items of a container value (one level: the Fields a constant tuple holds)."""
    yield value
    if isinstance(value, (list, tuple, set, frozenset)):
        yield from value
    elif isinstance(value, dict):
        yield from value
        yield from value.values()


def _module_file(cls: type) -> str | None:
    return getattr(sys.modules.get(cls.__module__), "__file__", None)


def _course_function(value, root: str) -> bool:
    return isinstance(value, types.FunctionType) and _inside(value.__code__.co_filename, root)


def _inside(path, root: str) -> bool:
    return bool(path) and str(Path(path).resolve()).startswith(root + "/")


def unobserved_fields(scenarios, within: Path, on_every_exception=()) -> list[str]:
    """For each catalog entry the course's ``scenarios`` list, the Fields its detector reads
    that none of the scenarios listing it can observe (any scenario, for the entries tried on
    every exception): ``"misconception tied-twice reads 'x', which none ... observes (...)"``.

    A detector may read several alternatives (the calls of any scenario where a hook
    replaced a value): each must be observed somewhere, not all in one scenario.
    """
    listing: dict[str, tuple] = {entry.id: (entry, list(scenarios)) for entry in on_every_exception}
    for scenario in scenarios:
        for entry in scenario.misconceptions:
            listing.setdefault(entry.id, (entry, []))[1].append(scenario)
    problems = []
    for entry, listed_by in listing.values():
        observed = set().union(*(fields_reached(scenario.body, within) for scenario in listed_by))
        unread = sorted(fields_reached(entry.detector, within) - observed)
        if unread:
            names = ", ".join(s.name for s in listed_by[:6]) + (", ..." if len(listed_by) > 6 else "")
            problems.append(f"misconception {entry.id} reads {', '.join(map(repr, map(str, unread)))}, which none of "
                            f"the scenarios listing it observes ({names})")
    return problems
