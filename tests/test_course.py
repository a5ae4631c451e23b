"""course.yaml is validated on load, with one line naming the key."""
import pytest

from modlab.course import CourseError, Oracle, load_course

GOOD = """
course: {id: demo, title: Demo, package: mynn}
exercises:
  - {id: "01", slug: parameter, title: Parameter, points: 10, files: [parameter.py], due: 2027-01-15T23:59:00Z}
"""


def write(tmp_path, text):
    path = tmp_path / "course.yaml"
    path.write_text(text)
    return path


def test_the_real_course_loads(course):
    assert [e.id for e in course.exercises] == [f"{n:02d}" for n in range(1, 10)]
    assert course.package == "mynn"
    assert course.exercise("3").slug == "walk"


def test_the_oracle_is_torch_nn_unless_the_course_names_another(tmp_path):
    assert load_course(write(tmp_path, GOOD)).oracle == Oracle("torch.nn", ("Module", "Parameter"))
    assert load_course(write(tmp_path, GOOD + "oracle: torch.optim\n")).oracle == Oracle("torch.optim", ())
    named = load_course(write(tmp_path, GOOD + "oracle: {module: torch.optim, watch: [Optimizer]}\n")).oracle
    assert named.spec() == ["torch.optim", ["Optimizer"]]


def test_due_dates_are_timezone_aware(tmp_path):
    exercise = load_course(write(tmp_path, GOOD)).exercise("01")
    assert exercise.due.isoformat() == "2027-01-15T23:59:00+00:00"


@pytest.mark.parametrize("bad, message", [
    ("course: {id: demo, title: Demo, package: mynn}\n", "exercises: expected a list, got nothing"),
    (GOOD.replace("points: 10", "points: ten"), "exercises[0].points: expected a positive number, got 'ten'"),
    (GOOD.replace('id: "01"', 'id: "1"'), "exercises[0].id: '1' does not match"),
    (GOOD.replace("[parameter.py]", "[]"), "exercises[0].files: an exercise needs at least one student file"),
    (GOOD.replace("package: mynn", "package: my-nn"), "course.package: 'my-nn' does not match"),
    (GOOD.replace("2027-01-15T23:59:00Z", "soon"), "exercises[0].due: expected an ISO date"),
    (GOOD + "limits: {memory_mib: -1}\n", "limits.memory_mib: expected a positive number, got -1"),
    (GOOD + "limits: {cpus: 2}\n", "limits.cpus: unknown limit"),
    (GOOD + "oracle: torch nn\n", "oracle: 'torch nn' does not match"),
    (GOOD + "oracle: {module: torch.optim, watch: Optimizer}\n", "oracle.watch: expected a list, got str 'Optimizer'"),
    (GOOD + "oracle: {module: torch.optim, classes: [Optimizer]}\n", "oracle.classes: unknown key; known: module, watch"),
    ("course: [unclosed\n", "not valid YAML (line 2)"),
])
def test_malformed_files_name_the_key(tmp_path, bad, message):
    with pytest.raises(CourseError) as error:
        load_course(write(tmp_path, bad))
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_unknown_exercise_lists_the_known_ones(course):
    with pytest.raises(CourseError, match="known exercises: 01, 02, 03"):
        course.exercise("42")


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(CourseError, match="cannot read"):
        load_course(tmp_path / "nowhere.yaml")
