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

And a point can say how noisy it is (`noise`: the CoV of its repeated runs, or of its own
per-second figures). A difference smaller than the noise of the two points it compares is
no finding: measured here, one cell of a sweep moved 17-28% between two identical runs
while its per-second CoV was up to 23%, and a single run had advised "throughput falls
beyond iodepth=16 (-5%)". So gains, dips and falls count only beyond the larger of
`gain_threshold` and the two points' noise, and settings within the noise of the best are
a tie: said as one, with the least concurrency among them as the one to use. The
per-second CoV is taken as the noise of the whole figure, not divided by the square root
of the seconds: seconds of one run are not independent draws (the device drifts), and the
runs above moved by about that CoV, not by a tenth of it.
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
    noise: float | None = None  # relative: CoV of repeated runs or of per-second figures
    noise_source: str = ""  # what `noise` is: "3 runs", "per second"


@dataclass(frozen=True)
class Advice:
    """The three findings (None when the sweep does not show them) and the sentences that
    say them, best first, for a report."""

    best: SweepPoint | None
    diminishing_from: SweepPoint | None
    latency_outpaces_from: SweepPoint | None
    sentences: list[str] = field(hash=False)
    tied: list[SweepPoint] = field(default_factory=list, hash=False)  # within best's noise


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

    band = _Band(gain_threshold)
    best, tied, sentences = _best(pts, latency_limit_ns, words, band)
    levels = _levels(pts)
    if len(levels) < 2:
        return Advice(best, None, None, sentences, tied)
    tp = [p.throughput for p in levels]

    dip = _first_dip(levels, band)
    if dip is not None:
        sentences.append(
            f"Throughput dips at {levels[dip].label} ({_signed(_growth(tp[dip - 1], tp[dip]))} "
            f"from {levels[dip - 1].label}) and then rises again: the sweep looks noisy; repeat "
            f"those steps before trusting where the knee is.")

    knee = _knee(levels, band)
    if knee is not None:
        nxt = _growth(tp[knee], tp[knee + 1])
        text = (f"Diminishing returns from {levels[knee].label}: the next step "
                + (f"gains only {_pct(nxt)} {words.quantity}" if nxt >= 0
                   else f"loses {_pct(-nxt)} {words.quantity}"))
        noisy = band.noisiest(levels[knee:])
        if noisy is not None:
            text += (f", within the noise ({_noise(noisy)})" if knee + 2 >= len(levels) else
                     f", and no higher setting gains beyond the noise ({_noise(noisy)})")
        elif knee + 2 < len(levels):
            text += f", and no higher setting gains {_pct(gain_threshold)} or more"
        sentences.append(text + ".")

    peak = tp.index(max(tp))
    low = min(range(peak + 1, len(tp)), key=lambda i: tp[i], default=None)
    if low is not None and tp[low] < tp[peak] * (1 - gain_threshold):
        change = (f"{words.amount(tp[low])} at {levels[low].label} "
                  f"({_signed(_growth(tp[peak], tp[low]))} from its peak "
                  f"{words.amount(tp[peak])}")
        if tp[low] < tp[peak] * (1 - band.of(levels[peak], levels[low])):
            sentences.append(f"Throughput falls beyond {levels[peak].label}: {change}).")
        else:
            noisy = band.noisiest([levels[peak], levels[low]])
            sentences.append(f"No fall beyond {levels[peak].label}: {change}) is within the "
                             f"noise ({_noise(noisy)}): a tie.")

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
        tied=tied,
    )


def _best(pts: list[SweepPoint], limit: float | None, words: _Words, band: _Band
          ) -> tuple[SweepPoint | None, list[SweepPoint], list[str]]:
    """The best point, the points tied with it (within its noise) and the sentences."""
    top = _highest(pts)
    if limit is None:
        tied = _tied(top, pts, band)
        return top, tied, [_best_sentence("Best", top, tied, words)]
    bound = f"{words.latency_name} ≤ {fmt_ns(limit)}"
    within = [p for p in pts if p.latency_ns is not None and p.latency_ns <= limit]
    if not within:
        known = [p for p in pts if p.latency_ns is not None]
        if not known:
            return None, [], [f"No setting reports {words.latency_name}: {bound} cannot be checked."]
        lowest = min(known, key=lambda p: p.latency_ns)
        return None, [], [f"No setting meets {bound} (lowest: {fmt_ns(lowest.latency_ns)} at {lowest.label})."]
    best = _highest(within)
    tied = _tied(best, within, band)
    sentences = [_best_sentence(f"Within {bound} the best", best, tied, words)]
    if top is not best and top.throughput > best.throughput * (1 + band.noise_of(top, best)):
        sentences.append(f"Without the limit: {top.label}: {words.figures(top)}.")
    return best, tied, sentences


def _tied(best: SweepPoint, pts: Sequence[SweepPoint], band: _Band) -> list[SweepPoint]:
    """Other points whose throughput is within the noise of the best's (not the threshold:
    a 3% gap between two quiet points is a measured difference, if a small one)."""
    return sorted((p for p in pts if p is not best and (best.noise or p.noise) and
                   p.throughput >= best.throughput * (1 - band.noise_of(best, p))),
                  key=lambda p: p.concurrency)


def _best_sentence(head: str, best: SweepPoint, tied: list[SweepPoint], words: _Words) -> str:
    text = f"{head} is {words.where(best)}: {words.figures(best)}"
    if head == "Best":
        text = f"Best: {words.where(best)}: {words.figures(best)}"
    if not tied:
        return text + "."
    least = min([best, *tied], key=lambda p: p.concurrency)
    others = ", ".join(p.label for p in tied)
    use = (f"the least concurrency of them, {least.label}, does as well" if least is not best
           else f"{best.label} is also the least concurrency of them")
    return (f"{text}; {others} measured within the noise of it "
            f"({_noise(max([best, *tied], key=lambda p: p.noise or 0))}): a tie, and {use}.")


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


def _knee(levels: list[SweepPoint], band: _Band) -> int | None:
    """First level from which no higher level gains more than the band (the threshold, or
    the noise of the two levels if larger) over it."""
    for i in range(len(levels) - 1):
        top = max(levels[i + 1:], key=lambda p: p.throughput)
        if _growth(levels[i].throughput, top.throughput) < band.of(levels[i], top):
            return i
    return None


def _first_dip(levels: list[SweepPoint], band: _Band) -> int | None:
    """First level that loses more than the band from the one below, before the peak."""
    tp = [p.throughput for p in levels]
    peak = tp.index(max(tp))
    for i in range(1, peak):
        if tp[i] < tp[i - 1] * (1 - band.of(levels[i - 1], levels[i])):
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


@dataclass(frozen=True)
class _Band:
    """How large a relative difference between two points must be to count."""

    threshold: float

    def noise_of(self, a: SweepPoint, b: SweepPoint) -> float:
        return max(a.noise or 0.0, b.noise or 0.0)

    def of(self, a: SweepPoint, b: SweepPoint) -> float:
        return max(self.threshold, self.noise_of(a, b))

    def noisiest(self, pts: Sequence[SweepPoint]) -> SweepPoint | None:
        """The point with the most noise, if any noise exceeds the threshold."""
        p = max(pts, key=lambda q: q.noise or 0.0)
        return p if (p.noise or 0.0) > self.threshold else None


def _noise(p: SweepPoint) -> str:
    source = f" {p.noise_source}" if p.noise_source else ""
    return f"CoV {_pct(p.noise or 0.0)}{source} at {p.label}"


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
