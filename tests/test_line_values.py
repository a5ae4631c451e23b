"""What a line of a check's own code held, in words (modlab/isolation/line_values.py): the
expressions it describes, the words, torch's run stopped at the line, and calls kept short."""
import sys
import time

import pytest

from modlab.isolation.line_values import described, described_in, line_expressions, values_at

SCENARIO = '''def body(nn, slow):
    root = nn.make()
    p = None
    return {"walk": list(root.walk(prefix="m")), "n": len(helper(root.items())), "p": p,
            "made": nn.Parameter(nn.ones(2), requires_grad=False), "slow": slow.wait()}


def helper(items):
    return items
'''


@pytest.fixture
def scenario(tmp_path):
    path = tmp_path / "test_01_x.py"
    path.write_text(SCENARIO)
    namespace = {}
    exec(compile(SCENARIO, str(path), "exec"), namespace)
    return str(path), namespace["body"]


def test_the_names_and_simple_calls_of_the_line_in_the_order_python_evaluates_them(scenario):
    path, _ = scenario
    assert line_expressions(path, 4) == ["list", "root", 'root.walk(prefix="m")', 'list(root.walk(prefix="m"))', "len",
                                         "helper", "root.items()", "helper(root.items())", "p"]  # not len(a call's call)
    assert line_expressions(path, 5) == ["nn", "nn.ones(2)", "nn.Parameter(nn.ones(2), requires_grad=False)", "slow",
                                         "slow.wait()"]


def test_a_value_is_told_by_its_kind_only():
    assert [described(v) for v in (None, [1, 2, 3], {"a": 1}, (), iter([]), 2.0)] == \
        ["None", "a list of 3", "a dict of 1", "a tuple of 0", "a list_iterator", "a float"]


class Package:
    """A world whose walk returns None, as a student's might."""

    class Root:
        def walk(self, prefix=""):
            return None

        def items(self):
            return [1]

    make = Root

    @staticmethod
    def ones(n):
        return [1.0] * n

    @staticmethod
    def Parameter(data, requires_grad=True):
        return None


class Slow:
    def wait(self):
        time.sleep(30)


class Quick:
    def wait(self):
        return None


def test_the_submissions_world_at_the_exception_and_torchs_run_stopped_at_the_same_line(scenario):
    path, body = scenario
    with pytest.raises(TypeError) as raised:
        body(Package, Slow())
    frame = raised.tb.tb_next.tb_frame  # the body's frame, where list(None) raised
    expressions = line_expressions(path, 4)
    assert described_in(frame, expressions, calls=True) == {
        "root": "a Root", 'root.walk(prefix="m")': "None", "root.items()": "a list of 1", "p": "None"}

    class Torch(Package):
        class Root(Package.Root):
            def walk(self, prefix=""):
                return iter([("m.w", 1)])
        make = Root

    reached = values_at(lambda: body(Torch, Slow()), path, 4)
    assert reached['root.walk(prefix="m")'] == "a list_iterator" and reached["p"] == "None"
    assert sys.gettrace() is None
    assert values_at(lambda: body(Torch, Quick()), path, 99) == {}  # never reached: nothing told


def test_the_calls_of_a_line_get_a_second_in_all(scenario):
    path, body = scenario

    class Made(Package):
        class Root(Package.Root):
            def walk(self, prefix=""):
                return []
        make = Root

        @staticmethod
        def Parameter(data, requires_grad=True):
            raise ValueError("no")

    started = time.monotonic()
    told = values_at(lambda: body(Made, Slow()), path, 5)
    assert time.monotonic() - started < 10 and sys.gettrace() is None
    assert told["nn.Parameter(nn.ones(2), requires_grad=False)"] == "raised ValueError"
    assert "slow.wait()" not in told and told["slow"] == "a Slow"  # out of time: left untold
