"""A day of per-second figures in bounded memory: the storage soak's series, periods, totals.

A soak of 24-72 h gives 86,400-259,200 seconds per host. Keeping them all would make the
controller's memory, results.json and the report grow with the soak; so the seconds are
folded in as they arrive, chunk by chunk, and what is kept is bounded whatever the length:

- `SeriesKeeper`: every second of the first and of the last `keep_s` seconds as measured
  (the warm-up and the end are where a soak's story usually is), and in between buckets
  of `bucket_s` seconds - each its mean, slowest and fastest second, so a one-second stall
  in hour 17 is still a visible minimum - never more than `max_buckets` of them: past
  that, neighbouring buckets merge two by two and the width doubles (1 min, 2 min, ...).
- `PeriodJudge`: the project's stability rule (analysis/stability.py, the one every
  series gets) on each period (an hour by default) on its own; only the running period's
  seconds are held. An hour judged alone is the answer a soak needs: "hour 7 fluctuated"
  rather than one CoV over a day that a slow drift inflates and a short stall hides in.
- `RunningStats`: mean, CoV (Welford's update), min and max over every second.

`soak_verdict` joins them: the worst period's verdict, and a period whose mean fell below
`dip_fraction` of the median period's marked as drift (a cluster slowing as it fills or
rebalances is steady within each hour, and still not steady).
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from stackprobe.analysis.stability import COV_LIMIT, DIP_FRACTION, judge_series
from stackprobe.schema.records import SeriesPoint
from stackprobe.schema.storage_soak_records import SoakPeriod, SoakSample

KEEP_S = 600.0  # per-second points kept at each end of the soak
BUCKET_S = 60.0  # the middle's buckets, at first
MAX_BUCKETS = 1440  # a day of 1-minute buckets; longer soaks widen them
PERIOD_S = 3600.0
# how a period's sentence names it ({n}: its number from 1); a caller judging several
# series at once puts the series' name in it, one whose soak is a single period its name alone
PERIOD_LABEL = "period {n}"
_ORDER = {"stable": 0, "fluctuating": 1, "stalled": 2}


def period_label(name: str, one_period: bool) -> str:
    """How a named series' period sentences start: its name alone when the soak is a single
    period, else its name and the period's number."""
    return name if one_period else f"{name}, {PERIOD_LABEL}"


def metric_of(point: SeriesPoint) -> str:
    """What a soak judges: IOPS when the tool gives them, else bandwidth."""
    return "iops" if point.iops is not None else "bw_bytes"


@dataclass
class _Bucket:
    slot: int  # floor(t_s / width): buckets of one width are aligned on the soak's clock
    t_s: float = 0.0  # the end of its last second
    seconds: int = 0
    iops: list[float] = field(default_factory=lambda: [0.0, math.inf, -math.inf, 0])
    bw: list[float] = field(default_factory=lambda: [0.0, math.inf, -math.inf, 0])

    def add(self, p: SeriesPoint) -> None:
        self.t_s, self.seconds = max(self.t_s, p.t_s), self.seconds + 1
        for acc, value in ((self.iops, p.iops), (self.bw, p.bw_bytes)):
            if value is not None:
                acc[0] += value
                acc[1], acc[2], acc[3] = min(acc[1], value), max(acc[2], value), acc[3] + 1

    def merge(self, other: _Bucket) -> None:
        self.t_s, self.seconds = max(self.t_s, other.t_s), self.seconds + other.seconds
        for mine, theirs in ((self.iops, other.iops), (self.bw, other.bw)):
            mine[0] += theirs[0]
            mine[1], mine[2], mine[3] = (min(mine[1], theirs[1]), max(mine[2], theirs[2]),
                                         mine[3] + theirs[3])

    def sample(self) -> SoakSample:
        def triple(acc):
            return (acc[0] / acc[3], acc[1], acc[2]) if acc[3] else (None, None, None)

        iops, iops_min, iops_max = triple(self.iops)
        bw, bw_min, bw_max = triple(self.bw)
        return SoakSample(t_s=self.t_s, seconds=self.seconds, iops=iops, iops_min=iops_min,
                          iops_max=iops_max, bw_bytes=bw, bw_min_bytes=bw_min,
                          bw_max_bytes=bw_max)


# a second as held between its arrival and its fold: (t_s, iops, bw_bytes), a tenth of the
# memory of a model object - an hour of them is held for the running period
Second = tuple[float, float | None, float | None]


def _held(p: SeriesPoint) -> Second:
    return (p.t_s, p.iops, p.bw_bytes)


def _point(s: Second) -> SeriesPoint:
    return SeriesPoint(t_s=s[0], iops=s[1], bw_bytes=s[2])


def _second(s: Second) -> SoakSample:
    t_s, iops, bw = s
    return SoakSample(t_s=t_s, seconds=1, iops=iops, iops_min=iops, iops_max=iops,
                      bw_bytes=bw, bw_min_bytes=bw, bw_max_bytes=bw)


