"""Repeatability: spread, Student-t intervals and the adaptive repeat rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conftest import FIXTURES
from stackprobe.analysis.noise import Spread, should_repeat, spread, t_975
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench

# The 0.975 quantile of Student's t as printed (3 decimals) in the usual statistics tables.
PRINTED_T975 = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
]
PRINTED_T975_LARGE = {40: 2.021, 60: 2.000, 120: 1.980}


def _t_quantile_by_integration(df: int) -> float:
    """The t for which the t density integrates to 0.475 over [0, t]: composite Simpson on
    20000 intervals, bisection on t. An independent check of the table, from the definition."""
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def mass(t: float) -> float:
        x = np.linspace(0.0, t, 20001)
        f = np.exp(log_c - (df + 1) / 2 * np.log1p(x * x / df))
        h = t / 20000
        return h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())

    lo, hi = 0.0, 20.0
    for _ in range(55):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mass(mid) < 0.475 else (lo, mid)
    return (lo + hi) / 2


def test_t_table_matches_printed_tables():
    for df, printed in enumerate(PRINTED_T975, start=1):
        assert round(t_975(df), 3) == printed, df
    for df, printed in PRINTED_T975_LARGE.items():
        assert round(t_975(df), 3) == printed, df


@pytest.mark.parametrize("df", [*range(1, 31), 31, 35, 40, 60, 120, 1000])
def test_t_matches_the_density_integrated(df):
    assert t_975(df) == pytest.approx(_t_quantile_by_integration(df), abs=2e-7)


def test_t_is_continuous_at_the_end_of_the_table_and_falls_to_the_normal_quantile():
    # From 30 to 31 degrees of freedom the exact quantile falls by 0.00276 (2.04227 -> 2.03951);
    # the approximation must continue the table, not jump.
    assert t_975(30) - t_975(31) == pytest.approx(0.002759, abs=2e-6)
    values = [t_975(df) for df in range(1, 5001)]
    assert all(a > b for a, b in zip(values, values[1:]))
    assert values[-1] > 1.959964
    assert t_975(10**7) == pytest.approx(1.959964, abs=1e-6)


@pytest.mark.parametrize("df", [0, -1, 2.5, True])
def test_t_needs_positive_integer_df(df):
    with pytest.raises(ValueError):
        t_975(df)


def test_three_values_by_hand():
    # 10, 12, 14: mean 12; squared deviations 4 + 0 + 4 = 8, / (n-1) = 4, stddev 2;
    # CoV 2/12 = 0.16667; half width t(2) x 2 / sqrt(3) = 4.302653 x 1.154701 = 4.968275.
    s = spread([10, 12, 14])
    assert s.n == 3 and s.mean == 12 and s.stddev == pytest.approx(2)
    assert s.cov == pytest.approx(1 / 6)
    assert s.half_width == pytest.approx(4.968275, abs=1e-6)
    assert (s.ci95_low, s.ci95_high) == (pytest.approx(7.031725, abs=1e-6), pytest.approx(16.968275, abs=1e-6))
    assert s.values == (10.0, 12.0, 14.0)
    assert s.noisy() and s.noisy(0.16) and not s.noisy(0.17)


def test_one_value_gives_the_mean_only():
    s = spread([5])
    assert s == Spread(n=1, mean=5.0, stddev=None, cov=None, ci95_low=None, ci95_high=None, values=(5.0,))
    assert s.half_width is None and not s.noisy()


def test_cov_around_zero():
    assert spread([-1, 1]).cov == math.inf and spread([-1, 1]).noisy()
    assert spread([0, 0]).cov == 0 and not spread([0, 0]).noisy()
    assert spread([-10, -12, -14]).cov == pytest.approx(1 / 6), "relative to |mean|"


@pytest.mark.parametrize("bad", [[], [1.0, math.nan], [math.inf, 1.0], [-math.inf]])
def test_rejects_empty_and_non_finite(bad):
    with pytest.raises(ValueError):
        spread(bad)


@pytest.mark.parametrize(
    "values, kwargs, expected",
    [
        ([], dict(min_runs=3, max_runs=10), True),
        ([100, 101], dict(min_runs=3, max_runs=10), True),  # below min_runs, however tight
        ([100, 101, 99], dict(min_runs=3, max_runs=10), False),  # CoV 1% <= 5%
        ([100, 130, 70], dict(min_runs=3, max_runs=10), True),  # stddev 30: CoV 30%
        ([100, 130, 70], dict(min_runs=3, max_runs=3), False),  # noisy, but max_runs reached
        ([100, 130, 70, 100], dict(min_runs=3, max_runs=4), False),
        ([100], dict(min_runs=1, max_runs=5), True),  # one run has no CoV yet
        ([100], dict(min_runs=1, max_runs=1), False),
        ([100, 104], dict(min_runs=2, max_runs=5), False),  # stddev 2.83, CoV 2.8%
        ([100, 110], dict(min_runs=2, max_runs=5), True),  # stddev 7.07, CoV 6.7%
    ],
)
def test_should_repeat(values, kwargs, expected):
    assert should_repeat(values, cov_threshold=0.05, **kwargs) is expected


def test_should_repeat_checks_its_arguments():
    with pytest.raises(ValueError):
        should_repeat([1.0], cov_threshold=0.05, min_runs=0, max_runs=3)
    with pytest.raises(ValueError):
        should_repeat([1.0], cov_threshold=0.05, min_runs=4, max_runs=3)
    with pytest.raises(ValueError):
        should_repeat([1.0, math.nan], cov_threshold=0.05, min_runs=3, max_runs=5)


def test_repeated_rados_bench_runs():
    """Two recordings of the same benchmark (16.2.15, write 4M, 16 threads, 3 s), one with
    --format json and one in text: a real pair of repeated measurements.

    IOPS from the exact counts: 302 / 3.067061 s = 98.46560 and 303 / 3.04468 s = 99.51785.
    Mean 98.99172; stddev |a - b| / sqrt(2) = 1.052247 x 0.707107 = 0.744052; CoV 0.75164%.
    Half width t(1) x stddev / sqrt(2) = 12.70620 x 0.526124 = 6.68503: two runs that agree
    to 1% still only place the mean within +/- 6.8%, which is why the interval uses t.
    """
    ceph = FIXTURES / "recorded" / "ceph"
    runs = [parse_rados_bench((ceph / name).read_text())
            for name in ("rados-bench-16.2.15_write_4M_t16_3s.json",
                         "rados-bench-16.2.15_write_4M_t16_3s_text.txt")]
    s = spread([r.write.iops for r in runs])
    assert s.values == pytest.approx((98.46560, 99.51785), abs=1e-5)
    assert s.mean == pytest.approx(98.99172, abs=1e-5)
    assert s.stddev == pytest.approx(0.744052, abs=1e-6)
    assert s.cov == pytest.approx(0.0075164, abs=1e-7)
    assert s.half_width == pytest.approx(6.68503, abs=1e-5)
    assert not s.noisy()
    assert not should_repeat(s.values, cov_threshold=0.05, min_runs=2, max_runs=5)
    assert should_repeat(s.values, cov_threshold=0.005, min_runs=2, max_runs=5)


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_subnormal=False)


@given(st.lists(finite, min_size=2, max_size=40))
def test_interval_contains_the_mean(values):
    s = spread(values)
    assert s.ci95_low <= s.mean <= s.ci95_high
    assert min(values) - 1e-6 <= s.mean <= max(values) + 1e-6
    assert s.stddev >= 0 and s.cov >= 0


@given(st.lists(finite, min_size=2, max_size=20), st.integers(2, 5))
def test_interval_narrows_with_more_samples_of_the_same_spread(values, copies):
    """The same values again (same spread) can only make the mean surer: the stddev does
    not grow, t falls with the degrees of freedom and sqrt(n) grows."""
    once = spread(values)
    assume(once.stddev > 1e-3)
    more = spread(values * copies)
    assert more.stddev <= once.stddev * (1 + 1e-12)
    assert more.half_width < once.half_width
    assert more.mean == pytest.approx(once.mean, abs=1e-6)


@given(st.lists(finite, min_size=0, max_size=12), st.integers(1, 6), st.integers(0, 6),
       st.floats(0, 1))
def test_should_repeat_bounds(values, min_runs, extra, threshold):
    max_runs = min_runs + extra
    verdict = should_repeat(values, cov_threshold=threshold, min_runs=min_runs, max_runs=max_runs)
    if len(values) < min_runs:
        assert verdict
    elif len(values) >= max_runs:
        assert not verdict
    else:
        assert verdict == (len(values) < 2 or spread(values).noisy(threshold))
