"""``modlab release`` refuses a kit that would leak, and leaves nothing behind when it does.

The kit's contents are replaced here by a few chosen files (``kit_files`` and
the tool copy are patched), so each refusal is tested in well under a second.
What leaks is planted by hand: a hidden scenario's name, a solution region
reformatted or inside a notebook's JSON, the instructor's own folder.
"""
import json
import os
import stat

import pytest

from modlab.instructor import release
from modlab.instructor.release import ReleaseError, build_release, find_leaks, hidden_scenarios, solution_regions


@pytest.fixture
def kit(monkeypatch):
    """Make ``build_release`` write these files (and no tool copy); returns the dict to fill."""
    files = {"README.md": "# the kit\n", "mynn/walk.py": "def named_modules(self):\n    raise NotImplementedError\n"}
    monkeypatch.setattr(release, "kit_files", lambda course: dict(files))
    monkeypatch.setattr(release, "_copy_tool", lambda target: (target / "__init__.py").parent.mkdir(parents=True)
                        or (target / "__init__.py").write_text(""))
    return files


@pytest.fixture(scope="module")
def a_hidden_scenario(course):
    names = sorted(hidden_scenarios(course))
    assert len(names) > 10  # the course's hidden graders are found
    return names[0]


def test_a_clean_kit_is_written_whole_and_readable_by_others(course, kit, tmp_path):
    out = tmp_path / "kit"
    written = build_release(course, out)
    assert sorted(map(str, written)) == ["README.md", "modlab/__init__.py", "mynn/walk.py"]
    assert (out / "mynn" / "walk.py").read_text() == kit["mynn/walk.py"]
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert os.listdir(tmp_path) == ["kit"]  # no staging folder left beside it


def test_an_empty_folder_is_released_into(course, kit, tmp_path):
    (tmp_path / "kit").mkdir()
    assert len(build_release(course, tmp_path / "kit")) == 3


def test_a_kit_holding_a_hidden_scenarios_name_is_refused_and_nothing_written(course, kit, tmp_path,
                                                                            a_hidden_scenario):
    kit["notes.md"] = f"remember {a_hidden_scenario} for the exam\n"
    with pytest.raises(ReleaseError, match=rf"would leak 1 secret\(s\), nothing written: "
                                           rf"notes.md: hidden scenario {a_hidden_scenario}$"):
        build_release(course, tmp_path / "kit")
    assert os.listdir(tmp_path) == []


def test_a_solution_region_is_found_reformatted_and_inside_a_notebook(course, kit, tmp_path):
    where, region = solution_regions(course)[0]
    words = region.split(" ")
    kit["mynn/copied.py"] = "x = 1\n" + "\n        ".join(words) + "\n"
    kit["lesson.ipynb"] = json.dumps({"cells": [{"source": [words[0] + "\n", " ".join(words[1:])]}]})
    with pytest.raises(ReleaseError) as refused:
        build_release(course, tmp_path / "kit")
    assert f"lesson.ipynb: solution region {where}" in str(refused.value)
    assert f"mynn/copied.py: solution region {where}" in str(refused.value)
    assert "would leak 2 secret(s)" in str(refused.value)
    assert os.listdir(tmp_path) == []


def test_a_kit_naming_the_instructors_folder_is_refused(course, kit, tmp_path):
    kit["log.txt"] = f"graded in {course.root.resolve()}/autograded\n"
    with pytest.raises(ReleaseError, match="log.txt: the instructor's course folder"):
        build_release(course, tmp_path / "kit")


def test_a_folder_in_use_is_refused_and_kept(course, kit, tmp_path):
    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "mine.txt").write_text("keep me")
    with pytest.raises(ReleaseError, match="already exists and is not empty"):
        build_release(course, tmp_path / "kit")
    (tmp_path / "file").write_text("")
    with pytest.raises(ReleaseError, match="already exists and is not empty"):
        build_release(course, tmp_path / "file")
    assert (tmp_path / "kit" / "mine.txt").read_text() == "keep me"


