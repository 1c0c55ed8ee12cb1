"""Latency-bounded IOPS: for each slo step, every probe in setting order — the knee curve
(IOPS against the percentile's latency) — and the answer."""

from __future__ import annotations

from stackprobe.schema.records import SloRecord
from stackprobe.schema.results import RunResults
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_iops, fmt_ns


def slo_tables(results: RunResults) -> list[TextTable]:
    tables = []
    for step in results.steps:
        for rec in step.records:
            if not isinstance(rec, SloRecord):
                continue
            pct = f"p{rec.percentile:g}"
            table = TextTable(f"Latency-bounded IOPS: {step.title}",
                              [rec.vary, "IOPS", f"{pct} {rec.latency} latency", "Limit",
                               "Probe order"])
            order = {id(p): i for i, p in enumerate(rec.probes, start=1)}
            for p in sorted(rec.probes, key=lambda q: q["setting"]):
                mark = "meets" if p["passed"] else "exceeds"
                table.rows.append([str(p["setting"]), fmt_iops(p["iops"]),
                                   fmt_ns(p["latency_ns"]), mark, str(order[id(p)])])
            table.notes.extend(step.notes)
            tables.append(table)
    return tables
