"""Load and validate ``course.yaml``, the single source of truth of a course.

Every consumer (build, grading, nbgrader, release) reads the course through
:func:`load_course`, so a malformed file is rejected once, with one line that
names the offending key::

    course.yaml: exercises[2].points: expected a positive integer, got 'ten'

Imports nothing of modlab: every layer may read the course.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

EXERCISE_ID = re.compile(r"^\d\d$")
SLUG = re.compile(r"^[a-z][a-z0-9_-]*$")
PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
# What a stub raises in place of the code a student writes: ``exercise 03: named_modules``.
STUB_MESSAGE = re.compile(r"exercise (\d\d): (.+)")
STUB_RAISE = re.compile(r'NotImplementedError\("exercise (\d\d): ')


class CourseError(ValueError):
    """``course.yaml`` is missing, unreadable or malformed."""


@dataclass(frozen=True)
class Limits:
    """Limits on the worker process that runs one submission's code."""

    scenario_timeout_s: float = 10.0
    submission_timeout_s: float = 300.0
    memory_mib: int = 2048
    max_processes: int = 64


@dataclass(frozen=True)
class Oracle:
    """What a course is graded against: the module torch's world hands its scenarios,
    and the classes of it whose methods a submission may not call (tripwires).

    Attributes:
        module: importable by name (``torch.nn``, ``torch.optim``); a submission
            building on it instead of on its own code is caught as tamper.
        watch: classes of ``module`` whose every method notes that it was called.
    """

    module: str = "torch.nn"
    watch: tuple[str, ...] = ("Module", "Parameter")

    def spec(self) -> list:
        """As plain data, for the processes that load it."""
        return [self.module, list(self.watch)]


@dataclass(frozen=True)
class Exercise:
    id: str
    slug: str
    title: str
    points: float
    files: tuple[str, ...]
    due: dt.datetime | None = None
    # Graded with the submission's whole package instead of its files grafted
    # into the reference: for an exercise where the earlier ones meet (the capstone).
    cumulative: bool = False

    @property
    def name(self) -> str:
        """``10_losses``: the stem used for notebooks, graders and assignments."""
        return f"{self.id}_{self.slug}"


@dataclass(frozen=True)
class Course:
    id: str
    title: str
    package: str
    exercises: tuple[Exercise, ...]
    limits: Limits = field(default_factory=Limits)
    exchange: str | None = None
    root: Path = Path(".")
    oracle: Oracle = field(default_factory=Oracle)
    # What the course is about, in a sentence or two a student reads first (the kit's README).
    summary: str = ""

    def exercise(self, exercise_id: str) -> Exercise:
        """The exercise with this id ("3" and "03" both work).

        Raises:
            CourseError: no such exercise; the message lists the known ids.
        """
        wanted = exercise_id.zfill(2)
        for exercise in self.exercises:
            if exercise.id == wanted:
                return exercise
        known = ", ".join(e.id for e in self.exercises)
        raise CourseError(f"unknown exercise {exercise_id!r}; known exercises: {known}")

    def files_read(self, exercise: Exercise, present: Iterable[str] = (), graft: bool = True) -> tuple[str, ...]:
        """The package files that grading ``exercise`` reads from a submission, and so
        what a submission of it holds.

        Grafted (the default), the exercise's own files: the rest of the package
        is the reference's. A cumulative exercise, or a package graded whole (a
        student's local check), reads every module the package holds as well.

        Args:
            present: the module files the submitted package holds (``losses.py``, ...).

        Example::

            course.files_read(course.exercise("10"))   # ('losses.py',)
        """
        if graft and not exercise.cumulative:
            return exercise.files
        return tuple(sorted({*exercise.files, *present}))

    def exercise_of_file(self, relpath: str) -> Exercise | None:
        """The exercise a package file (``losses.py``) belongs to, if any."""
        for exercise in self.exercises:
            if relpath in exercise.files:
                return exercise
        return None

    @property
    def solutions(self) -> Path:
        return self.root / "solutions" / self.package

    @property
    def graders(self) -> Path:
        """The course's grading content: a folder per exercise, and ``shared/``."""
        return self.root / "graders"

    def grading_folder(self, exercise: Exercise) -> Path:
        """Everything that grades ``exercise``: ``graders/NN_slug/`` (its scenarios, the models
        and views they share, its misconception catalog)."""
        return self.graders / exercise.name

    def grader_file(self, exercise: Exercise) -> Path:
        """The scenarios of ``exercise``: ``graders/NN_slug/test_NN_slug.py``, a pytest file."""
        return self.grading_folder(exercise) / f"test_{exercise.name}.py"

    def grader_files(self, ids: Iterable[str] = ()) -> list[str]:
        """The grader files that exist, in the exercises' order, of the exercises ``ids``
        (default: all of them): what workers load."""
        return [str(self.grader_file(e)) for e in self.exercises
                if (not ids or e.id in ids) and self.grader_file(e).is_file()]


