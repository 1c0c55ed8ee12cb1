"""A storage soak's table: one row per period (an hour unless the step said otherwise),
judged by the stability rule on its own, then the whole soak's line.

Read from the step's stored `storage_soak` record (kinds/storage_soak.py judged it during
the run); nothing is recomputed, so a 72-hour soak's table is 72 rows drawn from a record
of bounded size however long the soak ran.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.schema.results import StepResult
from stackprobe.schema.storage_soak_records import StorageSoakRecord
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_iops

FLAG = "⚠"


def _value(metric: str, value: float | None) -> str:
    if value is None:
        return "-"
    return fmt_iops(value) if metric == "iops" else fmt_bw(value)


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds / 60:g} min"


def _verdict(text: str) -> str:
    return text if text == "stable" else f"{FLAG} {text}"


def soak_table(step: StepResult) -> TextTable | None:
    soaks = [r for r in step.records if isinstance(r, StorageSoakRecord)]
    if not soaks:
        return None
    rec = soaks[0]
    what = "IOPS" if rec.metric == "iops" else "bandwidth"
    t = TextTable(f"Soak: {what} per {_hours(rec.period_s)} ({step.id}, {rec.chunks_run} of "
                  f"{rec.chunks_planned} chunk(s), {rec.seconds} s measured)",
                  ["period", "seconds", "mean", "min", "max", "CoV", "dips", "stalls",
                   "verdict"], left=(0, 8), layer=step.layer)
    for p in rec.periods:
        t.rows.append([f"{p.index + 1} ({p.start_s / 3600:.2f}-{p.end_s / 3600:.2f} h)",
                       str(p.seconds), _value(p.metric, p.mean), _value(p.metric, p.min),
                       _value(p.metric, p.max), "-" if p.cov is None else f"{p.cov * 100:.1f}%",
                       str(p.dip_seconds), str(p.stall_seconds), _verdict(p.verdict)])
    flags = f" ({', '.join(rec.flags)})" if rec.flags else ""
    t.rows.append(["whole soak", str(rec.seconds), _value(rec.metric, rec.mean),
                   _value(rec.metric, rec.min), _value(rec.metric, rec.max),
                   "-" if rec.cov is None else f"{rec.cov * 100:.1f}%", "", "",
                   _verdict(rec.verdict) + flags])
    t.notes += rec.notes
    return t


def soak_tables(steps: Sequence[StepResult]) -> list[TextTable]:
    return [t for t in (soak_table(s) for s in steps) if t is not None]
