"""The highest IOPS whose latency percentile stays within a limit (seed 000's "max 4k
randread IOPS with 99.9% of requests under 5 ms"), found in few probes.

Seed 000 raises numjobs one at a time, one long run each, until the limit is passed. Here a
setting (numjobs, iodepth or an offered rate) is probed geometrically, from the first step
above the lowest (`lo` x growth; `lo` itself only when that fails, so a knee above it
costs one probe less), until a probe fails the limit — or, once two passing probes show
latency rising, just past the setting where their line reaches the limit — which brackets
the answer; then the bracket is narrowed by interpolating the measured percentile (beyond
a device's knee, latency grows about linearly with outstanding I/O — Little's law),
falling back to bisection when interpolation stalls. It stops when the bracket is one step
wide, or when the failing probe's IOPS is within `tolerance` of
the best passing one's and the failing setting is at most twice the passing one (no setting
in between can then be worth more than that: further apart, a device whose throughput falls
past its knee can hide its best between them).

`measure(setting)` runs one probe; everything else here is arithmetic, so the search is
tested against synthetic devices as well as run against real ones. One probe per setting
says nothing of the noise: analysis/slo_confirm.py measures the candidates again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

OVERSHOOT = 0.05  # probe this far past a predicted crossing, so it is likely to fail
FLAT = 0.10  # latency rising less than this between two probes is the flat part
# a failing probe's IOPS bound the settings below it only this near (a factor): past a
# knee throughput can fall (more jobs sharing a client's CPU), so a probe far above the
# last passing one may read less than the settings between (measured on the lab's RBD:
# numjobs 4 at 7.9k IOPS, 16 failing at 7.3k, 12 to 16 passing at 9.4-9.5k in a ramp)
NEAR = 2


@dataclass(frozen=True)
class Probe:
    setting: int
    iops: float
    latency_ns: float  # the percentile the limit is about
    seconds: float = 0.0  # how long the device was loaded


@dataclass
class SloResult:
    limit_ns: float
    probes: list[Probe] = field(default_factory=list)  # in the order they ran
    answer: Probe | None = None  # best passing probe (confirmed: its setting's means)
    reason: str = ""
    uncertainty: float | None = None  # ± of the answer's IOPS, relative (slo_confirm.py)
    repeats: int = 1  # probes behind the answer
    best: Probe | None = None  # the ramp's: the best of its passing probes

    def passes(self, p: Probe) -> bool:
        return p.latency_ns <= self.limit_ns

    @property
    def device_seconds(self) -> float:
        return sum(p.seconds for p in self.probes)

    def knee(self) -> list[Probe]:
        """Every probe, by setting: the IOPS-vs-latency curve."""
        return sorted(self.probes, key=lambda p: p.setting)


def search(measure: Callable[[int], Probe], lo: int, hi: int, limit_ns: float, *,
           growth: int = 4, tolerance: float = 0.05) -> SloResult:
    """Adaptive search over integer settings lo..hi (see module docstring)."""
    if not 1 <= lo <= hi:
        raise ValueError(f"bounds must satisfy 1 <= lo <= hi, not {lo}..{hi}")
    res = SloResult(limit_ns)
    tried: dict[int, Probe] = {}

    def probe(x: int) -> Probe:
        if x not in tried:
            tried[x] = measure(x)
            res.probes.append(tried[x])
        return tried[x]

    first = probe(min(hi, lo * growth))  # the first geometric step; lo only if it fails
    good, bad = first, None
    if not res.passes(first):
        low = probe(lo)
        if not res.passes(low):
            res.reason = f"even the lowest setting ({lo}) exceeds the limit"
            return res
        good, bad = low, first
    previous: Probe | None = None
    while bad is None and good.setting < hi:  # 1. bracket: geometric, or just past the
        nxt = min(hi, good.setting * growth)  # crossing the rising latency points to
        crossing = _extrapolate(previous, good, limit_ns)
        if crossing is not None:
            nxt = min(nxt, max(good.setting + 1, math.ceil(crossing * (1 + OVERSHOOT))))
        p = probe(nxt)
        if res.passes(p):
            previous, good = good, p
        else:
            bad = p
    if bad is None:
        res.answer = _best(res)
        res.reason = f"the limit was not reached up to the highest setting ({hi})"
        return res
    last_side = None
    while bad.setting - good.setting > 1:  # 2. narrow the bracket
        if bounds(bad, good.setting, _best(res).iops, tolerance):
            res.reason = (f"settings between {good.setting} and {bad.setting} can gain at "
                          f"most {tolerance:.0%} IOPS")
            break
        stalled = last_side is not None and last_side[1] >= 2
        x = (good.setting + bad.setting) // 2 if stalled else inside(good, bad, limit_ns)
        p = probe(x)
        side = "good" if res.passes(p) else "bad"
        last_side = (side, last_side[1] + 1 if last_side and last_side[0] == side else 1)
        if side == "good":
            good = p
        else:
            bad = p
    else:
        res.reason = f"the limit lies between settings {good.setting} and {bad.setting}"
    res.answer = _best(res)
    return res


def ramp(measure: Callable[[int], Probe], lo: int, hi: int, limit_ns: float) -> SloResult:
    """Seed 000's method, the baseline: lo, lo+1, lo+2, ... until a probe fails; its answer
    is what the seed reports, the last setting that met the limit ("raise numjobs step by
    step to find the limit under 10 ms"). Not the best of all its probes: on a plateau of
    twenty noisy probes that is the luckiest one (measured on the lab's RBD: 12.4k IOPS
    at numjobs=13 among neighbours at 11.4-12.1k); `best` keeps that figure too."""
    res = SloResult(limit_ns)
    for x in range(lo, hi + 1):
        p = measure(x)
        res.probes.append(p)
        if not res.passes(p):
            break
    passing = [p for p in res.probes if res.passes(p)]
    res.answer = passing[-1] if passing else None
    res.best = _best(res) if passing else None
    res.reason = "linear ramp"
    return res


def bounds(failing: Probe, passing_setting: int, best_iops: float, tolerance: float) -> bool:
    """Whether a failing probe bounds every setting between `passing_setting` and its own:
    its IOPS within `tolerance` of the best passing figure, and its setting at most `NEAR`
    times the passing one (further apart, throughput can fall past a knee and hide the
    best between)."""
    return (failing.iops <= best_iops * (1 + tolerance)
            and failing.setting <= NEAR * passing_setting)


def _best(res: SloResult) -> Probe:
    return max((p for p in res.probes if res.passes(p)), key=lambda p: p.iops)


def _extrapolate(a: Probe | None, b: Probe, limit_ns: float) -> float | None:
    """Where the line through two passing probes reaches the limit; None unless latency
    rises between them (below the knee it is flat and says nothing)."""
    if a is None or b.latency_ns <= a.latency_ns * (1 + FLAT):
        return None
    slope = (b.latency_ns - a.latency_ns) / (b.setting - a.setting)
    return b.setting + (limit_ns - b.latency_ns) / slope


def inside(good: Probe, bad: Probe, limit_ns: float) -> int:
    """The next setting to probe strictly between a passing and a failing probe: where
    their line reaches the limit, else (latencies not rising) the middle."""
    x = _interpolate(good, bad, limit_ns)
    return x if x is not None else (good.setting + bad.setting) // 2


def _interpolate(good: Probe, bad: Probe, limit_ns: float) -> int | None:
    """The setting where the percentile reaches the limit on the line through two probes,
    kept strictly inside the bracket; None when the two latencies do not rise."""
    rise = bad.latency_ns - good.latency_ns
    if rise <= 0:
        return None
    x = good.setting + (limit_ns - good.latency_ns) * (bad.setting - good.setting) / rise
    return min(bad.setting - 1, max(good.setting + 1, round(x)))
