"""The latency-bounded search on synthetic devices whose answer is known exactly.

A closed-loop device with service capacity X IOPS and unloaded latency L0 (Little's law):
with C outstanding I/Os it does min(C / L0, X) IOPS at mean latency C / IOPS (plus a small
queueing term); a tail percentile is a fixed multiple of the mean. The true answer is the
best passing setting, found by trying every setting.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stackprobe.analysis.slo_search import Probe, ramp, search


def little_device(x_max: float, l0_ns: float, tail: float = 3.0, qd: int = 1, collapse: float = 0.0):
    def measure(numjobs: int) -> Probe:
        c = numjobs * qd
        iops = min(c / (l0_ns / 1e9), x_max)
        if collapse and c * l0_ns / 1e9 > 2 * x_max * l0_ns / 1e9:  # thrashing past 2x saturation
            iops *= max(0.2, 1 - collapse * (c / (x_max * l0_ns / 1e9) - 2))
        # below saturation a real device still queues a little more with each I/O: latency
        # rises strictly with load (a flat model makes float rounding decide the answer)
        lat = tail * c / iops * 1e9 * (1 + 1e-3 * c)
        return Probe(numjobs, iops, lat, seconds=10.0)
    return measure


def truth(measure, lo, hi, limit):
    passing = [p for p in (measure(x) for x in range(lo, hi + 1)) if p.latency_ns <= limit]
    return max(passing, key=lambda p: p.iops) if passing else None


def test_knee_far_from_start_costs_a_fraction_of_the_ramp():
    # 100k IOPS, 100 us unloaded: saturated from 10 outstanding I/Os; p99 <= 1 ms needs <= 33
    measure = little_device(100_000, 100_000, qd=1)
    s = search(measure, 1, 64, 1_000_000)
    r = ramp(measure, 1, 64, 1_000_000)
    best = truth(measure, 1, 64, 1_000_000)
    assert s.answer.latency_ns <= 1_000_000
    assert s.answer.iops >= 0.95 * best.iops
    assert r.answer.iops == best.iops
    assert s.device_seconds <= 0.33 * r.device_seconds, (len(s.probes), len(r.probes))


def test_limit_below_the_lowest_setting():
    s = search(little_device(1000, 5_000_000), 1, 16, 1_000_000)  # 5 ms unloaded, limit 1 ms
    assert s.answer is None and "lowest setting" in s.reason
    # the first geometric step fails, then the lowest: nothing more
    assert [p.setting for p in s.probes] == [4, 1]


def test_the_search_starts_a_geometric_step_above_the_lowest_setting():
    # a knee far above: 1 is never probed; a knee below the first step: 1 brackets it
    high = search(little_device(100_000, 100_000, qd=1), 1, 64, 1_000_000)
    assert [p.setting for p in high.probes][:2] == [4, 16]
    device = little_device(10_000, 200_000)  # p99 0.6 ms at one job, 1.2 ms at four
    low = search(device, 1, 16, 1_000_000)
    assert [p.setting for p in low.probes][:2] == [4, 1]
    assert low.answer.iops == truth(device, 1, 16, 1_000_000).iops
    assert search(little_device(1e6, 10_000), 3, 8, 1e9).probes[0].setting == 8  # capped


def test_limit_never_reached():
    s = search(little_device(1e6, 10_000), 1, 8, 1e9)
    assert s.answer.setting == 8 and "not reached" in s.reason


def test_bounds_are_checked():
    with pytest.raises(ValueError):
        search(little_device(1e5, 1e5), 0, 8, 1e6)
    with pytest.raises(ValueError):
        search(little_device(1e5, 1e5), 9, 8, 1e6)


def test_collapsing_device_still_answers_within_the_limit():
    measure = little_device(50_000, 200_000, collapse=0.3)
    s = search(measure, 1, 128, 2_000_000)
    assert s.answer is not None and s.answer.latency_ns <= 2_000_000
    assert all(s.probes.count(p) == 1 for p in s.probes), "no setting probed twice"


@settings(max_examples=200, deadline=None)
@given(
    x_max=st.floats(1_000, 2_000_000),
    l0_us=st.floats(20, 5_000),
    tail=st.floats(1.5, 10),
    limit_factor=st.floats(1.0, 50),
    hi=st.integers(2, 256),
)
def test_search_answers_within_tolerance_with_fewer_probes(x_max, l0_us, tail, limit_factor, hi):
    measure = little_device(x_max, l0_us * 1000, tail)
    limit = tail * l0_us * 1000 * limit_factor
    s = search(measure, 1, hi, limit)
    best = truth(measure, 1, hi, limit)
    if best is None:
        assert s.answer is None
        return
    assert s.answer.latency_ns <= limit
    assert s.answer.iops >= best.iops * (1 - 0.05) - 1e-6
    assert len(s.probes) <= len(ramp(measure, 1, hi, limit).probes) + 2
    assert len({p.setting for p in s.probes}) == len(s.probes)
    assert all(1 <= p.setting <= hi for p in s.probes)


def falling_past_the_knee(numjobs: int) -> Probe:
    """A device whose throughput falls once its latency passes the limit (its client's CPU
    shared by more jobs: the lab's RBD on 2 cores), so a failing probe far above the last
    passing one reads hardly more than it, while the settings between read much more."""
    plateau = 9500 * (1 - math.exp(-numjobs / 4))
    p99_ms = 0.6 + (numjobs / 15) ** 2 * 9.4
    iops = plateau if p99_ms <= 10 else 0.65 * plateau
    return Probe(numjobs, iops, p99_ms * 1e6, seconds=10.0)


def test_a_failing_probe_far_above_the_last_passing_one_does_not_end_the_search():
    s = search(falling_past_the_knee, 1, 32, 10e6)
    best = truth(falling_past_the_knee, 1, 32, 10e6)
    # the jump 4 -> 16 fails at 0.65x the plateau, within 5% of numjobs 4's IOPS: stopping
    # there answered numjobs 4, 35% below the best
    assert [p.setting for p in s.probes][:2] == [4, 16]
    assert s.answer.iops >= 0.95 * best.iops, (s.answer, best)
    assert len(s.probes) < len(ramp(falling_past_the_knee, 1, 32, 10e6).probes)
