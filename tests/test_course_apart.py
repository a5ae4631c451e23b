"""The course is content, modlab the engine: nothing in modlab/ names an exercise of a course.

Every exercise of every course here (the project's own and the second course in
``tests/courses/``) is looked for in each of modlab's files:

- its name (``03_walk``) and its short name (``ex03``), anywhere, docstrings included;
- each student file (``walk.py``), anywhere;
- its slug where a slug names the exercise: as a folder of a path (``graders/walk/``);
  a slug alone is an ordinary word (``state``, ``walk``) that modlab may well use;
- its id as a string in the code (``"03"``), and the course's package (``"mynn"``) in
  any string or comment that is not a docstring, where an example may name it.

Examples in modlab's own docs use exercises no course has (``10_losses``, ``losses.py``).
"""
import io
import re
import tokenize
from pathlib import Path

import pytest

from modlab.course import load_course

from conftest import ROOT

COURSES = [ROOT / "course.yaml", *sorted((ROOT / "tests" / "courses").glob("*/course.yaml"))]
MODLAB = sorted(p for p in (ROOT / "modlab").rglob("*.py") if "__pycache__" not in p.parts)


def words(course) -> dict[str, str]:
    """What names one exercise of ``course``, and how it is looked for: ``{word: how}``."""
    found = {}
    for exercise in course.exercises:
        found[exercise.name] = "text"
        found[f"ex{exercise.id}"] = "text"
        found[f"/{exercise.slug}/"] = "path"
        found[exercise.id] = "string"
        for name in exercise.files:
            found[name] = "text"
    found[course.package] = "code"
    return found


def hits(path: Path, looked_for: dict[str, str]) -> list[str]:
    """Where ``path`` names what ``looked_for`` holds: ``"file:line word"``."""
    text = path.read_text(encoding="utf-8")
    found = []
    for word, how in looked_for.items():
        if how == "text":
            found += [(text.count("\n", 0, m.start()) + 1, word) for m in re.finditer(rf"(?<![\w.]){re.escape(word)}\b", text)]
        elif how == "path":
            found += [(text.count("\n", 0, m.start()) + 1, word) for m in re.finditer(re.escape(word), text)]
    strings, comments = _strings_and_comments(text)
    for line, value in strings:
        found += [(line, word) for word, how in looked_for.items() if how in ("string", "code") and value == word]
    for line, value in comments:
        found += [(line, word) for word, how in looked_for.items() if how == "code" and re.search(rf"\b{word}\b", value)]
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return [f"{shown}:{line} {word}" for line, word in sorted(set(found))]


def _strings_and_comments(text: str):
    """The string literals that are not docstrings, and the comments, with their lines."""
    strings, comments, previous = [], [], None
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            comments.append((token.start[0], token.string))
        elif token.type == tokenize.STRING:
            docstring = previous is None or previous.type in (tokenize.INDENT, tokenize.NEWLINE, tokenize.DEDENT)
            if not docstring:
                strings.append((token.start[0], _value(token.string)))
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token
    return strings, comments


def _value(literal: str) -> str:
    try:
        value = eval(literal, {})  # a literal: nothing to run but its own text
    except Exception:
        return literal  # an f-string with names in it
    return value if isinstance(value, str) else ""


@pytest.mark.parametrize("course_file", COURSES, ids=lambda p: p.parent.name)
def test_modlab_names_no_exercise_of_the_course(course_file):
    looked_for = words(load_course(course_file))
    assert [hit for path in MODLAB for hit in hits(path, looked_for)] == []


def test_the_scan_finds_what_it_looks_for(course, tmp_path):
    """The scan can fail: a file that names an exercise in each of the ways looked for is found out."""
    planted = tmp_path / "planted.py"
    planted.write_text('"""Grades 03_walk."""\nFILE = "walk.py"  # of mynn\nID = "03"\nPATH = "graders/walk/x"\n'
                       'OK = "the walk"\n')
    assert [hit.split(" ", 1)[1] for hit in hits(planted, words(course))] == ["03_walk", "mynn", "walk.py", "03", "/walk/"]
