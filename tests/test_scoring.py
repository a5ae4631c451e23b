"""An exercise's score: its points times the weighted share of its counted tests passed.

The engine's scoring (``modlab.engine.scoring.scored``) is called here on tests whose
outcomes are set by hand, with uneven weights and points that do not divide
evenly, and every expected figure is worked out by hand.
"""
from types import SimpleNamespace

import pytest

from modlab.engine.scoring import scored
from modlab.records import FAILED, PASSED, SKIPPED
from modlab.records import TestResult as Test


def case(points: float):
    return SimpleNamespace(scenario=SimpleNamespace(points=points))


def graded(points: float, weights_and_outcomes: list[tuple[float, str]], error: str = ""):
    cases = [case(weight) for weight, _ in weights_and_outcomes]
    tests = [Test(f"t{i}", outcome, 0.0, 0.0) for i, (_, outcome) in enumerate(weights_and_outcomes)]
    return scored(SimpleNamespace(id="03", points=points), cases, tests, started=0.0, error=error)


def test_each_test_is_worth_its_weight_of_the_points():
    # weights 3 + 2 + 1 + 2 = 8 counted: 10 points split 3.75, 2.5, 1.25, 2.5; the skipped weight 4 counts nothing
    result = graded(10, [(3, PASSED), (2, FAILED), (1, FAILED), (2, PASSED), (4, SKIPPED)])
    assert [(t.score, t.max_score) for t in result.tests] == [
        (3.75, 3.75), (0.0, 2.5), (0.0, 1.25), (2.5, 2.5), (0.0, 0.0)]
    assert result.score == 6.25 and result.max_score == 10.0 and isinstance(result.max_score, float)
    assert result.id == "03" and result.error == ""


def test_points_that_do_not_divide_evenly_keep_their_fractions():
    result = graded(7, [(1, PASSED), (2, FAILED)])  # 7 / 3 and 14 / 3
    assert result.tests[0].max_score == pytest.approx(7 / 3) and result.tests[1].max_score == pytest.approx(14 / 3)
    assert result.score == pytest.approx(2.333333333) and round(result.score, 4) == 2.3333


def test_equal_weights_would_give_a_different_score():
    # with every check an equal share this would be 5.0; weighted it is 10 * 1 / 4
    assert graded(10, [(1, PASSED), (3, FAILED)]).score == 2.5
    assert graded(10, [(3, PASSED), (1, FAILED)]).score == 7.5


def test_skipped_tests_leave_the_maximum_whole_and_an_error_is_kept():
    result = graded(15, [(2, SKIPPED), (1, PASSED), (1, PASSED)], error="")
    assert result.score == 15.0 and [t.max_score for t in result.tests] == [0.0, 7.5, 7.5]
    broken = graded(15, [(1, FAILED), (1, FAILED)], error="your package did not import")
    assert broken.score == 0.0 and broken.max_score == 15.0 and broken.error == "your package did not import"


def test_the_time_taken_is_measured_from_the_start(monkeypatch):
    from modlab.engine import scoring
    monkeypatch.setattr(scoring.time, "monotonic", lambda: 12.5)
    result = scored(SimpleNamespace(id="01", points=1), [case(1)], [Test("t", PASSED, 0, 0)], started=10.0)
    assert result.seconds == 2.5 and result.error == ""  # no error unless one is given
