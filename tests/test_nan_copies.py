"""A copy that keeps a NaN bit for bit is exact: a Linear that never initialises its weights holds
whatever the memory held, NaN or not, and its exact copies pass the check of copies every time
(graders/08_layers: ``layer_copies_are_exact``), while the checks of its weights fail it."""
from modlab.engine import GradeOptions, grade_exercise
from modlab.instructor.variants import reference_package
from modlab.records import FAILED, PASSED

KAIMING = "        torch.nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))\n"
NAN = "        self.weight.data.fill_(float('nan'))\n"


def test_exact_copies_of_nan_weights_pass_the_check_of_copies(course, tmp_path):
    text = (course.solutions / "layers.py").read_text()
    assert text.count(KAIMING) == 1
    package = reference_package(course, tmp_path, {"layers.py": text.replace(KAIMING, NAN)})
    result = grade_exercise(course, course.exercise("08"), package, GradeOptions(device="cpu"))
    outcomes = {test.name: test.outcome for test in result.tests}
    assert outcomes["layer_copies_are_exact"] == PASSED
    assert outcomes["linear_initial_weights_match_under_a_seed"] == FAILED
