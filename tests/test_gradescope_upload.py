"""What a student uploads to Gradescope, made into a package folder to grade: the exercise's files,
the mynn/ folder, a folder zipped whole, or `modlab submit`'s archives. An upload with nothing to
grade is refused in one line that says what was expected; links, oversized files and archive
entries outside the package are refused or ignored, never followed. Nothing here grades.
"""
import stat
import zipfile
from pathlib import Path

import pytest

from modlab.instructor.gradescope.upload import (MAX_ARCHIVE_BYTES, MAX_FILE_BYTES, MAX_FILES, UnusableUpload,
                                                 stage_upload)
from modlab.student.submit import archive_bytes


def stage(course, upload: Path, tmp_path: Path, exercises=("01",)):
    return stage_upload(upload, course, [course.exercise(e) for e in exercises], tmp_path / "staged")


def test_files_a_folder_and_a_folder_zipped_whole_are_all_found(course, tmp_path):
    for layout in ("parameter.py", "mynn/parameter.py", "kit/mynn/parameter.py", "kit/parameter.py"):
        upload = tmp_path / layout.replace("/", "_") / "submission"
        (upload / layout).parent.mkdir(parents=True)
        (upload / layout).write_text("x = 1\n")
        staged = stage(course, upload, upload.parent)
        assert (staged.package / "parameter.py").read_text() == "x = 1\n" and staged.package.name == "mynn"
        folder = layout.rpartition("/")[0]
        assert staged.found == (f"{folder}/ in the upload" if folder else "the upload")


def test_a_folder_gives_its_modules_as_plain_files_and_nothing_else(course, tmp_path):
    upload = tmp_path / "submission"
    package = upload / "kit" / "mynn"
    (package / "sub").mkdir(parents=True)
    (upload / "__MACOSX").mkdir()  # what zipping a folder on macOS adds beside it
    (upload / ".DS_Store").write_text("")
    for name in ("capstone.py", "walk.py", "_given.py", "notes.txt", "2fast.py", "sub/state.py"):
        (package / name).write_text(name)
    staged = stage(course, upload, tmp_path, ("09",))  # the capstone is graded with the whole package
    assert sorted(p.name for p in staged.package.iterdir()) == ["_given.py", "capstone.py", "walk.py"]
    assert not [p for p in staged.package.iterdir() if p.is_symlink()]


def test_up_to_the_limits_is_graded_and_beyond_them_refused(course, tmp_path):
    upload = tmp_path / "submission"
    upload.mkdir()
    (upload / "parameter.py").write_bytes(b"#" * MAX_FILE_BYTES)
    for index in range(MAX_FILES - 1):
        (upload / f"m{index:03}.py").write_text("")
    assert len(list(stage(course, upload, tmp_path).package.iterdir())) == MAX_FILES
    (upload / "m999.py").write_text("")
    with pytest.raises(UnusableUpload, match=f"^the upload holds over {MAX_FILES} modules: upload the course's"):
        stage(course, upload, tmp_path / "again")
    zipped = tmp_path / "zipped"
    zipped.mkdir()
    with zipfile.ZipFile(zipped / "many.zip", "w") as archive:
        for index in range(MAX_FILES + 1):
            archive.writestr(f"mynn/m{index:03}.py", "")
    with pytest.raises(UnusableUpload, match=f"^many.zip holds over {MAX_FILES} modules"):
        stage(course, zipped, tmp_path / "third")


def test_an_exercises_own_archive_wins_for_its_files_then_the_latest(course, tmp_path):
    upload = tmp_path / "submission"
    upload.mkdir()

    def archive(name, exercise, when, files):
        manifest = {"exercise": exercise, "submitted_at": when}
        (upload / name).write_bytes(archive_bytes(manifest, {f"mynn/{k}": v.encode() for k, v in files.items()}))

    archive("ada-01-a.zip", "01", "2027-01-10T00:00:00Z", {"parameter.py": "old"})
    archive("ada-01-b.zip", "01", "2027-01-11T00:00:00Z", {"parameter.py": "new"})
    archive("ada-09-c.zip", "09", "2027-01-12T00:00:00Z", {"parameter.py": "from 09", "capstone.py": "c"})
    staged = stage(course, upload, tmp_path, ("01", "09"))
    assert (staged.package / "parameter.py").read_text() == "new"
    assert (staged.package / "capstone.py").read_text() == "c"
    assert staged.found == "the archive ada-01-a.zip, ada-01-b.zip, ada-09-c.zip"


