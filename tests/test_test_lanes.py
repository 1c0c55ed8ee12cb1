"""`make test`'s front starts with the modules tests/conftest.py FRONT_FIRST names, while the
lane beside still runs: a renamed module must not drop out of that order unnoticed, a module
there must be a system test of the front (not one that runs beside), and the front must be
told it is the front (tests/run_tiers.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import FRONT_FIRST

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
import run_tiers  # noqa: E402


def test_every_module_named_exists_and_runs_in_front():
    for name in FRONT_FIRST:
        text = (TESTS / f"{name}.py").read_text()
        assert "pytest.mark.beside" not in text, name


def test_the_front_collects_them_first_each_module_whole():
    env = run_tiers._lane("front")
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", "-m", "system and not beside"],
                         cwd=TESTS.parent, env=env, capture_output=True, text=True,
                         timeout=300).stdout
    modules = [line.split("::")[0].removeprefix("tests/").removesuffix(".py")
               for line in out.splitlines() if "::" in line]
    order = list(dict.fromkeys(modules))  # each module once, where it first appears
    runs = [m for i, m in enumerate(modules) if i == 0 or modules[i - 1] != m]
    assert runs == order, "a module was split"
    first = [m for m in order if m in FRONT_FIRST]
    assert order[:len(first)] == first and set(first) == set(FRONT_FIRST), order[:25]
    assert run_tiers._lane("beside")["STACKPROBE_TEST_LANE"] == "beside"
