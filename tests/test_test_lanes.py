"""`make test`'s two lanes (tests/run_tiers.py) start with what disturbs the other least
(tests/conftest.py FRONT_FIRST): a renamed module must not fall out of that order unnoticed,
and a module cannot both lead the front and run beside it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conftest import FRONT_FIRST

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
import run_tiers  # noqa: E402


def test_every_module_that_leads_the_front_exists_and_stays_in_front():
    for name in FRONT_FIRST:
        text = (TESTS / f"{name}.py").read_text()
        assert re.search(r"pytest\.mark\.(slow|tools|root|netns|ceph)", text), name
        assert "pytestmark = pytest.mark.beside" not in text and "pytest.mark.beside]" not in text, name


def test_each_lane_is_told_its_name():
    assert run_tiers._lane("front")["STACKPROBE_TEST_LANE"] == "front"
    assert run_tiers._lane("beside")["STACKPROBE_TEST_LANE"] == "beside"