def test_archives_without_a_manifest_or_a_time_or_a_known_exercise_still_count(course, tmp_path):
    """A manifest that is missing, a list, or names no exercise of the course owns nothing; an
    archive with no time loses to one with a time; a zip that is no archive is passed over."""
    upload = tmp_path / "submission"
    upload.mkdir()

    def archive(name, manifest, text):
        with zipfile.ZipFile(upload / name, "w") as out:
            if manifest is not None:
                out.writestr("manifest.json", manifest)
            out.writestr("mynn/parameter.py", text)

    (upload / "a-broken.zip").write_bytes(b"PK not really")
    archive("b-timed.zip", '{"exercise": "99", "submitted_at": "2027-01-10T00:00:00Z"}', "timed")
    archive("c-untimed.zip", '["not", "a", "mapping"]', "untimed")
    archive("d-bare.zip", None, "bare")
    staged = stage(course, upload, tmp_path)
    assert (staged.package / "parameter.py").read_text() == "timed"
    assert staged.found == "the archive b-timed.zip, c-untimed.zip, d-bare.zip"


def test_an_upload_without_the_files_says_what_was_expected(course, tmp_path):
    upload = tmp_path / "submission"
    upload.mkdir()
    with pytest.raises(UnusableUpload, match="; the upload is empty$"):
        stage(course, upload, tmp_path)
    (upload / "notes.txt").write_text("hi")
    (upload / "walk.py").write_text("")
    with pytest.raises(UnusableUpload) as refused:
        stage(course, upload, tmp_path)
    assert str(refused.value) == (
        "nothing to grade: upload parameter.py (exercise 01), the mynn/ folder holding it, or the archive "
        "`modlab submit 01` writes (submissions/<you>-01-<time>.zip); found notes.txt, walk.py")
    with pytest.raises(UnusableUpload, match="upload layers.py and printing.py .exercise 08., the mynn/ folder "
                                             "holding them"):
        stage(course, upload, tmp_path, ("08",))
    with pytest.raises(UnusableUpload, match="^nothing to grade: upload the files of exercises 04, 05, 06 .calling.py, "
                                             "containers.py, state.py., the mynn/ folder holding them, or the "
                                             "archives `modlab submit NN` writes, one per exercise; found"):
        stage(course, upload, tmp_path, ("04", "05", "06"))
    for index in range(8):
        (upload / f"n{index:02}.txt").write_text("")
    with pytest.raises(UnusableUpload, match="; found n00.txt, n01.txt, .*, n07.txt, notes.txt, walk.py$"):
        stage(course, upload, tmp_path)  # ten names, all shown
    for index in range(8, 12):
        (upload / f"n{index:02}.txt").write_text("")
    with pytest.raises(UnusableUpload, match="; found n00.txt, n01.txt, .*, n09.txt and 4 more$"):
        stage(course, upload, tmp_path)


def test_links_and_oversized_files_are_refused_never_followed(course, tmp_path):
    upload = tmp_path / "submission"
    upload.mkdir()
    (upload / "parameter.py").symlink_to(course.solutions / "parameter.py")
    with pytest.raises(UnusableUpload, match="^parameter.py is a link: upload the file itself$"):
        stage(course, upload, tmp_path)
    (upload / "parameter.py").unlink()
    (upload / "mynn").symlink_to(course.solutions)
    with pytest.raises(UnusableUpload, match="^mynn is a link: upload the folder itself$"):
        stage(course, upload, tmp_path)
    (upload / "mynn").unlink()
    (upload / "parameter.py").write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(UnusableUpload, match="^parameter.py is over 1 MiB: not a module of the course$"):
        stage(course, upload, tmp_path)


def test_an_archive_gives_only_its_package_modules_and_refuses_links(course, tmp_path):
    upload = tmp_path / "submission"
    upload.mkdir()
    with zipfile.ZipFile(upload / "evil.zip", "w") as archive:
        for name in ("../parameter.py", "/mynn/parameter.py", "mynn/../parameter.py", "x/mynn/parameter.py",
                     "mynn/sub/parameter.py", "parameter.py"):
            archive.writestr(name, "stolen = True\n")
    with pytest.raises(UnusableUpload, match="^nothing to grade"):
        stage(course, upload, tmp_path)
    (upload / "evil.zip").write_bytes(b"not a zip")
    with pytest.raises(UnusableUpload, match="found evil.zip"):
        stage(course, upload, tmp_path)
    link = zipfile.ZipInfo("mynn/parameter.py")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with zipfile.ZipFile(upload / "evil.zip", "w") as archive:
        archive.writestr(link, str(course.solutions / "parameter.py"))
    with pytest.raises(UnusableUpload, match="evil.zip: mynn/parameter.py is a link"):
        stage(course, upload, tmp_path)
    with zipfile.ZipFile(upload / "evil.zip", "w") as archive:
        archive.writestr("mynn/parameter.py", b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(UnusableUpload, match="^evil.zip: mynn/parameter.py is over 1 MiB"):
        stage(course, upload, tmp_path)
    (upload / "evil.zip").write_bytes(b"\0" * MAX_ARCHIVE_BYTES)  # at the limit: read, and no archive
    with pytest.raises(UnusableUpload, match="found evil.zip$"):
        stage(course, upload, tmp_path)
    (upload / "evil.zip").write_bytes(b"\0" * (MAX_ARCHIVE_BYTES + 1))
    with pytest.raises(UnusableUpload, match="^evil.zip is over 16 MiB"):
        stage(course, upload, tmp_path)


