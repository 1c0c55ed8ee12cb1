"""Confirming a latency-bounded answer: re-measure until it holds under noise.

The search (analysis/slo_search.py) picks the best passing probe, one probe per setting.
On a real device two identical probes differ: measured on the lab's RBD, 5-18% on a busy
machine. Taking the best of a handful of single probes then rewards the luckiest one (the
answer drifted 18.5% from the linear ramp's), and a setting that met the limit once may
not meet it again. So, once the bracket is found, the candidates are measured again:

- the answer's own setting, until the standard error of its repeats' mean IOPS is within
  `tolerance` of that mean (two probes at least: one says nothing of its own noise);
- the neighbours of the knee that could change the answer: a failing setting above it
  whose IOPS would beat the answer by more than `tolerance` if it met the limit, and
  whose percentile was within `NEAR` of the limit (it may meet it on a second look);
  a passing setting whose mean IOPS is within the answer's band (it may be the better
  one). A neighbour is settled once it has as many probes as `SETTLED`;
- the gap a lost answer leaves: when the answer's setting fails on a second look, the next
  passing setting below it can lie far under it (the search jumped from numjobs 4 to 16,
  16 passed once at 9.9 ms and failed again at 12.9: measured on the lab's RBD, where 12
  to 14 met the limit at 15% more IOPS than 4). Nothing between was probed, so when the
  lowest failing setting above the answer is more than one step away and bounds nothing
  (the search's own rule, `slo_search.bounds`), a setting inside the gap is probed —
  where the line through the two settings' mean percentiles reaches the limit, else the
  middle — before anything else, and outside the `budget`: the search's bracket has
  reopened and is closed again (each such probe is a setting never probed before, inside
  the gap, so they end; a bisection's few).

A setting's figures are its repeats' means: its IOPS, and its percentile, which decides
whether it meets the limit. The candidate with the fewest probes goes next (the answer
first on a tie), so repeats interleave and a slow drift of the device hits them alike.
It stops when nothing is open or the `budget` of extra probes is spent (and no gap is
open); the answer then carries its interval and the number of probes behind it, and the
reason says which.

The interval is ± one standard error of the mean (the sample standard deviation over
√n): with two probes, half their difference. It is a statement about these probes, not
a guarantee; a budget spent before the tolerance is met is said in so many words.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from stackprobe.analysis.slo_search import Probe, SloResult, bounds, inside

NEAR = 0.25  # a failing neighbour within 25% of the limit may pass when measured again
SETTLED = 2  # probes after which a neighbour's side of the limit is taken as known


@dataclass(frozen=True)
class Setting:
    """Every probe at one setting, combined."""

    setting: int
    iops: tuple[float, ...]
    latency_ns: tuple[float, ...]
    seconds: float

    @property
    def n(self) -> int:
        return len(self.iops)

    @property
    def mean_iops(self) -> float:
        return statistics.fmean(self.iops)

    @property
    def mean_latency_ns(self) -> float:
        return statistics.fmean(self.latency_ns)

    @property
    def uncertainty(self) -> float | None:
        """± one standard error of the mean IOPS, relative to it; None from one probe."""
        if self.n < 2 or self.mean_iops <= 0:
            return None
        return statistics.stdev(self.iops) / math.sqrt(self.n) / self.mean_iops


def settings(probes: list[Probe]) -> dict[int, Setting]:
    """The probes grouped by setting, in ascending setting order."""
    grouped: dict[int, list[Probe]] = {}
    for p in probes:
        grouped.setdefault(p.setting, []).append(p)
    return {x: Setting(x, tuple(p.iops for p in ps), tuple(p.latency_ns for p in ps),
                       sum(p.seconds for p in ps)) for x, ps in sorted(grouped.items())}


def best(by_setting: dict[int, Setting], limit_ns: float) -> Setting | None:
    """The passing setting with the highest mean IOPS; on a tie the lower setting."""
    passing = [s for s in by_setting.values() if s.mean_latency_ns <= limit_ns]
    return max(passing, key=lambda s: (s.mean_iops, -s.setting), default=None)


def open_candidates(by_setting: dict[int, Setting], answer: Setting, limit_ns: float,
                    tolerance: float) -> list[Setting]:
    """What must be measured again before the answer holds (see module docstring)."""
    out = []
    u = answer.uncertainty
    if u is None or u > tolerance:
        out.append(answer)
    band = max(tolerance, u or 0.0)
    for s in by_setting.values():
        if s is answer or s.n >= SETTLED:
            continue
        if s.mean_latency_ns > limit_ns:
            could_win = s.mean_iops > answer.mean_iops * (1 + tolerance)
            if s.setting > answer.setting and could_win and \
                    s.mean_latency_ns <= limit_ns * (1 + NEAR):
                out.append(s)
        elif s.mean_iops >= answer.mean_iops * (1 - band):
            out.append(s)
    return out


def open_gap(by_setting: dict[int, Setting], answer: Setting, limit_ns: float,
             tolerance: float) -> int | None:
    """A setting to probe between the answer and the lowest failing setting above it, when
    nothing between them was probed and that failing setting bounds nothing; else None."""
    above = next((s for s in by_setting.values() if s.setting > answer.setting), None)
    if above is None or above.mean_latency_ns <= limit_ns or above.setting - answer.setting <= 1:
        return None
    failing = _as_probe(above)
    if bounds(failing, answer.setting, answer.mean_iops, tolerance):
        return None  # nothing between can be worth more than the tolerance
    return inside(_as_probe(answer), failing, limit_ns)


def _as_probe(s: Setting) -> Probe:
    return Probe(s.setting, s.mean_iops, s.mean_latency_ns, s.seconds)


def confirm(res: SloResult, measure: Callable[[int], Probe], *, tolerance: float,
            budget: int) -> SloResult:
    """Re-measure the search's candidates (module docstring); `res` is updated and
    returned: its probes gain the repeats, its answer becomes the confirmed setting's
    means, and `uncertainty`/`repeats` say how well it is known."""
    if res.answer is None or budget <= 0:
        return res
    spent = in_gap = 0
    searched = res.answer.setting
    while True:
        by_setting = settings(res.probes)
        answer = best(by_setting, res.limit_ns)
        if answer is None:  # every passing setting failed when measured again
            res.answer, res.uncertainty, res.repeats = None, None, 0
            res.reason = "no setting met the limit when measured again"
            return res
        gap = open_gap(by_setting, answer, res.limit_ns, tolerance)
        if gap is not None:  # the search's bracket reopened: closed again, budget or not
            res.probes.append(measure(gap))
            in_gap += 1
            continue
        todo = open_candidates(by_setting, answer, res.limit_ns, tolerance)
        if not todo or spent >= budget:
            break
        nxt = min(todo, key=lambda s: (s.n, s is not answer, s.setting))
        res.probes.append(measure(nxt.setting))
        spent += 1
    res.answer = _as_probe(answer)
    res.uncertainty, res.repeats = answer.uncertainty, answer.n
    if answer.setting != searched:
        res.reason += "; " + _moved(searched, answer.setting, in_gap)
    res.reason += "; " + _held(answer, tolerance, spent, todo)
    return res


def _moved(searched: int, setting: int, in_gap: int) -> str:
    between = f" ({in_gap} probe{'' if in_gap == 1 else 's'} in the settings between)"
    return (f"measured again, the answer moved from setting {searched} to {setting}"
            + (between if in_gap else ""))


def _held(answer: Setting, tolerance: float, spent: int, todo: list[Setting]) -> str:
    u = answer.uncertainty
    figure = f"± {u:.1%}" if u is not None else "no interval (one probe)"
    if not todo:
        return (f"confirmed: {answer.n} probes at the answer, {figure} "
                f"(within {tolerance:.0%}), {spent} extra")
    left = ", ".join(str(s.setting) for s in todo)
    return (f"probe budget spent ({spent} extra): {answer.n} probes at the answer, "
            f"{figure}; still open: setting {left}")
