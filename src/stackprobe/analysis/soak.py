"""Was each pair steady under the soak's load? The soak's figures from its per-second series.

Seed 004 stressed the network for a long time after finding slow cables, because "the
network state directly affects storage stability": a link that holds its rate alone can
still sag, stall or flap when every link is loaded at once. Per pair (data from one host
to another, all pairs loaded together):

- the stability verdict is the project's own on a per-second series (analysis/stability.py,
  the one fio's and the benches' series get: CoV over time, dips below a fraction of the
  median, stalls), on each `period` (an hour by default) alone, as the storage soaks judge
  theirs (analysis/soak_series.py: a drift over hours is not averaged into a day's CoV, and
  a stall in hour 17 is not diluted by the other 23), a period whose mean fell below the
  median period's counting as fluctuating: `stable`, or `unstable` when the worst period
  says fluctuating or stalled, or `failed` when the pair gave no second at all;
- `slow`: its mean is below `slow_fraction` of the median pair's (needs 3 pairs: with
  fewer the median cannot tell the odd one) - slow is a rate, not instability, so a
  slow-but-stable pair stays `stable` with the flag;
- `counters`: an error or drop counter of either end grew during the soak (the deltas are
  per host, the pairs on a host share them);
- `chunk errors`: some chunks failed while others measured; the pair is `unstable`.

The seconds are folded in chunk by chunk as the soak runs (`SoakSeries`: constant memory per
pair whatever the soak's length), and the series kept in results.json is bounded
(`downsample`): hours of seconds become at most `max_points` points, each with its mean,
slowest and fastest second, so a one-second dip stays visible in the kept series.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence

from stackprobe.analysis.soak_series import PERIOD_LABEL, PERIOD_S, SoakSeries
from stackprobe.analysis.stability import COV_LIMIT, DIP_FRACTION, MIN_POINTS
from stackprobe.schema.records import SeriesPoint
from stackprobe.schema.soak_records import SoakPairRecord, SoakPoint
from stackprobe.schema.storage_soak_records import SoakSample

MAX_POINTS = 600
SLOW_FRACTION = 0.7
MIN_PAIRS_FOR_MEDIAN = 3
# counters that count something gone wrong (not traffic): NIC statistics and IB port counters
_ERROR_COUNTER = re.compile(
    r"error|drop|discard|crc|fifo|missed|collision|carrier|downed|overrun|recovery")


def downsample(samples: Sequence[SoakSample], max_points: int = MAX_POINTS) -> list[SoakPoint]:
    """At most `max_points` points from the kept series (analysis/soak_series.py: seconds
    at each end, buckets between): consecutive samples merged until a point holds the
    soak's seconds / max_points seconds, each point their mean (weighted by seconds), the
    slowest and the fastest second in it."""
    if max_points < 1:
        raise ValueError(f"max_points must be >= 1, not {max_points}")
    kept = [s for s in samples if s.bw_bytes is not None]
    width = math.ceil(sum(s.seconds for s in kept) / max_points) if kept else 1
    out: list[SoakPoint] = []
    group: list[SoakSample] = []
    seconds = 0
    for at, sample in enumerate(kept):
        group.append(sample)
        seconds += sample.seconds
        if seconds >= width or at == len(kept) - 1:
            out.append(SoakPoint(
                t_s=group[-1].t_s, seconds=seconds,
                bw_bytes=sum((s.bw_bytes or 0.0) * s.seconds for s in group) / seconds,
                bw_min_bytes=min(s.bw_min_bytes for s in group if s.bw_min_bytes is not None),
                bw_max_bytes=max(s.bw_max_bytes for s in group if s.bw_max_bytes is not None)))
            group, seconds = [], 0
    return out


def fold(series: Iterable[SeriesPoint], *, period_s: float = PERIOD_S,
         cov_limit: float = COV_LIMIT, dip_fraction: float = DIP_FRACTION,
         label: str = "") -> SoakSeries:
    """A whole series folded at once (a soak folds its chunks as they end instead)."""
    out = SoakSeries(period_s=period_s, cov_limit=cov_limit, dip_fraction=dip_fraction,
                     period_label=label or PERIOD_LABEL)
    for point in series:
        out.add(point)
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


def judge_pair(rec: SoakPairRecord, series: SoakSeries,
               max_points: int = MAX_POINTS) -> SoakPairRecord:
    """Fill the pair's figures, periods, stability and verdict from its folded seconds:
    each period judged alone by the project's rule, the worst period the pair's word, a
    period whose mean fell below the median period's (drift) fluctuating too
    (analysis/soak_series.py)."""
    label = f"{rec.client}→{rec.server}"
    figures = series.figures()
    rec.seconds, rec.period_s = figures["seconds"], figures["period_s"]
    rec.points = downsample(figures["points"], max_points)
    rec.periods = figures["periods"]
    if not rec.seconds:
        rec.verdict = "failed"
        rec.error = rec.error or "no second measured"
        return rec
    rec.mean_bps = figures["mean"] * 8
    rec.min_bps, rec.max_bps = figures["min"] * 8, figures["max"] * 8
    if rec.seconds < MIN_POINTS:
        rec.verdict = "failed"
        rec.error = rec.error or "too few seconds to judge"
        return rec
    rec.cov, rec.stability = figures["cov"], figures["verdict"]
    rec.verdict = "stable" if rec.stability == "stable" else "unstable"
    if rec.verdict != "stable":
        rec.notes.insert(0, _one_sentence(label, figures["notes"]))
        rec.flags.insert(0, rec.stability)
    if rec.chunks_failed:  # a link that refused or dropped a chunk is not a stable one
        rec.verdict = "unstable"
        rec.flags.append("chunk errors")
        rec.notes.append(f"{label}: {rec.chunks_failed} of {rec.chunks + rec.chunks_failed} "
                         f"chunks failed ({rec.error})")
    return rec


def _one_sentence(label: str, notes: Sequence[str], shown: int = 3) -> str:
    """The flag's one sentence from its periods' (a day can have 24): the first few, then
    how many more; each starting with the pair's name."""
    named = [n if n.startswith(label) else f"{label}, {n}" for n in notes]
    if len(named) <= shown:
        return "; ".join(named)
    return "; ".join(named[:shown]) + f"; and {len(named) - shown} more period(s)"


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