class SeriesKeeper:
    """The soak's per-second points, folded in as they come; `samples()` is bounded by
    2 x keep_s + max_buckets + 1 points whatever the soak's length."""

    def __init__(self, keep_s: float = KEEP_S, bucket_s: float = BUCKET_S,
                 max_buckets: int = MAX_BUCKETS):
        if keep_s < 0 or bucket_s <= 0 or max_buckets < 2:
            raise ValueError(f"keep_s >= 0, bucket_s > 0, max_buckets >= 2: not {keep_s}, "
                             f"{bucket_s}, {max_buckets}")
        self.keep_s, self.bucket_s, self.max_buckets = keep_s, bucket_s, max_buckets
        self.head: list[Second] = []
        self.tail: deque[Second] = deque()
        self.buckets: list[_Bucket] = []  # closed, in time order
        self.current: _Bucket | None = None
        self._start: float | None = None

    def add(self, point: SeriesPoint) -> None:
        if self._start is None:
            self._start = point.t_s - 1.0  # the first interval's beginning
        if point.t_s - self._start <= self.keep_s:
            self.head.append(_held(point))
            return
        self.tail.append(_held(point))
        while self.tail and self.tail[0][0] <= point.t_s - self.keep_s:
            self._fold(_point(self.tail.popleft()))

    def extend(self, points: Iterable[SeriesPoint]) -> None:
        for p in points:
            self.add(p)

    def _fold(self, p: SeriesPoint) -> None:
        slot = math.floor((p.t_s - 1e-9) / self.bucket_s)
        if self.current is not None and slot != self.current.slot:
            self.buckets.append(self.current)
            self.current = None
            if len(self.buckets) > self.max_buckets:
                self._widen()
        if self.current is None:
            self.current = _Bucket(slot)
        self.current.add(p)

    def _widen(self) -> None:
        """Twice as wide buckets: neighbours (on the soak's clock) merge."""
        self.bucket_s *= 2
        merged: list[_Bucket] = []
        for b in self.buckets:
            b.slot //= 2
            if merged and merged[-1].slot == b.slot:
                merged[-1].merge(b)
            else:
                merged.append(b)
        if self.current is not None:
            self.current.slot //= 2
            if merged and merged[-1].slot == self.current.slot:  # it goes on filling
                self.current.merge(merged.pop())
        self.buckets = merged

    def samples(self) -> list[SoakSample]:
        middle = [b.sample() for b in self.buckets]
        if self.current is not None:
            middle.append(self.current.sample())
        return ([_second(p) for p in self.head] + middle + [_second(p) for p in self.tail])

    def held(self) -> int:
        """Points held in memory now (the bound's check)."""
        return len(self.head) + len(self.tail) + len(self.buckets) + (self.current is not None)


class RunningStats:
    """Mean, population CoV, min and max of a stream, in constant memory (Welford)."""

    def __init__(self) -> None:
        self.n, self._mean, self._m2 = 0, 0.0, 0.0
        self.min, self.max = math.inf, -math.inf

    def add(self, value: float) -> None:
        self.n += 1
        delta = value - self._mean
        self._mean += delta / self.n
        self._m2 += delta * (value - self._mean)
        self.min, self.max = min(self.min, value), max(self.max, value)

    @property
    def mean(self) -> float | None:
        return self._mean if self.n else None

    @property
    def cov(self) -> float | None:
        if not self.n or self._mean <= 0:
            return None
        return math.sqrt(max(self._m2, 0.0) / self.n) / self._mean


class PeriodJudge:
    """Each period's seconds judged alone by the stability rule once the period ends."""

    def __init__(self, metric: str, period_s: float = PERIOD_S, *,
                 dip_fraction: float = DIP_FRACTION, cov_limit: float = COV_LIMIT,
                 label: str = PERIOD_LABEL):
        if period_s <= 0:
            raise ValueError(f"period must be > 0 s, not {period_s}")
        self.metric, self.period_s, self.label = metric, period_s, label
        self.dip_fraction, self.cov_limit = dip_fraction, cov_limit
        self.periods: list[SoakPeriod] = []
        self._index: int | None = None
        self._points: list[Second] = []

    def add(self, point: SeriesPoint) -> None:
        if getattr(point, self.metric) is None:
            return
        index = max(0, math.floor((point.t_s - 1e-9) / self.period_s))
        if self._index is not None and index != self._index:
            self.close()
        self._index = index
        self._points.append(_held(point))

    def close(self) -> None:
        """Judge the running period (at a period's end, and at the soak's)."""
        if self._index is None or not self._points:
            return
        points, index = [_point(s) for s in self._points], self._index
        self._points, self._index = [], None
        values = [getattr(p, self.metric) for p in points]
        label = self.label.replace("{n}", str(index + 1))
        judged = judge_series(points, label, dip_fraction=self.dip_fraction,
                              cov_limit=self.cov_limit, min_points=2)
        mean = statistics.fmean(values)
        period = SoakPeriod(
            index=index, start_s=index * self.period_s, end_s=points[-1].t_s,
            seconds=len(points), metric=self.metric, mean=mean,
            median=statistics.median(values), min=min(values), max=max(values),
            cov=judged["cov"] if judged else None,
            dip_seconds=judged["dip_seconds"] if judged else 0,
            stall_seconds=judged["stall_seconds"] if judged else sum(v == 0 for v in values),
            verdict=judged["verdict"] if judged else ("stalled" if 0 in values else "stable"),
            sentence=judged["sentence"] if judged else f"{label}: {len(points)} s")
        self.periods.append(period)


