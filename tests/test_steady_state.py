"""The SNIA PTS steady-state rule on per-interval series, by hand and on real rados bench runs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FIXTURES
from stackprobe.analysis.steady_state import SteadyState, check_window, first_steady, is_steady_now
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench


def _series(path):
    rec = parse_rados_bench(path.read_text())
    return [p.iops for p in rec.series], [p.t_s for p in rec.series]


# --- one window, by hand -------------------------------------------------------------------
# The least-squares slope over times 0..4 is sum((t - 2) * v) / 10 (sum of (t - 2)^2 = 10).


def test_flat_noisy_window():
    # mean 100; range (102 - 98) / 100 = 4%; slope (-200 - 102 + 0 + 101 + 198) / 10 = -0.3,
    # excursion 0.3 x 4 = 1.2 = 1.2% of the mean.
    ok, rng, exc = check_window([100, 102, 98, 101, 99])
    assert ok and rng == pytest.approx(0.04) and exc == pytest.approx(0.012)


def test_times_set_the_slope_but_not_the_excursion():
    # Samples every 2 s: slope halves (-0.15/s), the window lasts 8 s, excursion still 1.2.
    assert check_window([100, 102, 98, 101, 99], [0, 2, 4, 6, 8])[2] == pytest.approx(0.012)


def test_slow_drift_fails_on_the_trend_alone():
    # 100..112 by 3: mean 106, range 12/106 = 11.3% (within 20%), but the line rises
    # 3 x 4 = 12 = 11.3% of the mean (over 10%): the drift the range rule cannot see.
    ok, rng, exc = check_window([100, 103, 106, 109, 112])
    assert not ok
    assert rng == pytest.approx(12 / 106) and exc == pytest.approx(12 / 106)
    state = is_steady_now([100, 103, 106, 109, 112])
    assert state.reason == "not steady: the last 5 samples trend by 11% (limit 10%)"


def test_zigzag_fails_on_the_range_alone():
    # mean 110, range 25/110 = 22.7%, slope (-200 - 125 + 0 + 125 + 200) / 10 = 0.
    ok, rng, exc = check_window([100, 125, 100, 125, 100])
    assert not ok and rng == pytest.approx(25 / 110) and exc == pytest.approx(0, abs=1e-12)
    assert check_window([100, 125, 100, 125, 100], range_limit=0.25)[0], "thresholds are parameters"


def test_zero_io_is_a_stall_never_steady():
    assert check_window([0, 0, 0, 0, 0]) == (False, math.inf, math.inf)
    state = first_steady([0.0] * 8)
    assert not state.steady and state.reached_at_s is None
    assert "stalled" in state.reason


# --- scanning a series ---------------------------------------------------------------------


def test_first_steady_after_warm_up():
    # Windows 0-4 and 1-5 hold the ramp. Window 2-6 = 90, 100, 101, 99, 100: mean 98,
    # range 11/98 = 11.2%, slope (-180 - 100 + 0 + 99 + 200) / 10 = 1.9, excursion 7.6 = 7.76%.
    values = [10, 50, 90, 100, 101, 99, 100, 100, 100]
    state = first_steady(values)
    assert state == SteadyState(
        steady=True, window_start=2, window_end=6, reached_at_s=6.0, mean=98.0,
        range_pct=pytest.approx(100 * 11 / 98), excursion_pct=pytest.approx(100 * 7.6 / 98),
        reason=state.reason)
    assert state.reason == ("steady by sample 6 (window from sample 2): IOPS range 11% of their "
                            "mean 98.0 IOPS, trend 7.8% (limits 20%, 10%)")
    timed = first_steady(values, [10 * (i + 1) for i in range(9)])
    assert timed.reached_at_s == 70 and timed.reason.startswith("steady by 70 s (window from 30 s)")


def test_too_few_samples():
    state = first_steady([1, 2, 3])
    assert state == SteadyState(False, None, None, None, None, None, None,
                                "not steady: only 3 samples, a window needs 5")
    assert is_steady_now([1, 2, 3], k=3).window_end == 2


def test_is_steady_now_looks_at_the_end_only():
    values = [100, 101, 99, 100, 100, 100, 130, 170, 220, 280]
    assert first_steady(values).steady
    now = is_steady_now(values)
    assert not now.steady and (now.window_start, now.window_end) == (5, 9)
    assert now.mean == 180 and now.reached_at_s is None


def test_not_steady_names_the_stall_and_the_unit():
    state = is_steady_now([2e8, 2e8, 0, 2e8, 2e8], [1, 2, 3, 4, 5], unit="B/s")
    assert state.reason == ("not steady: the last 5 samples vary by 125% (limit 20%), "
                            "with a stall (0 B/s at 3 s)")
    steady = first_steady([2**27] * 5, unit="B/s")
    assert "bandwidth range 0.0% of their mean 128 MiB/s" in steady.reason


@pytest.mark.parametrize("kwargs", [
    dict(values=[1, 2, 3], times=[0, 1]),
    dict(values=[1, 2, 3], times=[0, 1, 1]),
    dict(values=[1, 2, 3], times=[0, 2, 1]),
    dict(values=[1, math.nan, 3]),
    dict(values=[1, 2, 3], times=[0, math.inf, 5]),
])
def test_bad_input(kwargs):
    with pytest.raises(ValueError):
        first_steady(**kwargs, k=2)


@pytest.mark.parametrize("k", [0, 1, 2.0])
def test_bad_k(k):
    with pytest.raises(ValueError):
        is_steady_now([1, 2, 3], k=k)


def test_a_window_needs_two_samples():
    with pytest.raises(ValueError):
        check_window([5])


# --- properties ----------------------------------------------------------------------------

positive = st.floats(min_value=1.0, max_value=1e6, allow_nan=False)
series = st.lists(positive, min_size=5, max_size=40)


@given(positive, st.integers(5, 60), st.integers(2, 10))
def test_constant_series_is_steady_from_the_start(level, n, k):
    if n < k:
        return
    state = first_steady([level] * n, k=k)
    assert state.steady and state.window_start == 0 and state.range_pct == 0
    assert state.excursion_pct == pytest.approx(0, abs=1e-9)
    assert is_steady_now([level] * n, k=k).steady


@given(positive, st.floats(1.06, 3.0), st.integers(5, 40), st.booleans())
def test_steep_ramp_is_never_steady(start, growth, n, falling):
    """A geometric ramp of >= 6% per sample spans >= 1.06^4 - 1 = 26% of a window's mean
    wherever the window is (a linear ramp would flatten, relative to its level, later on)."""
    values = [start * growth**i for i in range(n)]
    if falling:
        values.reverse()
    assert not first_steady(values).steady
    assert not is_steady_now(values).steady


@given(series, st.integers(-30, 30))
def test_scaling_by_a_power_of_two_changes_no_verdict(values, power):
    """Scaling by 2^p is exact in floating point, so every verdict must be identical."""
    scaled = [v * 2.0**power for v in values]
    for judge in (first_steady, is_steady_now):
        a, b = judge(values), judge(scaled)
        assert (a.steady, a.window_start, a.window_end) == (b.steady, b.window_start, b.window_end)
        assert a.range_pct == b.range_pct and a.excursion_pct == pytest.approx(b.excursion_pct, rel=1e-12)


@given(st.lists(positive, min_size=2, max_size=12), st.floats(1e-3, 1e3))
def test_scaling_by_any_constant_keeps_the_fractions(values, c):
    _, rng, exc = check_window(values)
    _, rng_c, exc_c = check_window([v * c for v in values])
    assert rng_c == pytest.approx(rng, rel=1e-9, abs=1e-12)
    assert exc_c == pytest.approx(exc, rel=1e-6, abs=1e-12)


@given(series)
def test_first_steady_is_the_first_steady_window(values):
    state = first_steady(values)
    verdicts = [check_window(values[i:i + 5])[0] for i in range(len(values) - 4)]
    if state.steady:
        assert verdicts.index(True) == state.window_start
        window = values[state.window_start:state.window_end + 1]
        # the mean of equal values can come out one ulp below them
        assert min(window) <= state.mean * (1 + 1e-12) and state.mean <= max(window) * (1 + 1e-12)
    else:
        assert not any(verdicts) and state.window_end == len(values) - 1


# --- real runs -----------------------------------------------------------------------------

PUBLIC_180S = FIXTURES / "public" / "rados" / "rados-bench_write_4K_qd16_180s_ceph15-octopus-dev_2019.txt"
CEPH = FIXTURES / "recorded" / "ceph"


def test_three_second_lab_runs_are_still_warming_up():
    """16.2.15, write 4M, 16 threads, 3 s: three per-second samples, too few for the PTS
    window of 5. Judged with k=3 anyway, both recordings are ramps, not plateaus:
    json 88, 97, 101: mean 95.33, range 13/95.33 = 13.6%, slope (101 - 88) / 2 = 6.5/s,
    excursion 13 = 13.6% (> 10%); text 83, 100, 104: mean 95.67, range and excursion
    21/95.67 = 22.0% (both over)."""
    json_v, json_t = _series(CEPH / "rados-bench-16.2.15_write_4M_t16_3s.json")
    text_v, text_t = _series(CEPH / "rados-bench-16.2.15_write_4M_t16_3s_text.txt")
    assert (json_v, text_v) == ([88, 97, 101], [83, 100, 104])
    assert first_steady(json_v, json_t).reason == "not steady: only 3 samples, a window needs 5"
    ok, rng, exc = check_window(json_v, json_t)
    assert not ok and rng == pytest.approx(13 / (286 / 3)) and exc == pytest.approx(13 / (286 / 3))
    state = first_steady(text_v, text_t, k=3)
    assert not state.steady and state.mean == pytest.approx(287 / 3)
    assert state.range_pct == pytest.approx(2100 / (287 / 3)) == state.excursion_pct
    assert "vary by 22% (limit 20%) and trend by 22% (limit 10%)" in state.reason


def test_five_second_lab_runs_are_steady():
    """16.2.15, write 4K, 16 threads, 5 s, recorded twice.
    json 1747, 1814, 1775, 1814, 1781: mean 1786.2, range 67 = 3.75%, slope
    (-3494 - 1814 + 1814 + 3562) / 10 = 6.8/s, excursion 27.2 = 1.52%.
    text 1707, 1782, 1791, 1833, 1873: mean 1797.2, range 166 = 9.24%, slope
    (-3414 - 1782 + 1833 + 3746) / 10 = 38.3/s, excursion 153.2 = 8.52%: steady by the rule,
    but still climbing at nearly the limit."""
    v, t = _series(CEPH / "rados-bench-16.2.15_write_4K_t16_5s_cleanup.json")
    state = first_steady(v, t)
    assert state.steady and state.reached_at_s == 5 and state.mean == pytest.approx(1786.2)
    assert state.range_pct == pytest.approx(6700 / 1786.2) and state.excursion_pct == pytest.approx(2720 / 1786.2)
    v, t = _series(CEPH / "rados-bench-16.2.15_write_4K_t16_5s_text.txt")
    state = is_steady_now(v, t)
    assert state.steady and state.mean == pytest.approx(1797.2)
    assert state.range_pct == pytest.approx(16600 / 1797.2)
    assert state.excursion_pct == pytest.approx(15320 / 1797.2)


def test_public_180s_run_with_stalls():
    """A 180 s 4K write (Ceph 15 dev cluster, 2019) with two regimes. Seconds 1-37 run at
    about 130-300 IOPS; at 38 s the rate collapses to about 65 IOPS (16 writes in flight at
    about 250 ms each) with bursts of about 130 and stalls: 0 IOPS at 123 s, 7 at 156 s.

    - The first steady window is 12-16 s: 238, 239, 228, 216, 226; mean 229.4, range
      23 = 10.03%, slope (-476 - 239 + 216 + 452) / 10 = -4.7/s, excursion 18.8 = 8.20%.
      Every earlier window holds 148 (11 s) or 169 (2 s) or trends too much: 3-7 s
      (209, 213, 180, 179, 201) has range 17.3% but slope (-418 - 213 + 179 + 402) / 10 = -5,
      excursion 20/196.4 = 10.2%, just over the limit.
    - No window around a stall can be steady: a 0 or 7 in a window averaging about 50-90
      is a range of well over 20%, whatever the trend.
    - After the collapse the series is steady again, briefly, at the new level: from 40 s on
      the first steady window is 59-63 s: 65, 67, 69, 64, 65; mean 66, range 5 = 7.6%,
      slope (-130 - 67 + 64 + 130) / 10 = -0.3, excursion 1.2 = 1.8%.
    - The run ends unsteady, and the run's average (17500 writes / 180.638 s = 96.9 IOPS)
      describes neither regime: a steady window early on says nothing about the rest.
    """
    values, times = _series(PUBLIC_180S)
    assert len(values) == 180 and times[0] == 1 and times[-1] == 180

    first = first_steady(values, times)
    assert (first.steady, first.window_start, first.window_end, first.reached_at_s) == (True, 11, 15, 16)
    assert first.mean == pytest.approx(229.4)
    assert first.range_pct == pytest.approx(2300 / 229.4)
    assert first.excursion_pct == pytest.approx(1880 / 229.4)
    assert first.reason.startswith("steady by 16 s (window from 12 s): IOPS range 10% of their mean 229 IOPS")
    ok, rng, exc = check_window(values[2:7], times[2:7])
    assert not ok and rng == pytest.approx(34 / 196.4) and exc == pytest.approx(20 / 196.4)

    for stall_s, level in ((123, 0), (156, 7)):
        assert values[stall_s - 1] == level
        for end_s in range(stall_s, stall_s + 5):  # every 5 s window that holds the stall
            state = is_steady_now(values[:end_s], times[:end_s])
            assert not state.steady and state.range_pct > 100, (stall_s, end_s)
        assert "with a stall (0 IOPS at 123 s)" in is_steady_now(values[:125], times[:125]).reason

    late = first_steady(values[39:], times[39:])
    assert (late.steady, late.reached_at_s, late.mean) == (True, 63, 66)
    assert late.range_pct == pytest.approx(500 / 66) and late.excursion_pct == pytest.approx(120 / 66)

    assert not is_steady_now(values, times).steady
    assert not first_steady(values[39:], times[39:], k=10).steady, "never 10 s in a row after the collapse"
    run_mean = 17500 / 180.638
    assert late.mean < run_mean * 0.7 and first.mean > run_mean * 2
