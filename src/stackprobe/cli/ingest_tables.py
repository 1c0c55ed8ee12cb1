"""Terminal tables for `stackprobe ingest`: one per kind of record a file gave.

fio and iperf3 records share the I/O table; IOR, mdtest and IO500 records each get a table
in their own terms (IOR's max/mean bandwidth per access, mdtest's rate per operation,
IO500's phases with the reported and the recomputed score).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from stackprobe.report.terminal import rich_table
from stackprobe.schema.records import (
    Io500Record,
    IoRecord,
    IorRecord,
    MdtestRecord,
    NetRecord,
)
from stackprobe.tables.io500 import phase_table, score_sentence
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns


def print_records(console: Console, path: Path, fmt: str, records: list) -> None:
    io = [r for r in records if isinstance(r, (IoRecord, NetRecord))]
    if io:
        console.print(_io_table(f"{path} ({fmt})", io))
    ior = [r for r in records if isinstance(r, IorRecord)]
    if ior:
        console.print(_ior_table(f"{path} ({fmt})", ior))
    md = [r for r in records if isinstance(r, MdtestRecord)]
    if md:
        console.print(_mdtest_table(f"{path} ({fmt})", md))
    for rec in records:
        if isinstance(rec, Io500Record):
            title = f"{path} ({fmt}, {rec.version or 'version unknown'})"
            console.print(rich_table(phase_table(title, rec)))
            console.print(score_sentence(rec))
            for line in rec.mismatches:
                console.print(f"[red]mismatch:[/red] {line}")


def _io_table(title: str, records: list) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("Job", "Host", "Dir", "Bandwidth", "IOPS", "Mean lat", "p99 clat", "Error"):
        table.add_column(col)
    for rec in records:
        if isinstance(rec, IoRecord):
            for name, s in rec.directions() or [("-", rec.read)]:
                table.add_row(rec.job, rec.host or "", name, fmt_bw(s.bw_bytes),
                              fmt_iops(s.iops), fmt_ns(s.lat_ns.get("mean")),
                              fmt_ns(s.clat_ns.get("p99")), str(rec.error or ""))
        else:
            bw = fmt_bw(rec.received_bps / 8) if rec.received_bps else "-"
            table.add_row("iperf3", f"{rec.client} -> {rec.server}", "", bw, "", "", "",
                          rec.error or "")
    return table


def _ior_table(title: str, records: list[IorRecord]) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("Test", "Access", "Tasks", "Transfer", "Max bw", "Mean bw", "Iterations",
                "Stonewall"):
        table.add_column(col)
    for r in records:
        xfer = f"{r.transfer_bytes:,} B" if r.transfer_bytes else "-"
        sw = f"{r.stonewall['time_s']:.0f} s" if "time_s" in r.stonewall else ""
        table.add_row(str(r.test if r.test is not None else ""), r.operation,
                      str(r.tasks or "-"), xfer, fmt_bw(r.bw_bytes.max),
                      fmt_bw(r.bw_bytes.mean), str(len(r.iterations) or r.repetitions or "-"),
                      sw)
    return table


def _mdtest_table(title: str, records: list[MdtestRecord]) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("Test", "Operation", "Tasks", "Max ops/s", "Mean ops/s", "Iterations"):
        table.add_column(col)
    for r in records:
        table.add_row(str(r.test if r.test is not None else ""), r.label, str(r.tasks or "-"),
                      fmt_iops(r.rate.max), fmt_iops(r.rate.mean), str(r.iterations or "-"))
    return table
