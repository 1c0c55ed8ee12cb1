"""The per-OSD read table and the outlier verdict of `osd_read` (seed 002's slow OSD).

A read shorter than MIN_JUDGED_BYTES (a fresh lab OSD's block file holds well under a MiB
of data) is over in milliseconds: its rate is shown but not judged.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackprobe.analysis.osd_outliers import judge_osds
from stackprobe.schema.results import StepResult
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_iops


@dataclass(frozen=True)
class _Figure:
    """What the outlier verdict compares (analysis/osd_outliers.py)."""

    osd: int
    device_class: str | None
    bw_bytes: float


MIN_JUDGED_BYTES = 16 * 1024**2  # a shorter read is over in milliseconds: too noisy to judge


def judged(rows: list[dict], threshold_pct: float):
    """The outlier verdicts (analysis/osd_outliers.py) of the OSDs read over at least
    MIN_JUDGED_BYTES; the others are left out."""
    figures = [_Figure(r["osd"], r.get("device_class"), r["bw_bytes"]) for r in rows
               if r.get("range_bytes", 0) >= MIN_JUDGED_BYTES]
    return judge_osds(figures, threshold_pct)  # type: ignore[arg-type]


def osd_read_table(steps: list[StepResult]) -> TextTable:
    """Every OSD read, its class median, the slow ones named."""
    table = TextTable("Per-OSD read (fio --readonly on each OSD's device)",
                      ["OSD", "Host", "Class", "Read", "IOPS", "Target", "vs class median",
                       "Verdict"], layer="disk")
    for step in steps:
        found = step.findings.get("osd_read") or {}
        threshold = float(found.get("threshold_pct", 20))
        rows = {r["osd"]: r for r in found.get("osds", [])}
        verdicts = {v.osd: v for v in judged(list(rows.values()), threshold)}
        for osd, r in sorted(rows.items()):
            v = verdicts.get(osd)
            dev = f"{v.deviation_pct:+.0f}%" if v and v.deviation_pct is not None else "n/a"
            verdict = (f"SLOW (> {threshold:.0f}% below)" if v.slow else "ok") if v else (
                f"not judged: {r.get('range_bytes', 0) // 1024} KiB read")
            target = f"{r.get('target_type')} {r.get('path')}"
            if r.get("upper_bound"):
                target += " (upper bound: holes)"
            table.rows.append([f"osd.{osd}", r.get("host") or "", r.get("device_class") or "",
                               fmt_bw(r["bw_bytes"]), fmt_iops(r["iops"]), target, dev, verdict])
        if rows and len(rows) < 3:
            table.notes.append("fewer than 3 OSDs in a class: no median to compare with")
    return table
