"""Was each pair steady under the soak's load? The soak's figures from its per-second series.

Seed 004 stressed the network for a long time after finding slow cables, because "the
network state directly affects storage stability": a link that holds its rate alone can
still sag, stall or flap when every link is loaded at once. Per pair (data from one host
to another, all pairs loaded together):

- the stability verdict is the project's own on a per-second series (analysis/stability.py,
  the one fio's and the benches' series get: CoV over time, dips below a fraction of the
  median, stalls): `stable`, or `unstable` when that says fluctuating or stalled, or
  `failed` when the pair gave no second at all;
- `slow`: its mean is below `slow_fraction` of the median pair's (needs 3 pairs: with
  fewer the median cannot tell the odd one) - slow is a rate, not instability, so a
  slow-but-stable pair stays `stable` with the flag;
- `counters`: an error or drop counter of either end grew during the soak (the deltas are
  per host, the pairs on a host share them);
- `chunk errors`: some chunks failed while others measured; the pair is `unstable`.

The series kept in results.json is bounded (`downsample`): hours of seconds become at most
`max_points` buckets, each with its mean, slowest and fastest second, so a one-second dip
stays visible in the kept series.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence

from stackprobe.analysis.stability import COV_LIMIT, DIP_FRACTION, judge_series
from stackprobe.schema.records import SeriesPoint
from stackprobe.schema.soak_records import SoakPairRecord, SoakPoint

MAX_POINTS = 600
SLOW_FRACTION = 0.7
MIN_PAIRS_FOR_MEDIAN = 3
# counters that count something gone wrong (not traffic): NIC statistics and IB port counters
_ERROR_COUNTER = re.compile(
    r"error|drop|discard|crc|fifo|missed|collision|carrier|downed|overrun|recovery")


def downsample(series: Sequence[SeriesPoint], max_points: int = MAX_POINTS) -> list[SoakPoint]:
    """At most `max_points` buckets of consecutive seconds (the same number of seconds in
    each but the last), each its mean, minimum and maximum."""
    if max_points < 1:
        raise ValueError(f"max_points must be >= 1, not {max_points}")
    values = [(p.t_s, p.bw_bytes or 0.0) for p in series]
    size = max(1, math.ceil(len(values) / max_points))
    out = []
    for at in range(0, len(values), size):
        bucket = values[at:at + size]
        rates = [v for _, v in bucket]
        out.append(SoakPoint(t_s=bucket[-1][0], seconds=len(bucket),
                             bw_bytes=statistics.fmean(rates), bw_min_bytes=min(rates),
                             bw_max_bytes=max(rates)))
    return out


def counter_deltas(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """Error and drop counters read at both ends that grew, by how much (a counter that
    went down was reset: its after-value is what it counted since)."""
    out = {}
    for key, end in after.items():
        start = before.get(key)
        if start is None or not _ERROR_COUNTER.search(key.split(" ", 1)[-1]):
            continue
        grew = end - start if end >= start else end
        if grew:
            out[key] = grew
    return out


def judge_pair(rec: SoakPairRecord, series: Sequence[SeriesPoint], *,
               cov_limit: float = COV_LIMIT, dip_fraction: float = DIP_FRACTION,
               max_points: int = MAX_POINTS) -> SoakPairRecord:
    """Fill the pair's figures, stability and verdict from its whole per-second series."""
    label = f"{rec.client}→{rec.server}"
    rates = [p.bw_bytes for p in series if p.bw_bytes is not None]
    rec.seconds = len(rates)
    rec.points = downsample(series, max_points)
    if not rates:
        rec.verdict = "failed"
        rec.error = rec.error or "no second measured"
        return rec
    rec.mean_bps = statistics.fmean(rates) * 8
    rec.min_bps, rec.max_bps = min(rates) * 8, max(rates) * 8
    judged = judge_series(series, label, dip_fraction=dip_fraction, cov_limit=cov_limit)
    if judged is None:
        rec.verdict = "failed"
        rec.error = rec.error or "too few seconds to judge"
        return rec
    rec.cov, rec.stability = judged["cov"], judged["verdict"]
    rec.verdict = "stable" if judged["verdict"] == "stable" else "unstable"
    if rec.verdict != "stable":
        rec.notes.insert(0, judged["sentence"])
        rec.flags.insert(0, judged["verdict"])
    if rec.chunks_failed:  # a link that refused or dropped a chunk is not a stable one
        rec.verdict = "unstable"
        rec.flags.append("chunk errors")
        rec.notes.append(f"{label}: {rec.chunks_failed} of {rec.chunks + rec.chunks_failed} "
                         f"chunks failed ({rec.error})")
    return rec


def flag_slow(pairs: Sequence[SoakPairRecord], slow_fraction: float = SLOW_FRACTION) -> None:
    """Flag pairs whose mean is below `slow_fraction` of the median pair's."""
    means = [p.mean_bps for p in pairs if p.mean_bps is not None]
    if len(means) < MIN_PAIRS_FOR_MEDIAN:
        return
    median = statistics.median(means)
    for p in pairs:
        if p.mean_bps is not None and median > 0 and p.mean_bps < slow_fraction * median:
            p.flags.append("slow")
            p.notes.append(f"{p.client}→{p.server}: slow: {p.mean_bps / 1e6:.0f} Mbit/s, "
                           f"{p.mean_bps / median:.2f}× the median pair's "
                           f"{median / 1e6:.0f} Mbit/s under the same load")


def flag_counters(pairs: Sequence[SoakPairRecord], deltas: Mapping[str, Mapping[str, int]]
                  ) -> None:
    """Flag pairs with an end whose error or drop counters grew ({host: deltas})."""
    for p in pairs:
        grown = [f"{h} {k} +{v}" for h in (p.client, p.server)
                 for k, v in sorted((deltas.get(h) or {}).items())]
        if grown:
            p.flags.append("counters")
            p.notes.append(f"{p.client}→{p.server}: counters grew on its hosts: "
                           + ", ".join(grown))


def soak_verdict(pairs: Sequence[SoakPairRecord]) -> str:
    """The step's word: the worst pair's (failed > unstable > stable)."""
    order = {"stable": 0, "unstable": 1, "failed": 2}
    return max((p.verdict for p in pairs), key=order.__getitem__, default="failed")
