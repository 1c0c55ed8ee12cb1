"""Summary rows: one per test (per direction for mixed workloads), as plain data every
output format renders, and the builders kinds compose their rows from.

Laid out like the seed reports' tables: bandwidth, IOPS (or ops/s), mean latency and p99
latency. Figures stay in base units here; the renderers format them. Which builders a
step's rows come from is its kind's choice (`Kind.rows`); `record_rows` is the common one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

from stackprobe.schema.records import CpuRecord, MemBwRecord, OpsRecord, OsdBenchRecord
from stackprobe.schema.results import DirectionSummary, IoGroupSummary, StepResult
from stackprobe.schema.sentinels import FLEET_HOST
from stackprobe.units import fmt_bytes, parse_size


@dataclass
class Row:
    layer: str
    step: str  # step id
    test: str
    workload: str
    direction: str  # read / write / trim / create ... / '' for single-figure rows
    bw_bytes: float | None = None
    iops: float | None = None  # IOPS, or ops/s for metadata, or a rate in `ops_unit`
    ops_unit: str | None = None  # the iops column's unit when not IOPS: 'flop/s' (HPL)
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


def base(step: StepResult, workload: str) -> dict:
    """The fields every row of a step shares."""
    return dict(layer=step.layer, step=step.id, workload=workload)


def status_row(step: StepResult, workload: str, note: str | None = None) -> Row:
    """A row without figures: the step's title and status (and why, when it failed)."""
    return Row(test=step.title, direction="", status=step.status,
               note=step.error or "" if note is None else note, **base(step, workload))


def record_rows(step: StepResult, workload: str,
                io_label: Callable[[IoGroupSummary], str] | None = None,
                ops_name: str = "File") -> list[Row]:
    """The common rows: per-OSD benches, memory bandwidth, metadata operations (named
    '<ops_name> <operation>') and I/O groups, from the step's summary; the status alone
    when it has none."""
    if step.summary is None:
        return [status_row(step, workload)]
    rows = osd_rows(step) + membw_rows(step) + ops_rows(step, workload, ops_name)
    rows += io_rows(step, workload, step.summary.io, io_label)
    return rows or [status_row(step, workload)]


def osd_rows(step: StepResult) -> list[Row]:
    p = step.params
    workload = f"{p.get('bytes')} in {p.get('block_size')} writes"
    rows = []
    for rec in step.records:
        if isinstance(rec, OsdBenchRecord):
            where = ", ".join(x for x in (rec.device_class, rec.host) if x)
            rows.append(Row(test=f"osd.{rec.osd} bench" + (f" ({where})" if where else ""),
                            direction="write", bw_bytes=rec.bw_bytes, iops=rec.iops,
                            headline="bw", status=step.status, note=step.error or "",
                            **base(step, workload)))
    return rows


def membw_rows(step: StepResult) -> list[Row]:
    s = step.summary
    if s is None:
        return []
    return [Row(test=f"Memory {op} bandwidth ({s.tool})", direction=op, bw_bytes=bw,
                headline="bw", status=step.status, note=step.error or "",
                **base(step, memory_workload(step)))
            for op, bw in s.membw.items()]


def ops_rows(step: StepResult, workload: str, name: str = "File") -> list[Row]:
    """Each operation's rate ('File create'); on hosts, all clients' then each client's."""
    s = step.summary
    if s is None:
        return []
    rows = []
    note = step.error or ""
    for op, rate in s.ops.items():
        fleet = " (all clients)" if step.hosts else ""
        rows.append(Row(test=f"{name} {op}{fleet}", direction=op, iops=rate,
                        lat_mean_ns=s.ops_lat_mean_ns.get(op), headline="iops",
                        status=step.status, note=note, **base(step, workload)))
        rows += [Row(test=f"{name} {op}: {rec.host}", direction=op, iops=rec.ops_per_s,
                     lat_mean_ns=rec.lat_ns.get("mean"), headline="iops", status=step.status,
                     note=note, **base(step, workload))
                 for rec in step.records if step.hosts and isinstance(rec, OpsRecord)
                 and rec.operation == op and rec.host != FLEET_HOST]
    return rows