def drifted(periods: Sequence[SoakPeriod], dip_fraction: float = DIP_FRACTION
            ) -> list[SoakPeriod]:
    """Periods whose mean is below dip_fraction x the median period's mean (needs 3
    periods: with fewer there is no telling which one moved). A partial last period
    (under half the others' length) is not compared."""
    if len(periods) < 3:
        return []
    full = max(p.seconds for p in periods)
    whole = [p for p in periods if p.seconds >= full / 2]
    if len(whole) < 3:
        return []
    median = statistics.median(p.mean for p in whole)
    return [p for p in whole if median > 0 and p.mean < dip_fraction * median]


def soak_verdict(periods: Sequence[SoakPeriod], dip_fraction: float = DIP_FRACTION
                 ) -> tuple[str, list[str], list[str]]:
    """(verdict, flags, notes): the worst period's verdict, drift making a stable soak
    fluctuating; 'failed' when no period was measured."""
    if not periods:
        return "failed", [], []
    verdict = max((p.verdict for p in periods), key=_ORDER.__getitem__)
    flags, notes = [], [p.sentence for p in periods if p.verdict != "stable"]
    slow = drifted(periods, dip_fraction)
    if slow:
        flags.append("drift")
        full = max(p.seconds for p in periods)
        median = statistics.median(p.mean for p in periods if p.seconds >= full / 2)
        notes += [f"period {p.index + 1}: mean {p.mean / median:.2f}x the median period's "
                  f"(below {dip_fraction:.0%})" for p in slow]
        if verdict == "stable":
            verdict = "fluctuating"
    return verdict, flags, notes


MAX_RATE = 1e18  # per second, IOPS or bytes/s: far above any device; a point above is dropped


class SoakSeries:
    """A soak's seconds, all three folds at once: the kept points, the periods, the totals.
    Seconds no device could give (negative, above MAX_RATE) are counted and left out, so
    a day's sums stay finite whatever a tool printed."""

    def __init__(self, *, keep_s: float = KEEP_S, period_s: float = PERIOD_S,
                 dip_fraction: float = DIP_FRACTION, cov_limit: float = COV_LIMIT,
                 period_label: str = PERIOD_LABEL):
        self.keeper = SeriesKeeper(keep_s=keep_s)
        self.stats = RunningStats()
        self.period_s, self.dip_fraction, self.cov_limit = period_s, dip_fraction, cov_limit
        self.period_label = period_label
        self.periods: PeriodJudge | None = None
        self.dropped = 0

    def add(self, point: SeriesPoint) -> None:
        values = [v for v in (point.iops, point.bw_bytes) if v is not None]
        if not values or any(not 0 <= v <= MAX_RATE for v in values):
            self.dropped += 1
            return
        if self.periods is None:
            self.periods = PeriodJudge(metric_of(point), self.period_s,
                                       dip_fraction=self.dip_fraction, cov_limit=self.cov_limit,
                                       label=self.period_label)
        self.keeper.add(point)
        self.periods.add(point)
        value = getattr(point, self.periods.metric)
        if value is not None:
            self.stats.add(value)

    def figures(self) -> dict:
        """The soak record's series fields (closing the running period)."""
        if self.periods is not None:
            self.periods.close()
        periods = self.periods.periods if self.periods is not None else []
        verdict, flags, notes = soak_verdict(periods, self.dip_fraction)
        if self.dropped:
            notes.append(f"{self.dropped} second(s) left out: no rate, or one no device gives")
        n = self.stats.n
        return {"seconds": n, "metric": self.periods.metric if self.periods else "iops",
                "mean": self.stats.mean, "min": self.stats.min if n else None,
                "max": self.stats.max if n else None, "cov": self.stats.cov,
                "period_s": self.period_s, "keep_s": self.keeper.keep_s,
                "bucket_s": self.keeper.bucket_s, "verdict": verdict, "flags": flags,
                "notes": notes, "periods": periods, "points": self.keeper.samples()}
