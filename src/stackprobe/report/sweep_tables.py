"""Sweep tables with advice (seed 003): each workload of a sweep along its concurrency
(fio iodepth x numjobs, rados bench threads, rbd bench io threads), the figures, and the
sentences analysis/recommend.py derives from them: best setting, diminishing returns,
where latency outgrows throughput."""

from __future__ import annotations

from collections.abc import Iterator

from stackprobe.analysis.recommend import advise
from stackprobe.kinds import registry
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.tables.sweeps import SweepSeries
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns, parse_duration_s


def sweep_tables(results: RunResults) -> list[TextTable]:
    tables = []
    for series in sweep_workloads(results):
        title, unit, points, limit = series.title, series.unit, series.points, series.limit
        if len({p.concurrency for p in points}) < 2:
            continue
        pct = f"p{float(limit['percentile']):g}" if limit else None
        advice = advise(points, unit=unit, workload=title,
                        latency_limit_ns=parse_duration_s(limit["limit"]) * 1e9 if limit else None,
                        latency_name=pct or "mean latency")
        fmt = fmt_iops if unit == "IOPS" else fmt_bw
        noisy = any(p.noise is not None for p in points)
        table = TextTable(f"Sweep: {title}", ["Setting", "IOPS" if unit == "IOPS" else
                                              "Bandwidth", f"{pct} latency" if pct else
                                              "Mean latency"] + (["Noise (CoV)"] if noisy else []))
        for p in sorted(points, key=lambda q: q.concurrency):
            row = [p.label, fmt(p.throughput),
                   fmt_ns(p.latency_ns) if p.latency_ns is not None else "-"]
            if noisy:
                row.append(f"{p.noise:.1%} {p.noise_source}" if p.noise is not None else "-")
            table.rows.append(row)
        table.notes.extend(advice.sentences)
        tables.append(table)
    return tables


def sweep_workloads(results: RunResults) -> Iterator[SweepSeries]:
    """Every workload of every sweep: the sweep's steps grouped by their swept values other
    than concurrency (rw, bs, target ...), each group's series as its kind makes them."""
    groups: dict[tuple, list[StepResult]] = {}
    for step in results.steps:
        concurrency = registry.kind(step.kind).concurrency
        if step.sweep and concurrency and step.status == "ok" and step.summary:
            others = tuple(sorted((k, str(v)) for k, v in step.swept.items()
                                  if k not in concurrency))
            groups.setdefault((step.sweep, others), []).append(step)
    for (_, others), steps in groups.items():
        yield from registry.kind(steps[0].kind).sweep_series(steps, others)
