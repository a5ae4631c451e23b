"""scripts/breakages.py stays true to the code: every hand-made breakage still applies
where it says, and names tests that exist (running them is ``make mutation``'s)."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from breakages import BREAKAGES  # noqa: E402


@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda b: b.name)
def test_each_breakage_still_applies_once_and_changes_the_code(breakage):
    assert breakage.edited(ROOT) != (ROOT / breakage.file).read_text(encoding="utf-8")


@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda b: b.name)
def test_each_breakage_is_guarded_by_tests_that_exist(breakage):
    for test in breakage.tests:
        path, _, name = test.partition("::")
        assert (ROOT / path).is_file(), test
        assert not name or f"def {name}(" in (ROOT / path).read_text(), test


def test_the_names_are_unique():
    assert len({b.name for b in BREAKAGES}) == len(BREAKAGES)
