"""Advice from a concurrency sweep: which setting to use, and where more stops paying.

Seed 003 swept iodepth x numjobs and wrote its advice by eye. The same advice follows from
the figures, because a storage system under a closed-loop load obeys Little's law:
outstanding I/Os = throughput x mean latency. While the system has idle capacity, more
outstanding I/Os raise throughput and leave latency alone; once it is saturated, they only
wait in a queue, and latency grows in proportion while throughput stays put. So:

- the knee (`diminishing_from`) is the setting beyond which no more concurrency gains
  `gain_threshold` (5%) more throughput;
- `latency_outpaces_from` is where each further step raises latency by a larger fraction
  than throughput: from there on the extra I/Os mostly queue;
- the best setting is the highest throughput, or the highest whose latency meets a limit
  (a p99 target is the usual one).

Sweeps are noisy: a step can lose throughput by chance, or gain after a loss. The rules are
therefore stated over everything beyond a point ("no higher setting gains 5%", "every
further step queues"), so that a single dip can neither put the knee before a later, much
better setting nor hide queueing that a later step shows again; dips and falls are said in
so many words rather than explained away.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stackprobe.units import fmt_bw, fmt_iops, fmt_ns


@dataclass(frozen=True)
class SweepPoint:
    """One setting of a sweep and what it measured."""

    label: str  # how people name the setting: "iodepth=32, numjobs=4"
    concurrency: float  # outstanding I/Os: iodepth x numjobs, or rados bench threads
    throughput: float  # IOPS or bytes/s
    latency_ns: float | None = None  # mean or a percentile, as the caller chooses
    settings: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Advice:
    """The three findings (None when the sweep does not show them) and the sentences that
    say them, best first, for a report."""

    best: SweepPoint | None
    diminishing_from: SweepPoint | None
    latency_outpaces_from: SweepPoint | None
    sentences: list[str] = field(hash=False)


def advise(
    points: Sequence[SweepPoint],
    *,
    unit: str,
    latency_limit_ns: float | None = None,
    gain_threshold: float = 0.05,
    workload: str | None = None,
    latency_name: str = "mean latency",
) -> Advice:
    """Advice on a sweep. `unit` is "IOPS" or "B/s"; `workload` ("4k randread") and
    `latency_name` ("p99") only word the sentences.

    Points are taken in order of concurrency (equal concurrency keeps the input order). With
    a latency limit, a point without a latency cannot be shown to meet it and is left out
    of `best`. Several points at one concurrency (iodepth=16 x 1 job and 4 x 4 jobs) form
    one level of the trend, represented by the one with the highest throughput.
    """
    if unit not in ("IOPS", "B/s"):
        raise ValueError(f"unit must be 'IOPS' or 'B/s', not {unit!r}")
    if not points:
        raise ValueError("no sweep points to advise from")
    if not (gain_threshold >= 0 and math.isfinite(gain_threshold)):
        raise ValueError(f"gain_threshold must be a finite fraction >= 0, not {gain_threshold!r}")
    if latency_limit_ns is not None and not (latency_limit_ns > 0 and math.isfinite(latency_limit_ns)):
        raise ValueError(f"latency limit must be positive, not {latency_limit_ns!r}")
    for p in points:
        _check_point(p)
    pts = sorted(points, key=lambda p: p.concurrency)
    words = _Words(unit, workload, latency_name)

    best, sentences = _best(pts, latency_limit_ns, words)
    levels = _levels(pts)
    if len(levels) < 2:
        return Advice(best, None, None, sentences)
    tp = [p.throughput for p in levels]

    dip = _first_dip(tp, gain_threshold)
    if dip is not None:
        sentences.append(
            f"Throughput dips at {levels[dip].label} ({_signed(_growth(tp[dip - 1], tp[dip]))} "
            f"from {levels[dip - 1].label}) and then rises again: the sweep looks noisy; repeat "
            f"those steps before trusting where the knee is.")

    knee = _knee(tp, gain_threshold)
    if knee is not None:
        nxt = _growth(tp[knee], tp[knee + 1])
        text = (f"Diminishing returns from {levels[knee].label}: the next step "
                + (f"gains only {_pct(nxt)} {words.quantity}" if nxt >= 0
                   else f"loses {_pct(-nxt)} {words.quantity}"))
        if knee + 2 < len(levels):
            text += f", and no higher setting gains {_pct(gain_threshold)} or more"
        sentences.append(text + ".")

    peak = tp.index(max(tp))
    low = min(range(peak + 1, len(tp)), key=lambda i: tp[i], default=None)
    if low is not None and tp[low] < tp[peak] * (1 - gain_threshold):
        sentences.append(
            f"Throughput falls beyond {levels[peak].label}: {words.amount(tp[low])} at "
            f"{levels[low].label} ({_signed(_growth(tp[peak], tp[low]))} from its peak "
            f"{words.amount(tp[peak])}).")

    queue = _queueing_from(levels)
    if queue is not None:
        a, b = levels[queue], levels[queue + 1]
        sentences.append(
            f"From {a.label} on, {words.latency_name} grows faster than {words.quantity} "
            f"({_signed(_growth(a.latency_ns, b.latency_ns))} vs {_signed(_growth(a.throughput, b.throughput))}): "
            f"more concurrency mostly queues.")

    return Advice(
        best=best,
        diminishing_from=levels[knee] if knee is not None else None,
        latency_outpaces_from=levels[queue] if queue is not None else None,
        sentences=sentences,
    )


def _best(pts: list[SweepPoint], limit: float | None, words: _Words) -> tuple[SweepPoint | None, list[str]]:
    top = _highest(pts)
    if limit is None:
        return top, [f"Best: {words.where(top)}: {words.figures(top)}."]
    bound = f"{words.latency_name} ≤ {fmt_ns(limit)}"
    within = [p for p in pts if p.latency_ns is not None and p.latency_ns <= limit]
    if not within:
        known = [p for p in pts if p.latency_ns is not None]
        if not known:
            return None, [f"No setting reports {words.latency_name}: {bound} cannot be checked."]
        lowest = min(known, key=lambda p: p.latency_ns)
        return None, [f"No setting meets {bound} (lowest: {fmt_ns(lowest.latency_ns)} at {lowest.label})."]
    best = _highest(within)
    sentences = [f"Within {bound} the best is {words.where(best)}: {words.figures(best)}."]
    if top is not best and top.throughput > best.throughput:
        sentences.append(f"Without the limit: {top.label}: {words.figures(top)}.")
    return best, sentences


def _highest(pts: Sequence[SweepPoint]) -> SweepPoint:
    """The highest throughput; on a tie the first, i.e. the least concurrency."""
    top = pts[0]
    for p in pts[1:]:
        if p.throughput > top.throughput:
            top = p
    return top


def _levels(pts: list[SweepPoint]) -> list[SweepPoint]:
    """One point per distinct concurrency: the highest throughput at it."""
    levels: list[SweepPoint] = []
    for p in pts:
        if levels and levels[-1].concurrency == p.concurrency:
            if p.throughput > levels[-1].throughput:
                levels[-1] = p
        else:
            levels.append(p)
    return levels


def _knee(tp: list[float], threshold: float) -> int | None:
    """First level from which no higher level gains `threshold` or more over it."""
    for i in range(len(tp) - 1):
        if _growth(tp[i], max(tp[i + 1:])) < threshold:
            return i
    return None


def _first_dip(tp: list[float], threshold: float) -> int | None:
    """First level that loses `threshold` or more from the one below, before the peak."""
    peak = tp.index(max(tp))
    for i in range(1, peak):
        if tp[i] < tp[i - 1] * (1 - threshold):
            return i
    return None


def _queueing_from(levels: list[SweepPoint]) -> int | None:
    """Start of the final run of steps whose latency grows by a larger fraction than their
    throughput; a step without both latencies is not counted as queueing."""
    start = None
    for i in range(len(levels) - 2, -1, -1):
        a, b = levels[i], levels[i + 1]
        if a.latency_ns is None or b.latency_ns is None:
            break
        if _growth(a.latency_ns, b.latency_ns) > _growth(a.throughput, b.throughput):
            start = i
        else:
            break
    return start


def _growth(before: float, after: float) -> float:
    """after / before - 1, with growth from zero infinite (and none from zero to zero)."""
    if before == 0:
        return math.inf if after > 0 else 0.0
    return after / before - 1


def _check_point(p: SweepPoint) -> None:
    if not (math.isfinite(p.concurrency) and p.concurrency > 0):
        raise ValueError(f"{p.label}: concurrency must be positive, not {p.concurrency!r}")
    if not (math.isfinite(p.throughput) and p.throughput >= 0):
        raise ValueError(f"{p.label}: throughput must be finite and >= 0, not {p.throughput!r}")
    if p.latency_ns is not None and not (math.isfinite(p.latency_ns) and p.latency_ns > 0):
        raise ValueError(f"{p.label}: latency must be positive, not {p.latency_ns!r}")


def _pct(frac: float) -> str:
    pct = frac * 100
    return f"{pct:.1f}%" if abs(pct) < 1 else f"{pct:.0f}%"


def _signed(frac: float) -> str:
    if math.isinf(frac):
        return "+∞%"
    pct = frac * 100
    return f"{pct:+.1f}%" if abs(pct) < 1 else f"{pct:+.0f}%"


@dataclass(frozen=True)
class _Words:
    unit: str
    workload: str | None
    latency_name: str

    @property
    def quantity(self) -> str:
        return "IOPS" if self.unit == "IOPS" else "bandwidth"

    def amount(self, value: float) -> str:
        return f"{fmt_iops(value)} IOPS" if self.unit == "IOPS" else fmt_bw(value)

    def where(self, p: SweepPoint) -> str:
        return f"{self.workload} at {p.label}" if self.workload else p.label

    def figures(self, p: SweepPoint) -> str:
        if p.latency_ns is None:
            return self.amount(p.throughput)
        return f"{self.amount(p.throughput)} ({self.latency_name} {fmt_ns(p.latency_ns)})"
