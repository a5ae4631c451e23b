"""modlab doctor: layers and tensors a model holds but never registered, on
torch.nn models (the seeds' RipenessNet and plain-list classifier) and mynn ones."""
import sys
import textwrap

import pytest
import torch
from torch import nn

from modlab.cli import main
from modlab.student.doctor import NOTE, diagnose, format_report

from conftest import ROOT


class RipenessNet(nn.Module):
    """The seed's model: one layer hidden in a plain list."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(4, 8)
        self.decoder = nn.Linear(8, 1)
        self.scale = nn.Parameter(torch.ones(1))
        self.extras = [nn.Linear(8, 8)]


class Classifier(nn.Module):
    """The seed's classifier, its hidden layers in a ModuleList or in a plain list."""

    def __init__(self, plain_list=False):
        super().__init__()
        hidden = [nn.Linear(10, 64), nn.Linear(64, 64), nn.Linear(64, 64)]
        self.blocks = hidden if plain_list else nn.ModuleList(hidden)
        self.head = nn.Linear(64, 3)


class HidingPlaces(nn.Module):
    """Every way of holding something outside the registers, and aliases that are fine."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
        self.aliases = [self.body[0]]                  # registered already: fine
        self.heads = {"a": nn.Linear(3, 1), "b": (nn.Linear(3, 2),)}
        self.temperature = torch.ones(1, requires_grad=True)
        self.weights = [nn.Parameter(torch.zeros(2, 2))]
        self.offset = torch.zeros(3)                   # a plain tensor: a note
        self.register_buffer("mean", torch.zeros(3))
        self.same_mean = self.mean                     # a registered buffer: fine
        object.__setattr__(self, "sneaky", nn.Linear(5, 5))


@pytest.fixture
def clean_imports():
    """Undo what importing a model does to sys.modules and sys.path, so that no
    later test (or forked grading worker) meets this test's ``mynn``."""
    modules, path = set(sys.modules), list(sys.path)
    yield
    for name in set(sys.modules) - modules:
        del sys.modules[name]
    sys.path[:] = path


def findings(diagnosis):
    return [(f.path, f.holds, f.severity) for f in diagnosis.findings]


def test_ripeness_net_registers_50_of_122():
    report = diagnose(RipenessNet())
    assert (report.registered, report.expected) == (50, 122)
    assert findings(report) == [("extras[0]", 72, "problem")]
    assert not report.healthy


def test_plain_list_classifier_trains_195_of_9219_and_the_module_list_all():
    broken, fixed = diagnose(Classifier(plain_list=True)), diagnose(Classifier())
    assert (broken.registered, broken.expected) == (195, 9219)
    assert [path for path, _, _ in findings(broken)] == ["blocks[0]", "blocks[1]", "blocks[2]"]
    assert (fixed.registered, fixed.expected, fixed.findings, fixed.healthy) == (9219, 9219, [], True)


def test_every_hiding_place_is_found_and_aliases_are_not():
    report = diagnose(HidingPlaces())
    assert findings(report) == [
        ("heads['a']", 4, "problem"), ("heads['b'][0]", 8, "problem"), ("temperature", 1, "problem"),
        ("weights[0]", 4, "problem"), ("offset", 0, NOTE), ("sneaky", 30, "problem"),
    ]
    assert (report.registered, report.expected) == (9, 9 + 4 + 8 + 1 + 4 + 30)
    problems = [f.problem for f in report.findings]
    assert "plain dict" in problems[0] and "plain tuple" in problems[1]
    assert "not a Parameter" in problems[2] and "Parameter in a plain list" in problems[3]


def test_a_note_alone_leaves_the_model_healthy():
    model = nn.Linear(2, 2)
    model.offset = torch.zeros(2)
    report = diagnose(model)
    assert [f.severity for f in report.findings] == [NOTE] and report.healthy


def test_an_unregistered_subtree_is_counted_whole_and_searched_too():
    model = nn.Module()
    stack = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    stack.spare = [nn.Linear(3, 3)]
    model.stages = [stack]
    report = diagnose(model)
    assert findings(report) == [("stages[0]", 6 + 3, "problem"), ("stages[0].spare[0]", 12, "problem")]
    assert (report.registered, report.expected) == (0, 21)


def test_a_walk_that_misses_parameters_fails_the_count():
    class ForgetfulWalk(nn.Linear):
        def parameters(self, recurse=True):
            return iter([self.weight])

    report = diagnose(ForgetfulWalk(3, 2))
    assert (report.registered, report.expected, report.findings) == (6, 8, [])
    assert not report.healthy
    assert "MISMATCH" in format_report(report)


def test_mynn_models(clean_imports):
    sys.path.insert(0, str(ROOT / "solutions"))
    from mynn import Linear, Parameter, capstone

    broken = diagnose(capstone.PlainListClassifier())
    assert (broken.family, broken.registered, broken.expected) == ("mynn", 195, 9219)
    assert diagnose(capstone.Classifier()).healthy
    layer = Linear(2, 2)
    layer.gain = torch.ones(2, requires_grad=True)
    layer.extra = {"w": Parameter(torch.ones(3))}
    assert findings(diagnose(layer)) == [("gain", 2, "problem"), ("extra['w']", 3, "problem")]


SEEDS_FILE = '''
    import torch
    from torch import nn

    class RipenessNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(4, 8)
            self.extras = [nn.Linear(8, 8)]

    def healthy():
        return nn.Sequential(nn.Linear(2, 2))

    def needs(size):
        return nn.Linear(size, size)

    def broken():
        raise RuntimeError("no weights file")

    number = 3
'''


@pytest.fixture
def seeds_file(tmp_path, clean_imports):
    path = tmp_path / "models.py"
    path.write_text(textwrap.dedent(SEEDS_FILE))
    return path


def test_cli_prints_a_table_and_exits_1_when_something_is_found(seeds_file, capsys):
    assert main(["doctor", f"{seeds_file}:RipenessNet"]) == 1
    out = capsys.readouterr().out
    assert "RipenessNet (torch.nn)" in out
    assert "extras[0]" in out and "module in a plain list" in out
    assert "40 registered" in out and "112 in the layers" in out and "MISMATCH" in out


def test_cli_exits_0_for_a_healthy_model(seeds_file, capsys):
    assert main(["doctor", f"{seeds_file}:healthy"]) == 0
    assert "every module and trainable tensor it holds is registered" in capsys.readouterr().out


def test_cli_imports_a_package_module_from_the_current_folder(monkeypatch, capsys, clean_imports):
    monkeypatch.chdir(ROOT / "solutions")
    assert main(["doctor", "mynn.capstone:PlainListClassifier"]) == 1
    assert "195 registered" in capsys.readouterr().out


@pytest.mark.parametrize("target, message", [
    ("{file}", "expected FILE.py:NAME"),
    ("{file}:nothing", "has no attribute 'nothing'"),
    ("{file}:needs", "needs arguments (size)"),
    ("{file}:broken", "raised RuntimeError: no weights file"),
    ("{file}:number", "not a model"),
    ("missing.py:Net", "no such file"),
    ("no_such_package.models:Net", "ModuleNotFoundError"),
])
def test_cli_bad_targets_exit_2_in_one_line(seeds_file, capsys, target, message):
    assert main(["doctor", target.format(file=seeds_file)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
