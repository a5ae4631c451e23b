"""Lesson notebooks: built from lessons/, kept in sync, and run top to bottom
with a real kernel against the reference solution, and against the stubs
(where every error a cell shows is a stub's one line)."""
import ast
import asyncio
import dataclasses
import time

import pytest

from modlab.instructor.build import BuildError
from modlab.instructor.notebooks import TASK_MARKER, build_notebook, split_cells, stale_notebooks

from student_kit import kit_copy, one_check_server

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

EXERCISES = [f"{n:02d}" for n in range(1, 10)]
PARALLEL_KERNELS = 2


def test_fenced_python_blocks_become_code_cells():
    text = "Some words.\n\n```python\nx = 1\n```\n\n```text\nnot code\n```\nMore.\n"
    assert split_cells(text) == [("markdown", "Some words."), ("code", "x = 1"),
                                 ("markdown", "```text\nnot code\n```\nMore.")]


def test_a_lesson_without_its_task_marker_is_rejected(course, tmp_path):
    lesson = tmp_path / "lessons" / f"{course.exercises[0].name}.md"
    lesson.parent.mkdir()
    lesson.write_text("No task here.\n")
    elsewhere = dataclasses.replace(course, root=tmp_path)
    with pytest.raises(BuildError, match="task"):
        build_notebook(elsewhere, elsewhere.exercises[0])


def test_committed_notebooks_match_the_build(course):
    assert stale_notebooks(course) == [], "run `modlab build` and commit exercises/*.ipynb"


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_the_task_lists_every_function_the_student_writes(course, exercise_id):
    exercise = course.exercise(exercise_id)
    notebook = build_notebook(course, exercise)
    task = next(c.source for c in notebook.cells if c.source.startswith("## Your task"))
    for name in exercise.files:
        stub = (course.root / "exercises" / course.package / name).read_text()
        for node in ast.walk(ast.parse(stub)):
            if isinstance(node, ast.FunctionDef) and f'"exercise {exercise_id}: {node.name}"' in ast.unparse(node):
                assert f"def {node.name}(" in task, (name, node.name)
    assert TASK_MARKER not in "".join(c.source for c in notebook.cells)
    assert notebook.cells[-1].source.endswith(f"-m modlab check {exercise_id}")


@pytest.fixture(scope="module")
def executed(course, tmp_path_factory):
    """Every notebook with a grader, run in a student kit holding the reference
    solution, a few kernels at a time: ``{id: (notebook, error, seconds)}``."""
    kit = kit_copy(tmp_path_factory.mktemp("notebooks") / "kit", reference=("*",))
    graded = [e for e in course.exercises if (kit / course.grader_file(e).relative_to(course.root)).is_file()]
    return run_all(kit, graded)


@pytest.fixture(scope="module")
def on_stubs(course, tmp_path_factory):
    """Every notebook run in a fresh kit, as a student first opens it: ``{id: (notebook, error, seconds)}``."""
    kit = kit_copy(tmp_path_factory.mktemp("notebooks") / "stubs")
    return run_all(kit, course.exercises)


def run_all(kit, exercises):
    """Run the exercises' notebooks in ``kit``; their check cells, at IPython's terminal,
    go to the kit's check server, as a student's do (loading torch once, not twice a check)."""
    with one_check_server(kit):
        return asyncio.run(_run_all(kit, exercises))


async def _run_all(kit, exercises):
    limit = asyncio.Semaphore(PARALLEL_KERNELS)

    async def run(exercise):
        notebook = nbformat.read(kit / f"{exercise.name}.ipynb", as_version=4)
        # Killed once its last cell is done: nothing is checked after that, and a graceful end
        # runs the kernel's exit, whose collector walks all of torch (about 1 s of CPU, 18 times).
        client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", shutdown_kernel="immediate",
                                         resources={"metadata": {"path": str(kit)}})
        async with limit:
            started = time.monotonic()
            try:
                await client.async_execute()
                error = None
            except nbclient.exceptions.CellExecutionError as failure:
                error = str(failure)
            return exercise.id, (notebook, error, time.monotonic() - started)

    return dict(await asyncio.gather(*(run(e) for e in exercises)))


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_notebook_runs_top_to_bottom_on_the_reference(executed, exercise_id):
    if exercise_id not in executed:
        pytest.skip(f"no public checks for exercise {exercise_id} yet")
    notebook, error, seconds = executed[exercise_id]
    assert error is None, error
    stderr = [o.text for c in notebook.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "stream" and o.name == "stderr"]
    assert stderr == []
    last = "".join(o.get("text", "") for o in notebook.cells[-1].outputs)
    assert f"exercise {exercise_id}: " in last and "(all passed)" in last, last
    print(f"notebook {exercise_id}: {seconds:.1f} s")


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_notebook_runs_top_to_bottom_on_the_stubs(on_stubs, exercise_id):
    notebook, error, seconds = on_stubs[exercise_id]
    assert error is None, error
    shown = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    for output in shown:
        assert output.ename == "NotImplementedError" and len(output.traceback) == 1, output.traceback
        assert output.traceback[0].startswith("NotImplementedError: still the stub: fill in "), output.traceback
    if exercise_id != "01":  # 01's lesson shows torch.nn before the student's Parameter
        assert shown, "a lesson's cells run the student's package"
    last = "".join(o.get("text", "") for o in notebook.cells[-1].outputs)
    assert f"exercise {exercise_id}: " in last and "failed" in last, last
    print(f"notebook {exercise_id} on the stubs: {seconds:.1f} s")