def io_rows(step: StepResult, workload: str, groups: list[IoGroupSummary],
            label: Callable[[IoGroupSummary], str] | None = None) -> list[Row]:
    """A row per direction of each I/O group, named after the step (and the group or host
    when there are several) unless `label` names the group."""
    rows = []
    for group in groups:
        dirs = [(n, d) for n, d in (("read", group.read), ("write", group.write),
                                    ("trim", group.trim)) if d is not None]
        name = step.title if len(groups) == 1 else f"{step.title}: {group.label}"
        if label is not None:
            name = label(group)
        elif step.hosts and group.host:
            name = f"{step.title}: {group.host}"
        for direction, d in dirs:
            test = f"{name} ({direction})" if len(dirs) > 1 else name
            rows.append(io_row(test, direction, d, step, workload))
    return rows


def io_row(test: str, direction: str, d: DirectionSummary, step: StepResult,
           workload: str) -> Row:
    return Row(
        test=test,
        direction=direction,
        bw_bytes=d.bw_bytes,
        iops=d.iops,
        lat_mean_ns=d.lat_mean_ns,
        # the p99 of the same quantity as the mean (total latency) when fio reported it
        p99_ns=d.lat_ns.get("p99", d.clat_ns.get("p99")),
        headline={"iops": "iops", "bw": "bw", "lat": "lat"}.get(step.headline or ""),
        status=step.status,
        note=step.error or "",
        **base(step, workload),
    )


def per_host_rows(step: StepResult, workload: str, *, memory_text=None) -> list[Row]:
    """CPU throughput, and memory bandwidth measured on hosts: one row per host and
    figure (their comparison is the consistency table's); a repeated step's row is the
    mean over its runs. `memory_text(step, record)` describes a memory row's workload
    when the step's own parameters do not (an `hpl`/`stream` step's fallback); given, it
    also keeps the memory rows of a step on this machine alone. A record measured in
    place of another figure says so in its note."""
    groups: dict[tuple, list] = {}
    for rec in step.records:
        if isinstance(rec, CpuRecord) or (isinstance(rec, MemBwRecord)
                                          and (step.hosts or memory_text)):
            what = rec.stressor if isinstance(rec, CpuRecord) else rec.operation
            groups.setdefault((type(rec).__name__, rec.host, what), []).append(rec)
    rows = []
    for recs in groups.values():
        rec, runs = recs[0], len(recs)
        note = "; ".join(x for x in (f"fallback for {rec.fallback}" if rec.fallback else "",
                                     step.error or "") if x)
        if isinstance(rec, CpuRecord):
            where = f" ({rec.host})" if step.hosts and rec.host else ""
            text = f"{rec.workers or '?'} workers, {rec.seconds:g} s"
            rows.append(Row(test=f"CPU {rec.stressor} bogo ops/s{where}", direction="",
                            iops=sum(r.bogo_ops_per_s for r in recs) / runs, headline="iops",
                            status=step.status, note=note, **base(step, text)))
        else:
            host = f", {rec.host}" if rec.host else ""
            text = memory_text(step, rec) if memory_text else memory_workload(step)
            rows.append(Row(test=f"Memory {rec.operation} bandwidth ({rec.tool}{host})",
                            direction=rec.operation, bw_bytes=sum(r.bw_bytes for r in recs) / runs,
                            headline="bw", status=step.status, note=note, **base(step, text)))
    return rows


def memory_workload(step: StepResult) -> str:
    p = step.params
    try:
        size = fmt_bytes(parse_size(p.get("size", 0)))
    except ValueError:
        size = str(p.get("size"))
    return f"{size} per op, threads={p.get('threads', 'auto')}"


def fio_workload(params: dict) -> str:
    """'randwrite 4k QD128', '4M rw 50/50 QD32 x2 jobs' from fio-style parameters."""
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
