"""Terminal tables for the peers' files `stackprobe ingest` reads: elbencho, vdbench,
sysbench, stress-ng.

Each shows the figures in the tool's own terms and units, as the file does: elbencho's
"first done" and "last done" per phase and result, its live intervals; vdbench's lines of
each run definition with its avg_ line; sysbench's rates, events and latency in ms; stress-ng's bogo ops per stressor; the memory
bandwidth sysbench memory and stress-ng --stream print, in their MiB/s.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from stackprobe.schema.peer_records import (
    ElbenchoLiveRecord,
    ElbenchoPhaseRecord,
    SysbenchRecord,
    VdbenchLine,
    VdbenchRecord,
)
from stackprobe.schema.records import CpuRecord, MemBwRecord


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if value == int(value) and abs(value) < 1e15 else f"{value:,}"


def print_peer_records(console: Console, title: str, records: list) -> None:
    """Every text taken from the file is escaped: a '[/x]' in it is not rich's markup."""
    title = esc(title)
    phases = [r for r in records if isinstance(r, ElbenchoPhaseRecord)]
    if phases:
        console.print(_elbencho_table(title, phases))
        if phases[0].params:
            console.print(esc("parameters: " + ", ".join(f"{k} {v}" for k, v in phases[0].params.items())))
    if cpu := [r for r in records if isinstance(r, CpuRecord)]:
        console.print(_cpu_table(title, cpu))
    if mem := [r for r in records if isinstance(r, MemBwRecord)]:
        console.print(_membw_table(title, mem))
    for rec in records:
        if isinstance(rec, ElbenchoLiveRecord):
            console.print(_live_table(title, rec))
        elif isinstance(rec, VdbenchRecord):
            console.print(_vdbench_table(title, rec))
        elif isinstance(rec, SysbenchRecord):
            console.print(_sysbench_table(title, rec))


def _elbencho_table(title: str, records: list[ElbenchoPhaseRecord]) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("#", "Phase", "Result", "First done", "Last done"):
        table.add_column(col)
    for r in records:
        block, phase = str(r.block), esc(r.phase)
        for label in dict.fromkeys([*r.first, *r.last]):
            table.add_row(block, phase, esc(label), _num(r.first.get(label)), _num(r.last.get(label)))
            block = phase = ""
        stats = {}
        for key, value in r.latency_us.items():
            name, stat = key.rsplit(" ", 1)
            stats.setdefault(name, []).append(f"{stat} {_num(value)}")
        for name, parts in stats.items():
            table.add_row(block, phase, esc(f"{name} (µs)"), "", ", ".join(parts))
            block = phase = ""
        if block:
            table.add_row(block, phase, "no figures", "", "")
    return table


def _live_table(title: str, r: ElbenchoLiveRecord) -> Table:
    table = Table(title=f"{title}: {esc(r.phase)}, rank {esc(r.rank)}", header_style="bold")
    for col in ("Runtime s", "MiB/s", "IOPS", "Entries/s", "Done bytes", "Active", "CPU%"):
        table.add_column(col)
    for p in r.points:
        table.add_row(f"{p.runtime_ms / 1000:g}", _num(p.mib_s), _num(p.iops), _num(p.entries_s),
                      _num(p.done_bytes), _num(p.active), _num(p.cpu_pct))
    return table


_VDBENCH = (("iops", "IOPS"), ("mib_s", "MiB/s"), ("bytes_per_io", "Bytes/io"),
            ("read_pct", "Read%"), ("resp_ms", "Resp ms"), ("resp_max_ms", "Resp max ms"),
            ("resp_std_ms", "Resp std ms"), ("queue_depth", "Queue depth"))


def _vdbench_table(title: str, r: VdbenchRecord) -> Table:
    lines: list[VdbenchLine] = [*r.intervals, *r.totals]
    shown = [c for c in _VDBENCH if any(getattr(ln, c[0]) is not None for ln in lines)]
    head = esc(f"{r.rd}: {r.description}" if r.description else r.rd)
    table = Table(title=f"{title}: {head}", header_style="bold")
    for col in ("Interval", *(heading for _, heading in shown)):
        table.add_column(col)
    for ln in lines:
        label = ln.label if ln.label.isdigit() else f"[bold]{esc(ln.label)}[/bold]"
        table.add_row(label, *(_num(getattr(ln, f)) for f, _ in shown))
    return table


def _sysbench_table(title: str, r: SysbenchRecord) -> Table:
    table = Table(title=f"{title}: sysbench {r.test}, {r.threads or '?'} threads", header_style="bold")
    table.add_column("Figure")
    table.add_column("Value")
    for key, value in r.settings.items():
        table.add_row(esc(key), esc(value))
    for label, value in (("events/s", r.events_per_s), ("total time s", r.total_time_s),
                         ("events", r.events)):
        if value is not None:
            table.add_row(label, _num(value))
    for key, value in r.rates.items():
        table.add_row(esc(key), _num(value))
    for key, value in r.latency_ms.items():
        table.add_row(f"latency {key} ms", _num(value))
    return table


def _cpu_table(title: str, records: list[CpuRecord]) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("Stressor", "Workers", "Bogo ops", "Real time s", "Bogo ops/s (real)",
                "Bogo ops/s (usr+sys)"):
        table.add_column(col)
    for r in records:
        table.add_row(esc(r.stressor), str(r.workers or "-"), _num(r.bogo_ops), _num(r.seconds),
                      _num(r.bogo_ops_per_s), _num(r.bogo_ops_per_cpu_s))
    return table


def _membw_table(title: str, records: list[MemBwRecord]) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("Tool", "Operation", "Threads", "Block B", "MiB/s", "MiB moved"):
        table.add_column(col)
    for r in records:
        moved = r.total_bytes / 2**20 if r.total_bytes else None
        table.add_row(esc(r.tool), esc(r.operation), str(r.threads or "-"), _num(r.block_bytes),
                      f"{r.bw_bytes / 2**20:,.2f}", _num(moved))
    return table
