"""Sweep tables with advice (seed 003): each workload of a sweep along its concurrency
(fio iodepth x numjobs, rados bench threads, rbd bench io threads), the figures, and the
sentences analysis/recommend.py derives from them: best setting, diminishing returns,
where latency outgrows throughput."""

from __future__ import annotations

from collections.abc import Iterator

from stackprobe.analysis.recommend import SweepPoint, advise
from stackprobe.tables.text_table import TextTable
from stackprobe.schema.results import DirectionSummary, RunResults, StepResult
from stackprobe.schema.records import percentile_key
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns, parse_duration_s

# the parameters that set how many I/Os are outstanding, per step kind
CONCURRENCY = {"fio": ("iodepth", "numjobs"), "rados_bench": ("threads",),
               "rbd_bench": ("io_threads",)}


def sweep_tables(results: RunResults) -> list[TextTable]:
    tables = []
    for title, unit, points, limit in sweep_workloads(results):
        if len({p.concurrency for p in points}) < 2:
            continue
        pct = f"p{float(limit['percentile']):g}" if limit else None
        advice = advise(points, unit=unit, workload=title,
                        latency_limit_ns=parse_duration_s(limit["limit"]) * 1e9 if limit else None,
                        latency_name=pct or "mean latency")
        fmt = fmt_iops if unit == "IOPS" else fmt_bw
        table = TextTable(f"Sweep: {title}", ["Setting", "IOPS" if unit == "IOPS" else
                                              "Bandwidth", f"{pct} latency" if pct else
                                              "Mean latency"])
        for p in sorted(points, key=lambda q: q.concurrency):
            table.rows.append([p.label, fmt(p.throughput),
                               fmt_ns(p.latency_ns) if p.latency_ns is not None else "-"])
        table.notes.extend(advice.sentences)
        tables.append(table)
    return tables


def sweep_workloads(results: RunResults) -> Iterator[tuple[str, str, list[SweepPoint], dict | None]]:
    """(title, unit, points, advice limit) for every workload of every sweep: the sweep's
    steps grouped by their swept values other than concurrency (rw, bs, target ...), rados
    bench by mode. With an advice limit, a point's latency is that percentile (the worse
    direction's); otherwise the I/O-weighted mean."""
    groups: dict[tuple, list[StepResult]] = {}
    for step in results.steps:
        if step.sweep and step.kind in CONCURRENCY and step.status == "ok" and step.summary:
            others = tuple(sorted((k, str(v)) for k, v in step.swept.items()
                                  if k not in CONCURRENCY[step.kind]))
            groups.setdefault((step.sweep, others), []).append(step)
    for (_, others), steps in groups.items():
        first = steps[0]
        label = ", ".join(f"{k}={v}" for k, v in others)
        if first.kind == "rados_bench":
            for mode in ("write", "seq", "rand"):
                points = [pt for s in steps if (pt := _rados_point(s, mode))]
                yield f"rados bench {mode}" + (f" ({label})" if label else ""), "B/s", points, None
            continue
        unit = "B/s" if first.headline == "bw" else "IOPS"
        limit = first.params.get("advice")
        points = [pt for s in steps if (pt := _io_point(s, unit, limit))]
        yield _fio_name(first, others), unit, points, limit


def _fio_name(step: StepResult, others: tuple) -> str:
    """'4k randread on RBD (rwmixread=70)': the workload, not its concurrency."""
    p = step.params
    if "job_file" in p:
        return step.title
    where = {"rbd": " on RBD", "cephfs": " on CephFS"}.get(p.get("target", ""), "")
    rest = ", ".join(f"{k}={v}" for k, v in others if k not in ("rw", "bs", "target"))
    return f"{p.get('bs', '')} {p.get('rw', '')}{where}".strip() + (f" ({rest})" if rest else "")


def _concurrency(step: StepResult) -> tuple[float, str]:
    keys = CONCURRENCY[step.kind]
    values = [int(step.params.get(k, 1)) for k in keys]
    total = 1
    for v in values:
        total *= v
    return float(total), ", ".join(f"{k}={v}" for k, v in zip(keys, values))


def _io_point(step: StepResult, unit: str, limit: dict | None) -> SweepPoint | None:
    if not step.summary.io:
        return None
    dirs = [d for d in (step.summary.io[0].read, step.summary.io[0].write) if d is not None]
    if not dirs:
        return None
    concurrency, label = _concurrency(step)
    throughput = sum(d.iops if unit == "IOPS" else d.bw_bytes for d in dirs)
    latency = _percentile(dirs, limit["percentile"]) if limit else _mean_latency(dirs)
    return SweepPoint(label, concurrency, throughput, latency, dict(step.params))


def _percentile(dirs: list[DirectionSummary], pct: float) -> float | None:
    """The worse direction's total-latency percentile (completion latency's if fio had
    no total-latency percentiles)."""
    key = percentile_key(pct)
    values = [(d.lat_ns or d.clat_ns).get(key) for d in dirs]
    return None if any(v is None for v in values) else max(values)


def _rados_point(step: StepResult, mode: str) -> SweepPoint | None:
    for group in step.summary.io:
        if group.label.split()[0] == mode:
            d = group.write if mode == "write" else group.read
            if d is None:
                return None
            concurrency, label = _concurrency(step)
            return SweepPoint(label, concurrency, d.bw_bytes, d.lat_mean_ns, dict(step.params))
    return None


def _mean_latency(dirs: list[DirectionSummary]) -> float | None:
    """I/O-weighted mean total latency over the directions."""
    pairs = [(d.lat_mean_ns, d.iops) for d in dirs if d.lat_mean_ns is not None]
    total = sum(w for _, w in pairs)
    return sum(m * w for m, w in pairs) / total if pairs and total else None
