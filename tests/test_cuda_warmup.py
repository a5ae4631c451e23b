"""A worker that will run CUDA cases makes its CUDA context as it starts, and
only then: on a machine without CUDA it still grades, and says why the CUDA
cases fail."""
import pytest
import torch

from modlab.engine import CUDA_ABSENT, ExerciseGrading, GradeOptions
from modlab.formats.feedback import feedback_line


@pytest.mark.parametrize(("exercise", "device", "warm"), [
    ("07", "cuda", True),   # asked for CUDA, and the exercise has CUDA cases
    ("07", "cpu", False),   # CUDA cases skipped
    ("01", "cuda", False),  # no CUDA case to run
    ("07", "auto", torch.cuda.is_available()),
])
def test_only_a_worker_that_runs_cuda_cases_warms_cuda(course, exercise, device, warm):
    with ExerciseGrading(course, course.exercise(exercise), course.solutions, GradeOptions(device=device)) as grading:
        assert grading.worker.world["warm_cuda"] is warm


@pytest.mark.skipif(torch.cuda.is_available(), reason="shows a machine without CUDA")
def test_warming_cuda_where_there_is_none_costs_only_the_cuda_cases(course):
    with ExerciseGrading(course, course.exercise("07"), course.solutions, GradeOptions(device="cuda")) as grading:
        result = grading.grade()
    cpu = [t for t in result.tests if t.name.endswith("[cpu]")]
    cuda = [t for t in result.tests if t.name.endswith("[cuda]")]
    assert cpu and all(t.outcome == "passed" for t in cpu), [feedback_line(t) for t in cpu if feedback_line(t)]
    assert cuda and all(t.outcome == "failed" and CUDA_ABSENT in feedback_line(t) for t in cuda)
