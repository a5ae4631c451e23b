"""One answer to "where is this student's package folder?", for every layout every reader meets."""
import os

import pytest

from modlab.batch.layout import find_submissions, is_class_folder
from modlab.errors import UsageError
from modlab.folders import exercise_folder, find_package_folder, package_folder
from modlab.student.workspace import open_workspace


def holding(folder, *names):
    """``folder`` with the given files (``mynn/walk.py``, ``walk.py``) in it."""
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("# a student's file\n")
    return folder


@pytest.mark.parametrize("layout, found", [
    ("mynn/walk.py", "mynn"),                 # a kit, a student of a class: the package in the folder
    ("walk.py", ""),                          # the files beside a notebook
])
def test_a_folder_given_on_the_command_line(course, tmp_path, layout, found):
    assert package_folder(holding(tmp_path, layout), course) == tmp_path / found


def test_the_package_folder_itself_may_be_given(course, tmp_path):
    package = holding(tmp_path, "mynn/notes.txt") / "mynn"
    assert package_folder(package, course) == package  # named after the package: it is the package


def test_a_folder_without_a_package_is_one_line_of_error(course, tmp_path):
    with pytest.raises(UsageError, match=r"holds no mynn/ package folder$"):
        package_folder(holding(tmp_path, "README.md"), course)
    with pytest.raises(UsageError, match=r"nowhere: no such folder$"):
        package_folder(tmp_path / "nowhere", course)
    assert find_package_folder(tmp_path, course) is None


@pytest.mark.parametrize("layout, found", [
    ("mynn/walk.py", "mynn"),
    ("walk.py", "."),
    ("03_walk/mynn/walk.py", "03_walk/mynn"),  # nbgrader: an assignment folder per exercise
    ("03_walk/walk.py", "03_walk"),            # ... its files beside the notebook
    ("03/walk.py", "03"),                      # named by the exercise's id
    ("walk/mynn/walk.py", "walk/mynn"),        # or its slug
])
def test_one_exercise_of_a_student_in_every_layout(course, tmp_path, layout, found):
    holding(tmp_path, layout, "01_parameter/parameter.py")
    assert exercise_folder(tmp_path, course, course.exercise("03")) == tmp_path / found
    assert exercise_folder(tmp_path, course, course.exercise("01")) == tmp_path / "01_parameter"


def test_the_package_wins_over_an_assignment_folder(course, tmp_path):
    holding(tmp_path, "mynn/walk.py", "03_walk/walk.py")
    assert exercise_folder(tmp_path, course, course.exercise("03")) == tmp_path / "mynn"


def test_an_exercise_never_submitted_is_looked_for_where_it_was_expected(course, tmp_path):
    """Grading then says which file is missing from where."""
    assert exercise_folder(holding(tmp_path, "01_parameter/parameter.py"), course, course.exercise("03")) \
        == tmp_path / "03_walk"
    assert exercise_folder(holding(tmp_path, "mynn/parameter.py"), course, course.exercise("03")) == tmp_path / "mynn"


def test_a_class_is_a_folder_of_student_folders(course, tmp_path):
    holding(tmp_path, "ada/mynn/walk.py", "bob/03_walk/walk.py")
    assert is_class_folder(tmp_path, course)
    assert not is_class_folder(tmp_path / "ada", course) and not is_class_folder(tmp_path / "bob" / "03_walk", course)
    folders = {s.student: s.folder("03") for s in find_submissions(tmp_path, course)}
    assert folders == {"ada": tmp_path / "ada" / "mynn", "bob": tmp_path / "bob" / "03_walk"}


def test_a_check_cell_runs_in_the_notebook_folder(course, tmp_path, monkeypatch):
    """`modlab check NN` without --path: the current folder when it holds the package (a
    lesson notebook's check cell runs there), else the folder of course.yaml."""
    notebook_folder = holding(tmp_path / "lessons", "mynn/walk.py")
    monkeypatch.chdir(notebook_folder)
    assert open_workspace(course).package_dir == (notebook_folder / "mynn").resolve()
    monkeypatch.chdir(tmp_path)  # no package here: the course's folder, which holds none either
    with pytest.raises(UsageError, match=f"{course.root}: holds no mynn/ package folder"):
        open_workspace(course)


def test_a_workspace_keeps_its_records_beside_the_package(course, tmp_path):
    kit = open_workspace(course, holding(tmp_path / "kit", "mynn/walk.py"))
    assert kit.root == (tmp_path / "kit").resolve() and kit.submissions == kit.root / "submissions"
    beside = open_workspace(course, holding(tmp_path / "03_walk", "walk.py"))
    assert beside.package_dir == beside.root == (tmp_path / "03_walk").resolve()
    assert os.path.basename(beside.files_of(course.exercise("03"))["mynn/walk.py"]) == "walk.py"
