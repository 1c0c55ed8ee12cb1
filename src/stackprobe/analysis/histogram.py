"""Exact latency percentiles from fio's json+ completion-latency histograms.

fio keeps every completion in a log-linear histogram and prints each non-empty bin in
json+ as {bin value in ns: count}. Summing the bins of several jobs (or clients) gives the
histogram of all their I/Os together, and fio's own percentile rule applied to that sum
gives the percentiles fio would have printed for them as one group. Averaging the jobs'
percentiles instead is simply wrong (a p99 of two p99s is no p99 at all).

fio's rule (stat.c, calc_clat_percentiles): walking bins in ascending order with a running
count, percentile p is the value of the first bin where count >= p/100 * N. fio computes the
threshold in long double from p as a double, and the double nearest 99.95 is a little above
99.95: for N = 40000 the threshold is just above 39980, so 39980 I/Os are not enough. The
comparison here is exact (rational arithmetic on the same double), which agrees with fio;
double arithmetic rounds the threshold to 39980.0 and stops one bin early.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from stackprobe.schema.records import percentile_key

# The percentile list fio reports by default.
FIO_DEFAULT_PERCENTILES = (
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0,
    99.0, 99.5, 99.9, 99.95, 99.99,
)


def merge_bins(histograms: Iterable[Mapping[int, int]]) -> dict[int, int]:
    """Sum histograms bin by bin (associative and commutative, so any grouping works)."""
    merged: dict[int, int] = {}
    for hist in histograms:
        for value, count in hist.items():
            if count:
                merged[int(value)] = merged.get(int(value), 0) + int(count)
    return merged


def percentiles(
    bins: Mapping[int, int], wanted: Iterable[float] = FIO_DEFAULT_PERCENTILES
) -> dict[str, float]:
    """{'p50': ns, ...} from a histogram with fio's rule; {} for an empty histogram."""
    total = sum(bins.values())
    if total <= 0:
        return {}
    targets = sorted(float(p) for p in wanted)
    thresholds = [Fraction(p) * total / 100 for p in targets]  # exact: see module docstring
    out: dict[str, float] = {}
    items = sorted(bins.items())
    running = 0
    j = 0
    for value, count in items:
        running += count
        while j < len(targets) and running >= thresholds[j]:
            out[percentile_key(targets[j])] = float(value)
            j += 1
        if j == len(targets):
            break
    for p in targets[j:]:  # float rounding at 100%: the last bin
        out[percentile_key(p)] = float(items[-1][0])
    return out


def histogram_mean(bins: Mapping[int, int]) -> float | None:
    """Mean of the bin values (coarser than fio's exact mean; for checks only)."""
    total = sum(bins.values())
    if not total:
        return None
    return sum(v * c for v, c in bins.items()) / total
