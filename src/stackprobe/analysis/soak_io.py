"""A soak's whole-run figures from its chunks, which ran one after another.

Chunks are not jobs running together (analysis/io_summary.py adds those up): they follow
each other, so the soak's IOPS are all its I/Os over all its chunks' runtime, its mean
latency the I/O-weighted mean, and its percentiles those of the chunks' json+ histograms
summed bin by bin (analysis/histogram.py) - never an average of the chunks' p99s. The
sum is kept as it goes (`SoakTotals.add` after each chunk), so a day of chunks costs one
histogram per direction in memory, not one per chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.analysis.histogram import merge_bins, percentiles
from stackprobe.schema.records import IoRecord, IoStats

_DIRECTIONS = ("read", "write", "trim")
# beyond any device and any day: a chunk claiming more is left out (its sums would not stay
# finite over thousands of chunks); fio's own parser has already refused NaN and infinity
MAX_FIGURE = 1e15
_LATENCIES = (("clat_ns", "clat_bins"), ("lat_ns", "lat_bins"))


@dataclass
class _Latency:
    weighted: float = 0.0  # sum of mean x I/Os
    ios: int = 0
    low: float | None = None
    high: float | None = None
    bins: dict[int, int] | None = field(default_factory=dict)  # None once a chunk had none
    complete: bool = True  # every chunk gave a mean

    def add(self, lat: dict[str, float], bins: dict[int, int] | None, ios: int) -> None:
        if not lat and not bins:
            return
        mean = lat.get("mean")
        if mean is None:
            self.complete = False
        else:
            self.weighted += mean * ios
            self.ios += ios
        if "min" in lat:
            self.low = lat["min"] if self.low is None else min(self.low, lat["min"])
        if "max" in lat:
            self.high = lat["max"] if self.high is None else max(self.high, lat["max"])
        if self.bins is not None and bins:
            self.bins = merge_bins([self.bins, bins])
        elif ios:
            self.bins = None

    def figures(self) -> dict[str, float]:
        out: dict[str, float] = {}
        if self.complete and self.ios:
            out["mean"] = self.weighted / self.ios
        if self.low is not None:
            out["min"] = self.low
        if self.high is not None:
            out["max"] = self.high
        if self.bins:
            out.update(percentiles(self.bins))
        return out


@dataclass
class _Direction:
    ios: int = 0
    bytes: int = 0
    runtime_ms: float = 0.0
    latency: dict[str, _Latency] = field(
        default_factory=lambda: {name: _Latency() for name, _ in _LATENCIES})

    def add(self, s: IoStats) -> None:
        ios = s.total_ios or 0
        self.ios += ios
        self.bytes += s.io_bytes or 0
        self.runtime_ms += s.runtime_ms or 0.0
        for name, bins in _LATENCIES:
            self.latency[name].add(getattr(s, name), getattr(s, bins), ios)

    def stats(self) -> IoStats:
        seconds = self.runtime_ms / 1000
        out = IoStats(iops=self.ios / seconds if seconds else 0.0,
                      bw_bytes=self.bytes / seconds if seconds else 0.0,
                      io_bytes=self.bytes, total_ios=self.ios, runtime_ms=self.runtime_ms)
        for name, bins in _LATENCIES:
            lat = self.latency[name]
            setattr(out, name, lat.figures())
            setattr(out, bins, dict(lat.bins) if lat.bins else None)
        return out


def plausible(rec: IoRecord) -> bool:
    """Every count, time, rate and latency of the record within MAX_FIGURE."""
    for _, s in rec.directions():
        figures = [s.iops, s.bw_bytes, s.total_ios or 0, (s.io_bytes or 0) / 1e6,
                   s.runtime_ms or 0.0]
        for name, bins in _LATENCIES:
            figures += getattr(s, name).values()
            figures += [v for pair in (getattr(s, bins) or {}).items() for v in pair]
        if any(not 0 <= v <= MAX_FIGURE for v in figures):
            return False
    return True


class SoakTotals:
    """The whole soak's IoRecord, folded in chunk by chunk."""

    def __init__(self) -> None:
        self.first: IoRecord | None = None
        self.chunks = 0
        self.left_out = 0  # chunks whose figures no device gives
        self.directions: dict[str, _Direction] = {}

    def add(self, rec: IoRecord) -> bool:
        """One chunk's record (fio's group_reporting: one per chunk); False when it was
        left out as implausible."""
        if not plausible(rec):
            self.left_out += 1
            return False
        if self.first is None:
            self.first = rec.model_copy(update={"series": None})
        self.chunks += 1
        for name, s in rec.directions():
            self.directions.setdefault(name, _Direction()).add(s)
        return True

    def record(self) -> IoRecord | None:
        if self.first is None:
            return None
        out = self.first.model_copy(update={
            "read": IoStats(), "write": IoStats(), "trim": None, "cpu": None,
            "error": 0, "error_message": None, "series": None})
        for name, d in self.directions.items():
            setattr(out, name, d.stats())
        return out


def chunk_figures(rec: IoRecord) -> dict[str, float | None]:
    """One chunk's figures for its row: every direction together (IOPS and bandwidth
    added, latency mean I/O-weighted, p99 from the summed histograms or fio's own)."""
    active = [s for _, s in rec.directions()]
    if not active or not plausible(rec):
        return {"iops": None, "bw_bytes": None, "lat_mean_ns": None, "lat_p99_ns": None}
    ios = sum(s.total_ios or 0 for s in active)
    means = [(s.lat_ns.get("mean"), s.total_ios or 0) for s in active]
    mean = (sum(m * n for m, n in means) / ios
            if ios and all(m is not None for m, _ in means) else None)
    if len(active) == 1:
        p99 = active[0].lat_ns.get("p99")
    else:
        bins = [s.lat_bins for s in active]
        p99 = percentiles(merge_bins(bins), (99.0,)).get("p99") if all(bins) else None
    return {"iops": sum(s.iops for s in active), "bw_bytes": sum(s.bw_bytes for s in active),
            "lat_mean_ns": mean, "lat_p99_ns": p99}