def test_the_scan_names_whole_words_only_and_every_file(course, tmp_path, a_hidden_scenario):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text(f"{a_hidden_scenario}\n")
    (tmp_path / "b.txt").write_text(f"x{a_hidden_scenario}x and {a_hidden_scenario}_more\n")
    (tmp_path / "c.ipynb").write_text("{not json " + a_hidden_scenario)  # not a notebook: scanned raw
    assert find_leaks(course, tmp_path) == [f"c.ipynb: hidden scenario {a_hidden_scenario}",
                                            f"sub/a.txt: hidden scenario {a_hidden_scenario}"]


def test_hidden_scenarios_and_solution_regions_are_read_from_the_course(course):
    hidden = hidden_scenarios(course)
    public = {"tied_weights_are_yielded_once"}  # a public check of exercise 03, in README.md's example
    assert not public & hidden
    regions = solution_regions(course)
    assert all(len(text) >= release.MIN_REGION and "  " not in text and "\n" not in text for _, text in regions)
    assert all(where.split(":")[0].endswith(".py") and where.split(":")[1].isdigit() for where, _ in regions)
    first_file, first_line = regions[0][0].split(":")
    lines = (course.solutions / first_file).read_text().splitlines()
    assert lines[int(first_line) - 2].strip() == "### BEGIN SOLUTION"
    assert " ".join(lines[int(first_line) - 1].split()) == regions[0][1][:len(" ".join(lines[int(first_line) - 1].split()))]


def test_the_kit_is_staged_hidden_beside_its_folder_even_when_that_folder_is_new(course, monkeypatch, tmp_path):
    staged = []

    def copy_tool(target):
        staged.append(target.parent)
        target.mkdir(parents=True)

    monkeypatch.setattr(release, "kit_files", lambda given: {"a/b/c.txt": "naïve\n"} if given is course else {})
    monkeypatch.setattr(release, "_copy_tool", copy_tool)
    out = tmp_path / "new" / "deeper" / "kit"
    assert [str(p) for p in build_release(course, out)] == ["a/b/c.txt"]
    [staging] = staged
    assert staging.parent == out.parent and staging.name.startswith(".kit.")
    assert (out / "a" / "b" / "c.txt").read_bytes() == "naïve\n".encode()
    assert os.listdir(out.parent) == ["kit"]


def test_a_refusal_lists_the_first_five_leaks(course, kit, tmp_path, a_hidden_scenario):
    for name in "abcdef":
        kit[f"{name}.md"] = a_hidden_scenario
    with pytest.raises(ReleaseError) as refused:
        build_release(course, tmp_path / "kit")
    assert str(refused.value) == ("the kit would leak 6 secret(s), nothing written: " + "; ".join(
        f"{name}.md: hidden scenario {a_hidden_scenario}" for name in "abcde"))


def test_a_name_is_found_at_a_notebook_cells_start_and_in_a_file_that_is_not_utf8(course, tmp_path,
                                                                                a_hidden_scenario):
    cells = [{"source": ["print(1)"]}, {"source": [a_hidden_scenario + "(nn)"]}]
    (tmp_path / "lesson.ipynb").write_text(json.dumps({"cells": cells}))
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe " + a_hidden_scenario.encode() + b" \x80")
    assert find_leaks(course, tmp_path) == [f"blob.bin: hidden scenario {a_hidden_scenario}",
                                            f"lesson.ipynb: hidden scenario {a_hidden_scenario}"]


def test_every_solution_region_of_a_file_is_read_whitespace_collapsed(tmp_path):
    from types import SimpleNamespace

    body = "    return torch.Tensor._make_subclass(cls, data, requires_grad)"  # 59 characters collapsed
    short = "x" * 47 + "y"  # exactly 48: long enough
    (tmp_path / "a.py").write_text(
        "def f():\n    ### BEGIN SOLUTION\n" + body + "\n        # and more\n    ### END SOLUTION\n"
        "def g():\n    ### BEGIN SOLUTION\n    " + short + "\n    ### END SOLUTION\n"
        "def h():\n    ### BEGIN SOLUTION\n    pass  # too short to tell\n    ### END SOLUTION\n")
    assert solution_regions(SimpleNamespace(solutions=tmp_path)) == [
        ("a.py:3", "return torch.Tensor._make_subclass(cls, data, requires_grad) # and more"),
        ("a.py:8", short)]
