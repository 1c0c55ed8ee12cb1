"""bench/slo_search.py's noise lines: the probes' pooled noise and how often a median of K
such probes misses the truth by the goal's margin (what no search can beat)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from stackprobe.analysis.slo_search import Probe, SloResult

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from slo_search import probe_noise, reference_off  # noqa: E402


def _run(*pairs: tuple[int, float]) -> SloResult:
    return SloResult(10e6, probes=[Probe(s, iops, 1e6) for s, iops in pairs])


def test_probe_noise_pools_every_setting_probed_twice_or_more_across_runs():
    ramp = _run((1, 100.0), (2, 180.0), (3, 50.0))
    search = _run((1, 110.0), (2, 200.0))
    cov, settings = probe_noise([ramp, search])
    # setting 1: mean 105, ±5/105; setting 2: mean 190, ±10/190; 3 is probed once
    expected = math.sqrt((2 * (5 / 105) ** 2 + 2 * (10 / 190) ** 2) / 2)
    assert settings == 2
    assert cov == pytest.approx(expected)


def test_probe_noise_is_none_without_a_repeated_setting():
    assert probe_noise([_run((1, 100.0), (2, 180.0))]) == (None, 0)


def test_reference_off_matches_the_normal_law_for_one_probe_and_falls_with_k():
    # one probe: P(|N(0, c)| > t) = erfc(t / (c * sqrt 2)); c = t gives 31.7%
    assert reference_off(0.05, 1, 0.05) == pytest.approx(math.erfc(1 / math.sqrt(2)), abs=0.01)
    three, nine = reference_off(0.05, 3, 0.05), reference_off(0.05, 9, 0.05)
    assert nine < three < reference_off(0.05, 1, 0.05)
    assert reference_off(0.001, 3, 0.05) == 0.0
