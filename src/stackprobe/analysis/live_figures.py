"""Live figures: one interval's IOPS, bandwidth and latency while a tool still runs.

A step of fio, rados bench or rbd bench takes minutes; these figures are what the run's
display shows meanwhile (docs/live.md). They are never stored: the step's records come from
the tool's final output as always. What each tool gives live, and how an interval is made
of it, is said in docs/live.md; this module holds the value and fio's part.

fio, with `--status-interval`, prints a complete JSON document every interval, each with
running totals since the job began. An interval's IOPS and bandwidth are the change in
`total_ios` and `io_bytes` over the change in `timestamp_ms`; its mean completion latency
is the change in (clat mean x N) over the change in N; and since stackprobe runs fio with
`json+`, every document carries the clat histogram so far, so the interval's own
histogram is the bin-by-bin difference and its p99 is exact by fio's rule
(analysis/histogram.py) — never a cumulative percentile passed off as the interval's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stackprobe.analysis.histogram import percentiles
from stackprobe.parsers.fio.fio_json import JsonStream

DIRECTIONS = ("read", "write", "trim")


@dataclass(frozen=True)
class LiveFigures:
    """One interval of one direction on one host; a figure the tool does not give is None."""

    host: str | None  # None: this machine
    direction: str  # read | write | trim, or 'all' when the tool does not split them
    start_s: float  # since the tool started
    end_s: float
    iops: float | None
    bw_bytes: float | None  # bytes/s
    lat_mean_ns: float | None = None
    p99_ns: float | None = None  # of this interval's I/Os only


def finite(f: LiveFigures) -> bool:
    """Every figure a number (or not given): what a display may show."""
    values = (f.start_s, f.end_s, f.iops, f.bw_bytes, f.lat_mean_ns, f.p99_ns)
    return all(v is None or math.isfinite(v) for v in values)


# Called once per interval with that interval's figures (one per direction).
LiveSink = Callable[[list[LiveFigures]], None]

MAX_DOCUMENTS = 120  # fio status documents a step keeps in its stdout, about
MAX_INTERVAL_S = 10


def fio_status_interval(estimate_s: float) -> int:
    """Seconds between fio's status documents for live figures: every second for a short
    step, longer for a long one so its kept stdout stays near MAX_DOCUMENTS documents
    (each holds the whole histogram), at most MAX_INTERVAL_S."""
    return max(1, min(MAX_INTERVAL_S, math.ceil(estimate_s / MAX_DOCUMENTS)))


@dataclass
class _Totals:
    """Running totals of one direction, summed over the document's jobs."""

    ios: int = 0
    byts: int = 0
    lat_n: int = 0
    lat_sum_ns: float = 0.0
    bins: dict[int, int] | None = None


def _direction_totals(doc: dict[str, Any], direction: str) -> _Totals:
    out = _Totals(bins={})
    for job in doc.get("jobs") or []:
        stats = (job or {}).get(direction) or {}
        out.ios += int(stats.get("total_ios", 0) or 0)
        out.byts += int(stats.get("io_bytes", 0) or 0)
        clat = stats.get("clat_ns") or {}
        n = int(clat.get("N", 0) or 0)
        out.lat_n += n
        out.lat_sum_ns += float(clat.get("mean", 0.0) or 0.0) * n
        bins = clat.get("bins")
        if bins is None:
            out.bins = None
        elif out.bins is not None:
            for value, count in bins.items():
                out.bins[int(value)] = out.bins.get(int(value), 0) + int(count)
    return out


def _interval(prev: _Totals, cur: _Totals, dt: float) -> tuple | None:
    """(iops, bw, mean, p99) between two totals; None when they do not continue each
    other: fio reset its statistics (ramp_time's end) or nothing was done."""
    ios = cur.ios - prev.ios
    if ios <= 0 or cur.byts < prev.byts:
        return None
    if prev.ios > 0 and prev.lat_n == 0 < cur.lat_n:  # ramp_time: counted, not yet measured
        return None
    n = cur.lat_n - prev.lat_n
    mean = (cur.lat_sum_ns - prev.lat_sum_ns) / n if n > 0 else None
    p99 = None
    if cur.bins is not None and prev.bins is not None and n > 0:
        diff = {v: c - prev.bins.get(v, 0) for v, c in cur.bins.items()}
        if all(c >= 0 for c in diff.values()):
            p99 = percentiles(diff, (99.0,)).get("p99")
    return ios / dt, (cur.byts - prev.byts) / dt, mean if mean and mean > 0 else None, p99


class FioLive:
    """fio's stdout as it arrives -> the figures of each finished interval."""

    def __init__(self, host: str | None = None):
        self.host = host
        self._stream = JsonStream()
        self._pending: list[str] = []
        self._tail = ""
        self._prev: tuple[float, dict[str, _Totals]] | None = None
        self._t0: float | None = None

    def feed(self, text: str) -> list[list[LiveFigures]]:
        # fio's pretty JSON closes a document with '}' at the start of a line (nested ones
        # are indented): decode only then, not on every piece of a large document
        self._pending.append(text)
        ended = "\n}" in self._tail + text
        self._tail = text[-1:] or self._tail
        if not ended:
            return []
        text, self._pending = "".join(self._pending), []
        out = []
        for doc in self._stream.feed(text):
            if "jobs" in doc:
                figures = self._document(doc)
                if figures:
                    out.append(figures)
        return out

    def _document(self, doc: dict[str, Any]) -> list[LiveFigures]:
        try:
            return self._figures(doc)
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
            return []  # not a status document this reads: it shows nothing

    def _figures(self, doc: dict[str, Any]) -> list[LiveFigures]:
        t = float(doc["timestamp_ms"]) / 1000
        totals = {d: _direction_totals(doc, d) for d in DIRECTIONS}
        if not math.isfinite(t):
            return []
        if self._prev is None:  # the first: from the job's start, all zero then
            elapsed = _elapsed_s(doc)
            self._t0 = t - elapsed if elapsed is not None else t
            self._prev = (self._t0, {d: _Totals(bins={}) for d in DIRECTIONS})
        (t_prev, before), self._prev = self._prev, (t, totals)
        dt = t - t_prev
        if not dt > 0:
            return []
        figures = []
        for d in DIRECTIONS:
            got = _interval(before[d], totals[d], dt)
            if got is not None:
                iops, bw, mean, p99 = got
                figures.append(LiveFigures(self.host, d, round(t_prev - (self._t0 or 0), 3),
                                           round(t - (self._t0 or 0), 3), iops, bw, mean, p99))
        return [f for f in figures if finite(f)]


def _elapsed_s(doc: dict[str, Any]) -> float | None:
    """Seconds the first job has run (fio's whole seconds), for the first interval's start."""
    jobs = doc.get("jobs") or []
    try:
        value = float(jobs[0]["elapsed"])
    except (IndexError, KeyError, TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None
