"""How repeatable is a figure measured several times: mean, spread, 95% confidence interval.

A benchmark run is one sample of a noisy process. Before two setups are compared, or a
figure goes into a report, the question is whether running it again would give the same
answer. The coefficient of variation (stddev / mean) answers it in a unit-free way (5% is
the usual limit for "repeatable"), and the confidence interval says how far the true mean
may be from the measured one.

The interval uses Student's t, not the normal 1.96: with the 3 to 10 runs a benchmark can
afford, the sample stddev underestimates the spread often enough that 1.96 would give
intervals that miss the true mean far more often than 5% of the time (with 3 runs the
factor is 4.30, not 1.96).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

# Two-sided 95% (the 0.975 quantile) of Student's t for 1..30 degrees of freedom, to 8
# digits. Checked in tests/test_noise.py against the printed 3-decimal tables and against
# a numerical integration of the t density.
_T975 = (
    12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184,
    2.44691185, 2.36462425, 2.30600414, 2.26215716, 2.22813885,
    2.20098516, 2.17881283, 2.16036866, 2.14478669, 2.13144955,
    2.11990530, 2.10981558, 2.10092204, 2.09302405, 2.08596345,
    2.07961384, 2.07387307, 2.06865761, 2.06389856, 2.05953855,
    2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246,
)
_Z975 = 1.959963984540054  # the normal distribution's 0.975 quantile: the limit as df grows


def t_975(df: int) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom (95% two-sided).

    Exact (8 digits) from the table up to 30; beyond it the Cornish-Fisher expansion of t
    around the normal quantile (four terms in 1/df), whose error at df=31 is below 1e-7
    and shrinks from there, so the two join without a visible step.
    """
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"degrees of freedom must be a positive integer, not {df!r}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


@dataclass(frozen=True)
class Spread:
    """n measurements of one figure. With one value only the mean is known: the rest is None.

    cov is a fraction (0.05 = 5%) of |mean|; it is infinite when values scatter around a
    mean of exactly 0 (relative to nothing, any spread is too much).
    """

    n: int
    mean: float
    stddev: float | None  # sample standard deviation (n-1)
    cov: float | None
    ci95_low: float | None
    ci95_high: float | None
    values: tuple[float, ...]

    @property
    def half_width(self) -> float | None:
        """Half the 95% interval: the mean is known to +/- this much."""
        if self.ci95_low is None or self.ci95_high is None:
            return None
        return (self.ci95_high - self.ci95_low) / 2

    def noisy(self, threshold: float = 0.05) -> bool:
        """CoV above `threshold`. A single run cannot show noise, so it is not called noisy;
        `should_repeat` is what asks for the runs that can."""
        return self.cov is not None and self.cov > threshold


def spread(values: Sequence[float]) -> Spread:
    """Mean, sample stddev, CoV and Student-t 95% interval of repeated measurements."""
    vals = tuple(float(v) for v in values)
    if not vals:
        raise ValueError("spread of no values")
    if not all(math.isfinite(v) for v in vals):
        raise ValueError(f"non-finite value among {vals!r}")
    n = len(vals)
    mean = statistics.fmean(vals)
    if n == 1:
        return Spread(n=1, mean=mean, stddev=None, cov=None, ci95_low=None, ci95_high=None, values=vals)
    sd = statistics.stdev(vals)  # exact arithmetic inside: no cancellation on near-equal values
    if mean != 0:
        cov = sd / abs(mean)
    else:
        cov = 0.0 if sd == 0 else math.inf
    half = t_975(n - 1) * sd / math.sqrt(n)
    return Spread(n=n, mean=mean, stddev=sd, cov=cov, ci95_low=mean - half, ci95_high=mean + half,
                  values=vals)


def should_repeat(values: Sequence[float], *, cov_threshold: float, min_runs: int, max_runs: int) -> bool:
    """The adaptive rule: run again while fewer than `min_runs`, or while the CoV is above
    `cov_threshold` and fewer than `max_runs` have been made.

    max_runs bounds the cost when a system is simply noisy: its figures are then reported
    with their (wide) interval rather than chased forever. A single run has no CoV; when
    max_runs allows another, it is made, since one value cannot show it is repeatable.
    """
    if min_runs < 1 or max_runs < min_runs:
        raise ValueError(f"need 1 <= min_runs <= max_runs, not {min_runs}, {max_runs}")
    n = len(values)
    s = spread(values) if n else None  # validates the values whatever the verdict
    if n < min_runs:
        return True
    if n >= max_runs:
        return False
    return s.cov is None or s.cov > cov_threshold
