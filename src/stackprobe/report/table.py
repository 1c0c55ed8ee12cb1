"""The summary table of a run, as plain rows every output format renders.

Laid out like the seed reports' tables: one row per test (per direction for mixed
workloads), in the ladder's order (hardware -> disk -> ... -> client), with bandwidth,
IOPS (or ops/s), mean latency and p99 latency. Figures stay in base units here; the
renderers format them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from stackprobe.analysis.io500_score import in_base_units
from stackprobe.analysis.step_summary import FLEET_HOST
from stackprobe.schema.records import (
    CpuRecord,
    Io500Record,
    MemBwRecord,
    OpsRecord,
    OsdBenchRecord,
)
from stackprobe.report.io500_tables import score_text
from stackprobe.report.slo_tables import slo_answer
from stackprobe.schema.results import DirectionSummary, RunResults, StepResult
from stackprobe.suite.models import LAYERS
from stackprobe.units import fmt_bytes, parse_size


@dataclass
class Row:
    layer: str
    step: str  # step id
    test: str
    workload: str
    direction: str  # read / write / trim / create ... / '' for single-figure rows
    bw_bytes: float | None = None
    iops: float | None = None  # IOPS, or ops/s for metadata
    lat_mean_ns: float | None = None  # total latency (submission + completion)
    p99_ns: float | None = None  # total latency's p99; completion latency's when only that exists
    headline: str | None = None  # which column is the step's headline figure
    status: str = "ok"
    note: str = ""
    runs: int | None = None  # a repeated step: how many runs the figures are the mean of
    ci95_pct: float | None = None  # half-width of the headline's 95% CI, % of the mean
    cov_pct: float | None = None
    noisy: bool = False
    steady: str | None = None  # 'steady from 12 s', 'not steady', 'steady at 14 s, 286 s saved'

    def as_dict(self) -> dict:
        return asdict(self)


def summary_rows(results: RunResults) -> list[Row]:
    rows: list[Row] = []
    order = {layer: i for i, layer in enumerate(LAYERS)}
    steps = sorted(results.steps, key=lambda s: (order.get(s.layer, 99), s.index))
    for step in steps:
        if step.kind == "inventory":
            continue
        rows.extend(_step_rows(step))
    return rows


def _step_rows(step: StepResult) -> list[Row]:
    rows = _figure_rows(step)
    steady = _steady_text(step.summary.steady) if step.summary and step.summary.steady else None
    for row in rows:
        row.steady = steady
    rep = step.summary.repeat if step.summary is not None else None
    if rep is not None and rep.mean:
        for row in rows:
            row.runs = rep.n
            row.ci95_pct = (rep.ci95_high - rep.mean) / rep.mean * 100 if rep.ci95_high else None
            row.cov_pct = rep.cov * 100 if rep.cov is not None else None
            row.noisy = rep.noisy
    return rows


def _steady_text(s: dict) -> str:
    if not s.get("steady"):
        return "not steady"
    at = s.get("reached_at_s")
    text = f"steady from {at:.0f} s" if at is not None else "steady"
    if s.get("stopped_early"):
        text = f"steady at {at:.0f} s, stopped: {s.get('saved_s', 0):.0f} s saved"
    return text


def _figure_rows(step: StepResult) -> list[Row]:
    base = dict(layer=step.layer, step=step.id, workload=workload_text(step.params))
    note = step.error or ""
    s = step.summary
    per_host = _per_host_rows(step, base, note)
    if per_host:
        return per_host
    io500 = [r for r in step.records if isinstance(r, Io500Record)]
    if io500:
        return _io500_rows(step, io500[-1], base, note)
    if s is None:
        return [Row(test=step.title, direction="", status=step.status, note=note, **base)]
    rows: list[Row] = []
    for rec in step.records:
        if isinstance(rec, OsdBenchRecord):
            where = ", ".join(x for x in (rec.device_class, rec.host) if x)
            rows.append(Row(test=f"osd.{rec.osd} bench" + (f" ({where})" if where else ""),
                            direction="write", bw_bytes=rec.bw_bytes, iops=rec.iops,
                            headline="bw", status=step.status, note=note,
                            **{**base, "workload": _osd_workload(step)}))
    for op, bw in s.membw.items():
        title = f"Memory {op} bandwidth ({s.tool})"
        rows.append(Row(test=title, direction=op, bw_bytes=bw, headline="bw",
                        status=step.status, note=note, **{**base, "workload": _mem_workload(step)}))
    for op, rate in s.ops.items():
        fleet = " (all clients)" if step.hosts else ""
        rows.append(Row(test=f"File {op}{fleet}", direction=op, iops=rate,
                        lat_mean_ns=s.ops_lat_mean_ns.get(op), headline="iops",
                        status=step.status, note=note, **base))
        rows += [Row(test=f"File {op}: {rec.host}", direction=op, iops=rec.ops_per_s,
                     lat_mean_ns=rec.lat_ns.get("mean"), headline="iops", status=step.status,
                     note=note, **base)
                 for rec in step.records if step.hosts and isinstance(rec, OpsRecord)
                 and rec.operation == op and rec.host != FLEET_HOST]
    groups = s.io
    if step.kind == "slo":  # one row: the answer; the probes are the slo table's
        rec, answer_label = slo_answer(step)
        groups = [g for g in s.io if answer_label and g.label.endswith(answer_label)]
        if not groups:
            reason = rec.reason if rec else "no answer"
            return [Row(test=step.title, direction="", status=step.status,
                        note=note or f"no setting meets the limit ({reason})", **base)]
    for group in groups:
        dirs = [(n, d) for n, d in (("read", group.read), ("write", group.write),
                                    ("trim", group.trim)) if d is not None]
        label = step.title if len(groups) == 1 else f"{step.title}: {group.label}"
        if step.kind == "disk_baseline":
            label = _baseline_label(group.host, group.label)
        elif step.hosts and group.host:
            label = f"{step.title}: {group.host}"
        for name, d in dirs:
            test = f"{label} ({name})" if len(dirs) > 1 else label
            rows.append(_io_row(test, name, d, step, note, base))
    if not rows:
        rows.append(Row(test=step.title, direction="", status=step.status, note=note, **base))
    return rows


def _io500_rows(step: StepResult, rec: Io500Record, base: dict, note: str) -> list[Row]:
    """One row per IO500 phase (bandwidth in B/s, metadata in ops/s), then the score."""
    rows = []
    prefix = "IO500" if rec.official else "io500-like"
    for ph in rec.phases:
        figure = in_base_units(ph.value, ph.unit)
        bw, ops = (figure, None) if ph.kind == "bw" else (None, figure)
        rows.append(Row(test=f"{prefix} {ph.name}", direction=ph.kind, bw_bytes=bw,
                        iops=ops, headline="bw" if ph.kind == "bw" else "iops",
                        status=step.status, note="" if ph.scored else "not scored", **base))
    s = rec.score_computed
    score = f"score {score_text(s)}" if s else "no score"
    label = f"; {rec.label}" if rec.label else ""
    rows.append(Row(test=f"{prefix} score", direction="", status=step.status,
                    note=f"{score}{label}" + (f"; {note}" if note else ""), **base))
    return rows


def _baseline_label(host: str | None, label: str) -> str:
    """'Disk h1 /srv/a alone', 'Disk h1: 3 targets together'."""
    where = f"Disk {host}" if host else "Disk"
    targets = [t.split(":", 1)[1] for t in label.split(", ") if ":" in t]
    if label.startswith("single:") and len(targets) == 1:
        return f"{where} {targets[0]} alone"
    return f"{where}: {len(targets)} targets together"


def _per_host_rows(step: StepResult, base: dict, note: str) -> list[Row]:
    """CPU throughput (any step), and memory bandwidth of a step run on several hosts: one
    row per host and figure (their comparison is the consistency table's); a repeated
    step's row is the mean over its runs."""
    groups: dict[tuple, list] = {}
    for rec in step.records:
        if isinstance(rec, CpuRecord) or (isinstance(rec, MemBwRecord) and step.hosts):
            what = rec.stressor if isinstance(rec, CpuRecord) else rec.operation
            groups.setdefault((type(rec).__name__, rec.host, what), []).append(rec)
    rows = []
    for recs in groups.values():
        rec, runs = recs[0], len(recs)
        if isinstance(rec, CpuRecord):
            where = f" ({rec.host})" if step.hosts and rec.host else ""
            workload = f"{rec.workers or '?'} workers, {rec.seconds:g} s"
            rows.append(Row(test=f"CPU {rec.stressor} bogo ops/s{where}", direction="",
                            iops=sum(r.bogo_ops_per_s for r in recs) / runs, headline="iops",
                            status=step.status, note=note, **{**base, "workload": workload}))
        else:
            rows.append(Row(test=f"Memory {rec.operation} bandwidth ({rec.tool}, {rec.host})",
                            direction=rec.operation, bw_bytes=sum(r.bw_bytes for r in recs) / runs,
                            headline="bw", status=step.status, note=note,
                            **{**base, "workload": _mem_workload(step)}))
    return rows


def _io_row(test: str, name: str, d: DirectionSummary, step: StepResult, note: str,
            base: dict) -> Row:
    return Row(
        test=test,
        direction=name,
        bw_bytes=d.bw_bytes,
        iops=d.iops,
        lat_mean_ns=d.lat_mean_ns,
        # the p99 of the same quantity as the mean (total latency) when fio reported it
        p99_ns=d.lat_ns.get("p99", d.clat_ns.get("p99")),
        headline={"iops": "iops", "bw": "bw", "lat": "lat"}.get(step.headline or ""),
        status=step.status,
        note=note,
        **base,
    )


def workload_text(params: dict) -> str:
    """'randwrite 4k QD128', '4M rw 50/50 QD32 x2 jobs', 'job file x.fio'."""
    if "job_file" in params:
        return f"job file {params['job_file'].rsplit('/', 1)[-1]}"
    if "modes" in params:  # rados bench
        return f"{params['block_size']} objects, {params['threads']} threads, {params['seconds']:g} s"
    if "io_type" in params:  # rbd bench
        text = f"{params['io_pattern']} {params['io_size']}, {params['io_threads']} threads"
        return text + f", {params['io_total']} total"
    if "files" in params:  # metadata
        jobs = int(params.get("numjobs", 1))
        text = f"{params['files']} files x{jobs} job{'s' if jobs > 1 else ''}"
        return text + (", one shared dir" if params.get("layout") == "hard" else "")
    if "rw" not in params:
        return ""
    parts = [str(params["rw"]), str(params.get("bs", ""))]
    if params["rw"] in ("rw", "readwrite", "randrw"):
        mix = int(params.get("rwmixread", 50))
        parts.append(f"{mix}/{100 - mix}")
    if "iodepth" in params:
        parts.append(f"QD{params['iodepth']}")
    if int(params.get("numjobs", 1)) > 1:
        parts.append(f"x{params['numjobs']} jobs")
    return " ".join(p for p in parts if p)


def _osd_workload(step: StepResult) -> str:
    p = step.params
    return f"{p.get('bytes')} in {p.get('block_size')} writes"


def _mem_workload(step: StepResult) -> str:
    p = step.params
    try:
        size = fmt_bytes(parse_size(p.get("size", 0)))
    except ValueError:
        size = str(p.get("size"))
    return f"{size} per op, threads={p.get('threads', 'auto')}"
