"""A step's records -> its StepSummary: table figures and the one headline figure.

The headline is what the step is about (seed 002's table: IOPS tests report IOPS,
bandwidth tests MiB/s, QD1 tests latency); the index and comparisons use it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from stackprobe.analysis.io_summary import summarise_io
from stackprobe.analysis.repeats import DEFAULT_NOISY_COV, summarise_repeated
from stackprobe.schema.records import (
    IoRecord,
    MemBwRecord,
    OpsRecord,
    OsdBenchRecord,
    SloRecord,
)
from stackprobe.schema.results import IoGroupSummary, StepSummary
from stackprobe.schema.sentinels import FLEET_HOST


def summarise_step(headline: str | None, records: Sequence[object],
                   noisy_cov: float = DEFAULT_NOISY_COV) -> StepSummary | None:
    """The step's summary; for a repeated step, the mean over its runs (analysis/repeats)."""
    runs = {getattr(r, "repetition", None) for r in records}
    if len(runs) > 1:
        return summarise_repeated(headline, records, summarise_one, noisy_cov)
    return summarise_one(headline, records)


def summarise_one(headline: str | None, records: Sequence[object]) -> StepSummary | None:
    """The summary of one run of a step."""
    io = [r for r in records if isinstance(r, IoRecord)]
    ops = [r for r in records if isinstance(r, OpsRecord)]
    mem = [r for r in records if isinstance(r, MemBwRecord)]
    osd = [r for r in records if isinstance(r, OsdBenchRecord)]
    slo = [r for r in records if isinstance(r, SloRecord)]
    if not (io or ops or mem or osd):
        return None
    summary = StepSummary(io=summarise_io(io))
    if slo:  # the answer of the search; the probes are the io groups
        answer = slo[0].answer
        summary.headline_value = answer["iops"] if answer else None
        summary.headline_unit = "IOPS"
        return summary
    if osd:  # the median OSD: one slow OSD must not move the step's figure
        summary.headline_value = statistics.median(r.bw_bytes for r in osd)
        summary.headline_unit = "B/s"
        return summary
    for r in ops:
        summary.ops[r.operation] = r.ops_per_s
        if "mean" in r.lat_ns:
            summary.ops_lat_mean_ns[r.operation] = r.lat_ns["mean"]
    for r in mem:
        summary.membw[r.operation] = r.bw_bytes
        summary.tool = r.tool
    summary.headline_value, summary.headline_unit = _headline(headline, summary)
    return summary


def _headline(kind: str | None, s: StepSummary) -> tuple[float | None, str | None]:
    if kind in ("iops", "bw", "lat") and len(s.io) == 1:
        return _io_headline(kind, s.io[0])
    fleet = [g for g in s.io if g.host == FLEET_HOST]
    if kind in ("iops", "bw", "lat") and len(fleet) == 1:  # a fio fleet: all clients together
        return _io_headline(kind, fleet[0])
    if kind == "ops" and s.ops:
        op = "create" if "create" in s.ops else next(iter(s.ops))
        return s.ops[op], "ops/s"
    if kind == "membw" and s.membw:
        op = "read" if "read" in s.membw else next(iter(s.membw))
        return s.membw[op], "B/s"
    return None, None


def _io_headline(kind: str, g: IoGroupSummary) -> tuple[float | None, str | None]:
    dirs = [d for d in (g.read, g.write, g.trim) if d is not None]
    if not dirs:
        return None, None
    if kind == "iops":
        return sum(d.iops for d in dirs), "IOPS"
    if kind == "bw":
        return sum(d.bw_bytes for d in dirs), "B/s"
    means = [(d.lat_mean_ns, d.iops) for d in dirs if d.lat_mean_ns is not None]
    if not means:
        return None, None
    total = sum(w for _, w in means) or 1.0
    return sum(m * w for m, w in means) / total, "ns"
