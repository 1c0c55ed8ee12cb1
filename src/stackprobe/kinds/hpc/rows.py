"""Summary rows of the IO500 kinds: one row per phase (bandwidth in B/s, metadata in
ops/s), then the score — for the real io500 and the io500-like steps alike."""

from __future__ import annotations

from stackprobe.analysis.io500_score import in_base_units
from stackprobe.schema.records import Io500Record
from stackprobe.schema.results import StepResult
from stackprobe.tables.io500 import score_text
from stackprobe.tables.rows import Row, base, record_rows


def io500_rows(step: StepResult, workload: str) -> list[Row]:
    """The last IO500 record's phases and score; the step's other rows without one."""
    found = [r for r in step.records if isinstance(r, Io500Record)]
    if not found:
        return record_rows(step, workload)
    rec = found[-1]
    note = step.error or ""
    rows = []
    prefix = "IO500" if rec.official else "io500-like"
    for ph in rec.phases:
        figure = in_base_units(ph.value, ph.unit)
        bw, ops = (figure, None) if ph.kind == "bw" else (None, figure)
        rows.append(Row(test=f"{prefix} {ph.name}", direction=ph.kind, bw_bytes=bw,
                        iops=ops, headline="bw" if ph.kind == "bw" else "iops",
                        status=step.status, note="" if ph.scored else "not scored",
                        **base(step, workload)))
    s = rec.score_computed
    score = f"score {score_text(s)}" if s else "no score"
    label = f"; {rec.label}" if rec.label else ""
    rows.append(Row(test=f"{prefix} score", direction="", status=step.status,
                    note=f"{score}{label}" + (f"; {note}" if note else ""),
                    **base(step, workload)))
    return rows
