"""Was the step's throughput steady over its run? (seed 000 ran 600 s and checked.)

From the tool's own per-second series (fio's iops/bw logs, rados and rbd bench): the
coefficient of variation over time, dips (seconds below `dip_fraction` of the median),
and stalls (seconds with no I/O at all — a hung device, a blocked OSD, a failover). The
verdict is `stalled` when any second stalled, `fluctuating` when the CoV exceeds
`cov_limit` or a dip happened, `stable` otherwise; a series shorter than `min_points`
seconds gets none (too short to say).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from stackprobe.schema.records import SeriesPoint

DIP_FRACTION = 0.80
COV_LIMIT = 0.10
MIN_POINTS = 5
_ORDER = {"stable": 0, "fluctuating": 1, "stalled": 2}


def judge_series(series: Sequence[SeriesPoint], label: str = "", *,
                 dip_fraction: float = DIP_FRACTION, cov_limit: float = COV_LIMIT,
                 min_points: int = MIN_POINTS) -> dict | None:
    metric = "iops" if any(p.iops for p in series) else "bw_bytes"
    points = [(p.t_s, getattr(p, metric)) for p in series if getattr(p, metric) is not None]
    if len(points) < min_points:
        return None
    values = [v for _, v in points]
    median = statistics.median(values)
    mean = statistics.fmean(values)
    cov = statistics.pstdev(values) / mean if mean > 0 else None
    stalls = [t for t, v in points if v == 0]
    dips = [(t, v) for t, v in points if v > 0 and median > 0 and v < dip_fraction * median]
    if stalls:
        verdict = "stalled"
    elif (cov is not None and cov > cov_limit) or dips:
        verdict = "fluctuating"
    else:
        verdict = "stable"
    lowest = min(dips, key=lambda d: d[1]) if dips else None
    return {
        "label": label, "metric": metric, "seconds": len(points), "median": median,
        "mean": mean, "cov": cov, "dip_fraction": dip_fraction, "dip_seconds": len(dips),
        "lowest_dip": {"t_s": lowest[0], "ratio": lowest[1] / median} if lowest else None,
        "stall_seconds": len(stalls), "first_stall_s": stalls[0] if stalls else None,
        "verdict": verdict, "sentence": _sentence(verdict, label, len(points), cov, dips,
                                                  lowest, median, stalls, dip_fraction),
    }


def judge_records(records: Sequence[object]) -> dict | None:
    """Every record with a series judged; the step's verdict is the worst of them."""
    parts = []
    for rec in records:
        series = getattr(rec, "series", None)
        if series:
            label = getattr(rec, "job", "") or getattr(rec, "host", "") or ""
            part = judge_series(series, label)
            if part is not None:
                parts.append(part)
    if not parts:
        return None
    worst = max(parts, key=lambda p: _ORDER[p["verdict"]])
    return {"verdict": worst["verdict"], "parts": parts}


def _sentence(verdict, label, n, cov, dips, lowest, median, stalls, dip_fraction) -> str:
    head = f"{label}: " if label else ""
    cov_text = f"CoV {cov * 100:.1f}% over {n} s" if cov is not None else f"{n} s"
    if verdict == "stalled":
        return (f"{head}stalled: {len(stalls)} s with no I/O (first at {stalls[0]:.0f} s); "
                f"{cov_text}")
    if verdict == "fluctuating":
        text = f"{head}fluctuating: {cov_text}"
        if dips:
            text += (f"; {len(dips)} s below {dip_fraction:.0%} of the median (lowest "
                     f"{lowest[1] / median:.2f}× at {lowest[0]:.0f} s)")
        return text
    return f"{head}stable: {cov_text}, no second below {dip_fraction:.0%} of the median, no stall"