def stub_statement(exercise_id: str, function: str) -> str:
    """The line a stub holds in place of a solution region: ``raise NotImplementedError("exercise 03: walk")``."""
    return f'raise NotImplementedError("exercise {exercise_id}: {function}")'


def stub_of(raised: dict) -> tuple[str, str] | None:
    """``(exercise id, function)`` if an exception record (``type``, ``message``) is a stub's, else None."""
    if raised.get("type") != "NotImplementedError":
        return None
    found = STUB_MESSAGE.fullmatch(raised.get("message", ""))
    return (found.group(1), found.group(2)) if found else None


def stubbed_exercises(source: str) -> set[str]:
    """The exercises whose stubs a module's source still holds."""
    return set(STUB_RAISE.findall(source))


def find_course_file(start: Path | None = None) -> Path:
    """The nearest ``course.yaml`` at or above ``start`` (default: the cwd)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "course.yaml"
        if candidate.is_file():
            return candidate
    raise CourseError(f"no course.yaml in {here} or any folder above it")


def load_course(path: Path | str | None = None) -> Course:
    """Read and validate a course file.

    Args:
        path: the ``course.yaml`` to read; by default the nearest one above the cwd.

    Returns:
        The validated :class:`Course`.

    Raises:
        CourseError: with one line naming the file and the offending key.
    """
    path = Path(path) if path else find_course_file()
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CourseError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise CourseError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    try:
        return _parse_course(raw, path.parent.resolve())
    except CourseError as exc:
        raise CourseError(f"{path.name}: {exc}") from None


def _parse_course(raw, root: Path) -> Course:
    top = _mapping(raw, "top level")
    about = _mapping(top.get("course"), "course")
    exercises = tuple(
        _parse_exercise(item, f"exercises[{index}]")
        for index, item in enumerate(_list(top.get("exercises"), "exercises"))
    )
    if not exercises:
        raise CourseError("exercises: the course has no exercises")
    _unique([e.id for e in exercises], "id")
    _unique([f for e in exercises for f in e.files], "files")
    exchange = top.get("exchange")
    if exchange is not None:
        _string(exchange, "exchange")
    return Course(
        id=_string(about.get("id"), "course.id", SLUG),
        title=_string(about.get("title"), "course.title"),
        package=_string(about.get("package"), "course.package", PACKAGE),
        exercises=exercises,
        limits=_parse_limits(top.get("limits", {})),
        exchange=exchange,
        root=root,
        oracle=_parse_oracle(top.get("oracle")),
        summary=" ".join(_string(about["summary"], "course.summary").split()) if "summary" in about else "",
    )


def _parse_exercise(raw, where: str) -> Exercise:
    item = _mapping(raw, where)
    points = item.get("points")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points <= 0:
        raise CourseError(f"{where}.points: expected a positive number, got {points!r}")
    files = tuple(_string(f, f"{where}.files[{i}]") for i, f in enumerate(_list(item.get("files"), f"{where}.files")))
    for index, name in enumerate(files):
        if not name.endswith(".py") or "/" in name or name.startswith("_"):
            raise CourseError(f"{where}.files[{index}]: expected a module file like 'losses.py', got {name!r}")
    if not files:
        raise CourseError(f"{where}.files: an exercise needs at least one student file")
    return Exercise(
        id=_string(str(item.get("id")) if isinstance(item.get("id"), int) else item.get("id"), f"{where}.id", EXERCISE_ID),
        slug=_string(item.get("slug"), f"{where}.slug", SLUG),
        title=_string(item.get("title"), f"{where}.title"),
        points=points,
        files=files,
        due=_parse_due(item.get("due"), f"{where}.due"),
        cumulative=_flag(item.get("cumulative", False), f"{where}.cumulative"),
    )


def _parse_oracle(raw) -> Oracle:
    """``oracle:``: absent (torch.nn, watching Module and Parameter), a module name
    (nothing watched), or ``{module: ..., watch: [...]}``."""
    if raw is None:
        return Oracle()
    if isinstance(raw, str):
        return Oracle(_string(raw, "oracle", DOTTED), ())
    given = _mapping(raw, "oracle")
    unknown = sorted(set(given) - {"module", "watch"})
    if unknown:
        raise CourseError(f"oracle.{unknown[0]}: unknown key; known: module, watch")
    watch = tuple(_string(name, f"oracle.watch[{i}]", PACKAGE)
                  for i, name in enumerate(_list(given.get("watch", []), "oracle.watch")))
    return Oracle(_string(given.get("module"), "oracle.module", DOTTED), watch)


def _parse_limits(raw) -> Limits:
    given = _mapping(raw, "limits")
    defaults = Limits()
    values = {}
    for key, value in given.items():
        if not hasattr(defaults, key):
            raise CourseError(f"limits.{key}: unknown limit; known: {', '.join(Limits.__dataclass_fields__)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise CourseError(f"limits.{key}: expected a positive number, got {value!r}")
        values[key] = type(getattr(defaults, key))(value)
    return Limits(**values)


def _parse_due(raw, where: str) -> dt.datetime | None:
    if raw is None:
        return None
    if isinstance(raw, dt.datetime):
        due = raw
    elif isinstance(raw, dt.date):
        due = dt.datetime(raw.year, raw.month, raw.day, 23, 59, 59)
    else:
        try:
            due = dt.datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
        except ValueError:
            raise CourseError(f"{where}: expected an ISO date like 2027-01-15T23:59:00Z, got {raw!r}") from None
    return due if due.tzinfo else due.replace(tzinfo=dt.timezone.utc)


def _mapping(raw, where: str) -> dict:
    return _expect(raw, dict, where, "a mapping")


def _list(raw, where: str) -> list:
    return _expect(raw, list, where, "a list")


def _flag(raw, where: str) -> bool:
    return _expect(raw, bool, where, "true or false")


def _expect(raw, kind: type, where: str, description: str):
    if not isinstance(raw, kind):
        raise CourseError(f"{where}: expected {description}, got {_kind(raw)}")
    return raw


def _string(raw, where: str, pattern: re.Pattern | None = None) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise CourseError(f"{where}: expected a non-empty string, got {_kind(raw)}")
    if pattern and not pattern.match(raw):
        raise CourseError(f"{where}: {raw!r} does not match {pattern.pattern}")
    return raw


def _unique(values: list[str], key: str) -> None:
    seen = set()
    for value in values:
        if value in seen:
            raise CourseError(f"exercises: {key} {value!r} appears twice")
        seen.add(value)


def _kind(raw) -> str:
    return "nothing" if raw is None else f"{type(raw).__name__} {raw!r}"[:60]
