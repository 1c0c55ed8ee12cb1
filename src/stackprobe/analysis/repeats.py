"""A repeated step's runs -> one summary an expert can trust.

Throughput figures (IOPS, bandwidth, ops/s) are the mean over runs; mean latencies too.
Percentiles are not averaged: they come from the merged histograms of every run's I/Os
(all the I/Os the step did, as if it had been one long run). The headline figure carries
its spread over runs: mean, 95% confidence interval, coefficient of variation, and whether
that CoV makes it noisy.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from stackprobe.analysis.histogram import merge_bins, percentiles
from stackprobe.analysis.noise import spread
from stackprobe.schema.records import IoRecord
from stackprobe.schema.results import DirectionSummary, IoGroupSummary, RepeatStats, StepSummary

DEFAULT_NOISY_COV = 0.05
_DIRECTIONS = ("read", "write", "trim")


def summarise_repeated(
    headline: str | None,
    records: Sequence[object],
    summarise_one: Callable[[str | None, Sequence[object]], StepSummary | None],
    noisy_cov: float = DEFAULT_NOISY_COV,
) -> StepSummary | None:
    runs = sorted({getattr(r, "repetition", None) or 0 for r in records})
    per_run = [summarise_one(headline, [r for r in records
                                        if (getattr(r, "repetition", None) or 0) == k])
               for k in runs]
    per_run = [s for s in per_run if s is not None]
    if not per_run:
        return None
    first = per_run[0]
    out = StepSummary(tool=first.tool, headline_unit=first.headline_unit)
    io = [r for r in records if isinstance(r, IoRecord)]
    for i, group in enumerate(first.io):
        same = [s.io[i] for s in per_run if len(s.io) > i]
        out.io.append(_mean_group(group, same, io))
    for field in ("ops", "ops_lat_mean_ns", "membw"):
        dicts = [getattr(s, field) for s in per_run]
        keys = [k for k in dicts[0] if all(k in d for d in dicts)]
        setattr(out, field, {k: statistics.fmean(d[k] for d in dicts) for k in keys})
    values = [s.headline_value for s in per_run if s.headline_value is not None]
    if values:
        sp = spread(values)
        out.headline_value = sp.mean
        out.repeat = RepeatStats(
            n=sp.n, values=list(sp.values), mean=sp.mean, stddev=sp.stddev, cov=sp.cov,
            ci95_low=sp.ci95_low, ci95_high=sp.ci95_high, noisy=sp.noisy(noisy_cov),
        )
    return out


def _mean_group(group: IoGroupSummary, same: list[IoGroupSummary],
                records: list[IoRecord]) -> IoGroupSummary:
    out = IoGroupSummary(label=group.label, groupid=group.groupid, host=group.host)
    mine = [r for r in records if (r.host, r.groupid) == (group.host, group.groupid)]
    for d in _DIRECTIONS:
        dirs = [getattr(g, d) for g in same if getattr(g, d) is not None]
        if not dirs:
            continue
        stats = [getattr(r, d) for r in mine if getattr(r, d) is not None and getattr(r, d).active]
        setattr(out, d, DirectionSummary(
            iops=statistics.fmean(x.iops for x in dirs),
            bw_bytes=statistics.fmean(x.bw_bytes for x in dirs),
            lat_mean_ns=_mean_or_none([x.lat_mean_ns for x in dirs]),
            clat_mean_ns=_mean_or_none([x.clat_mean_ns for x in dirs]),
            clat_ns=_pooled([s.clat_bins for s in stats]),
            lat_ns=_pooled([s.lat_bins for s in stats]),
        ))
    return out


def _pooled(histograms: list[dict[int, int] | None]) -> dict[str, float]:
    """Percentiles of every run's I/Os together; none without every run's histogram."""
    if not histograms or not all(histograms):
        return {}
    return percentiles(merge_bins(histograms))  # type: ignore[arg-type]


def _mean_or_none(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if len(known) == len(values) and known else None
