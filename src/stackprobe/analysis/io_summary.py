"""Step summaries: the figures tables show, combined correctly from a step's records.

Within one fio group the jobs ran at the same time, so IOPS and bandwidth add up, mean
latencies combine weighted by I/O count, and percentiles come from the merged histogram
(or from fio itself when it already reported the group as one record). Different groups
ran one after another and are never added together: each gets its own row.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.analysis.histogram import merge_bins, percentiles
from stackprobe.schema.records import IoRecord, IoStats
from stackprobe.schema.results import DirectionSummary, IoGroupSummary

_DIRECTIONS = ("read", "write", "trim")


def summarise_io(records: Sequence[IoRecord]) -> list[IoGroupSummary]:
    """One IoGroupSummary per fio group, in the order groups appear."""
    groups: dict[object, list[IoRecord]] = {}
    for rec in records:
        groups.setdefault((rec.host, rec.groupid), []).append(rec)
    out = []
    for (_host, groupid), recs in groups.items():
        names = sorted({r.job for r in recs})
        summary = IoGroupSummary(label=", ".join(names), groupid=groupid, host=recs[0].host)
        for direction in _DIRECTIONS:
            stats = [getattr(r, direction) for r in recs if getattr(r, direction) is not None]
            combined = combine_direction([s for s in stats if s.active])
            setattr(summary, direction, combined)
        out.append(summary)
    return out


def combine_direction(stats: Sequence[IoStats]) -> DirectionSummary | None:
    """IOPS and bandwidth summed, means weighted by I/O count, exact merged percentiles."""
    if not stats:
        return None
    if len(stats) == 1:
        s = stats[0]
        return DirectionSummary(
            iops=s.iops,
            bw_bytes=s.bw_bytes,
            lat_mean_ns=s.lat_ns.get("mean"),
            clat_mean_ns=s.clat_ns.get("mean"),
            clat_ns=_percentiles_only(s.clat_ns),
            lat_ns=_percentiles_only(s.lat_ns),
        )
    return DirectionSummary(
        iops=sum(s.iops for s in stats),
        bw_bytes=sum(s.bw_bytes for s in stats),
        lat_mean_ns=weighted_mean(stats, "lat_ns"),
        clat_mean_ns=weighted_mean(stats, "clat_ns"),
        clat_ns=_merged([s.clat_bins for s in stats]),
        lat_ns=_merged([s.lat_bins for s in stats]),
    )


def _percentiles_only(lat: dict[str, float]) -> dict[str, float]:
    return {k: v for k, v in lat.items() if k.startswith("p")}


def _merged(histograms: list[dict[int, int] | None]) -> dict[str, float]:
    """Percentiles of the summed histograms; none unless every record had one."""
    if not histograms or not all(histograms):
        return {}
    return percentiles(merge_bins(histograms))  # type: ignore[arg-type]


def weighted_mean(stats: Sequence[IoStats], field: str) -> float | None:
    """The mean of a latency dict field over jobs (or clients), weighted by I/O count;
    None unless every one has a mean and I/Os."""
    pairs = [(getattr(s, field).get("mean"), s.total_ios) for s in stats]
    if any(mean is None or not n for mean, n in pairs):
        return None
    total = sum(n for _, n in pairs)
    return sum(mean * n for mean, n in pairs) / total
