"""The README's times for the built-in suites are what `stackprobe plan` says now.

Why: the README told new users `standard` takes "2 h 25 min" and `ceph-quick` "about 3
minutes" long after new steps had made `plan` say 3 h 18 min and 3 min 52 s; nothing tied
the prose to the planner. Every suite the README's "Suites" section lists states its time
as `plan` prints it (`(`plan`: 3 h 18 min`), and this test holds it within TOLERANCE of the
planner's estimate (and the free space stated for a suite to the space `plan` says it needs).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stackprobe.engine.preflight import space_needed
from stackprobe.plan.expand import expand
from stackprobe.suite.loader import builtin_names, load_suite
from stackprobe.units import fmt_seconds, parse_size

README = Path(__file__).resolve().parents[1] / "README.md"
TOLERANCE = 0.15  # of the planner's estimate: rounding in prose, not a stale figure
# "`standard` (`plan`: 3 h 18 min, 640 GiB free on the target)", "`io500-like` (`plan`: 27 s)"
STATED = re.compile(r"`([a-z0-9-]+)` \((?:default, )?`plan`: ((?:\d+ (?:h|min|s)\b ?)+)(?:, ([\d.]+ [KMGT]iB) free)?")


def suites_section() -> str:
    text = README.read_text()
    start = text.index("\n## Suites\n")
    return text[start:text.index("\n## ", start + 1)]


def seconds(stated: str) -> float:
    """'3 h 18 min' -> 11880, '1 min 32 s' -> 92, as units.fmt_seconds writes them."""
    factor = {"h": 3600, "min": 60, "s": 1}
    return sum(int(n) * factor[unit] for n, unit in re.findall(r"(\d+) (h|min|s)\b", stated))


def stated_figures() -> dict[str, tuple[float, str]]:
    return {name: (seconds(time), space) for name, time, space in STATED.findall(suites_section())}


def test_every_suite_the_readme_lists_states_the_plans_time():
    heads = [ln for ln in suites_section().splitlines() if ln.startswith("- `")]
    listed = {name for ln in heads for name in re.findall(r"`([a-z0-9-]+)`", ln)} & set(builtin_names())
    assert {"quick", "standard", "ceph-quick"} <= listed, listed  # the section was read
    assert listed <= set(stated_figures()), sorted(listed - set(stated_figures()))


@pytest.mark.parametrize("suite", sorted(stated_figures()))
def test_the_readmes_time_is_the_plans_estimate(suite):
    assert suite in builtin_names(), f"README names {suite!r}, not a built-in suite"
    stated_s, stated_space = stated_figures()[suite]
    loaded = load_suite(suite)
    steps = expand(loaded.suite, loaded.base_dir, None)  # as `stackprobe plan NAME` prints it
    estimate = sum(s.estimate_s for s in steps)
    assert abs(stated_s - estimate) <= TOLERANCE * estimate, (suite, stated_s, estimate)
    if stated_space:
        need, _ = space_needed([s for s in steps if not s.hosts])
        stated = parse_size(stated_space.replace(" ", ""))
        assert abs(stated - need) <= TOLERANCE * need, (suite, stated_space, need)


def test_the_stated_time_is_read_as_plan_writes_it():
    for s in (0, 27, 92, 184, 3599, 3600, 5400, 11880, 14340):
        assert seconds(fmt_seconds(s)) == s - s % 60 * (s >= 3600)
    assert seconds("2 h 25 min") == 8700 and seconds("3 min 04 s") == 184
