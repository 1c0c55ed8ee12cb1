"""Terminal tables for `stackprobe ingest`: one per kind of record a file gave.

fio records get the I/O table, iperf3's (JSON or text) their own in Gbit/s; IOR, mdtest
and IO500 records each get a table in their own terms (IOR's max/mean bandwidth per access, mdtest's rate per operation,
IO500's phases with the reported and the recomputed score). STREAM, HPL and hpcc show their
figures in the tools' own decimal units (MB/s, Gflops) beside each run's own check: a run
whose check failed or is not in the file shows no figure, only why
(schema/hpc_records.py keeps its printed rate as untrusted). OSU and perftest runs show a
row per message size in the units the tool printed (OSU's µs and MB/s, perftest's µs and
its table's bandwidth unit), perftest's under its settings line; a run the file cuts short
says so in its title.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from stackprobe.cli.ingest_peer_tables import print_peer_records
from stackprobe.report.terminal import rich_table
from stackprobe.schema.fabric_records import OsuRecord, PerftestRecord
from stackprobe.schema.records import (
    HpccRecord,
    HplRecord,
    Io500Record,
    IoRecord,
    IorRecord,
    MdtestRecord,
    NetRecord,
    StreamRecord,
)
from stackprobe.tables.io500 import phase_table, score_sentence
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns


def print_records(console: Console, path: Path, fmt: str, records: list) -> None:
    print_peer_records(console, f"{path} ({fmt})", records)
    io = [r for r in records if isinstance(r, IoRecord)]
    if io:
        console.print(_io_table(f"{path} ({fmt})", io))
    if net := [r for r in records if isinstance(r, NetRecord)]:
        console.print(_net_table(escape(f"{path} ({fmt})"), net))
    ior = [r for r in records if isinstance(r, IorRecord)]
    if ior:
        console.print(_ior_table(f"{path} ({fmt})", ior))
    md = [r for r in records if isinstance(r, MdtestRecord)]
    if md:
        console.print(_mdtest_table(f"{path} ({fmt})", md))
    for kind, table in ((StreamRecord, _stream_table), (HplRecord, _hpl_table)):
        if found := [r for r in records if isinstance(r, kind)]:
            console.print(table(f"{path} ({fmt})", found))
    for rec in records:
        if isinstance(rec, HpccRecord):
            console.print(_hpcc_table(f"{path} ({fmt}, run {rec.run})", rec))
        if isinstance(rec, Io500Record):
            title = f"{path} ({fmt}, {rec.version or 'version unknown'})"
            console.print(rich_table(phase_table(title, rec)))
            console.print(score_sentence(rec))
            for line in rec.mismatches:
                console.print(f"[red]mismatch:[/red] {line}")
        if isinstance(rec, (OsuRecord, PerftestRecord)):
            console.print(_fabric_table(f"{path} ({fmt})", rec))
            if line := _cut_line(rec):
                console.print(line)


def _io_table(title: str, records: list) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("Job", "Host", "Dir", "Bandwidth", "IOPS", "Mean lat", "p99 clat", "Error"):
        table.add_column(col)
    for rec in records:
        for name, s in rec.directions() or [("-", rec.read)]:
            table.add_row(rec.job, rec.host or "", name, fmt_bw(s.bw_bytes),
                          fmt_iops(s.iops), fmt_ns(s.lat_ns.get("mean")),
                          fmt_ns(s.clat_ns.get("p99")), str(rec.error or ""))
    return table


def _net_table(title: str, records: list[NetRecord]) -> Table:
    """iperf3 runs in its own units: Gbit/s (decimal, as iperf3 counts rates)."""
    table = Table(title=title, header_style="bold")
    for col in ("Client -> server", "Test", "Seconds", "Sent Gbit/s", "Received Gbit/s", "Retr",
                "Error"):
        table.add_column(col)
    for r in records:
        test = ", ".join(t for t in (r.protocol, f"{r.streams} streams" if r.streams else None,
                                     "reverse" if r.reverse else None) if t)
        table.add_row(escape(f"{r.client or '?'} -> {r.server or '?'}"), escape(test),
                      "" if r.duration_s is None else f"{r.duration_s:g}",
                      *("-" if v is None else f"{v / 1e9:.3f}" for v in (r.sent_bps, r.received_bps)),
                      "" if r.retransmits is None else str(r.retransmits), escape(r.error or ""))
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


def _check(ok: bool | None, failed: str = "FAILED") -> str:
    return {True: "PASSED", False: f"[red]{failed}[/red]", None: "[yellow]no check[/yellow]"}[ok]


def _gflops(flops: float | None) -> str:
    return "-" if flops is None else f"{flops / 1e9:.6g}"


def _stream_table(title: str, records: list[StreamRecord]) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("Run", "Threads", "Array", "Copy MB/s", "Scale MB/s", "Add MB/s", "Triad MB/s", "Check"):
        table.add_column(col)
    for r in records:
        rates = [r.kernels.get(k) for k in ("copy", "scale", "add", "triad")]
        table.add_row(str(r.run), str(r.threads or "-"), f"{r.array_elements or 0:,}",
                      *(f"{k.best_bw_bytes / 1e6:.1f}" if k and k.best_bw_bytes else "-" for k in rates),
                      _check(r.validated, "FAILED validation"))
    return table


def _hpl_table(title: str, records: list[HplRecord]) -> Table:
    table = Table(title=title, header_style="bold")
    for col in ("Test", "T/V", "N", "NB", "P×Q", "Time s", "Gflops", "Residual", "Check"):
        table.add_column(col)
    for r in records:
        table.add_row(str(r.test), r.tv, str(r.n), str(r.nb), f"{r.p}×{r.q}",
                      "-" if r.time_s is None else f"{r.time_s:g}", _gflops(r.flops_per_s),
                      "-" if r.residual is None else f"{r.residual:.4g}", _check(r.passed))
    return table


def _hpcc_table(title: str, r: HpccRecord) -> Table:
    """One hpcc run: a line per test, its figures in hpcc's units and its own check."""
    table = Table(title=f"{title}: {r.host or '?'}, {r.procs or '?'} processes, "
                        f"{'Success=' + str(int(r.success)) if r.success is not None else 'no summary'}",
                  header_style="bold")
    for col in ("Test", "Figures", "Check"):
        table.add_column(col)
    if r.hpl is not None:
        h = r.hpl
        rate = "no result" if h.flops_per_s is None else f"{_gflops(h.flops_per_s)} Gflops"
        table.add_row("HPL", f"N {h.n}, NB {h.nb}, P×Q {h.p}×{h.q}: {rate}", _check(h.passed))
    elif r.hpl_tests:
        table.add_row("HPL", f"{len(r.hpl_tests)} test rows, no summary", _check(r.checks.get("HPL")))
    rows = (("StarSTREAM", "stream_bw_bytes", "star_", 1e9, "GB/s"),
            ("SingleSTREAM", "stream_bw_bytes", "single_", 1e9, "GB/s"),
            ("DGEMM", "dgemm_flops_per_s", "", 1e9, "Gflops"), ("PTRANS", "ptrans_bw_bytes", "", 1e9, "GB/s"),
            ("RandomAccess", "random_access_updates_per_s", "", 1e9, "GUP/s"),
            ("FFT", "fft_flops_per_s", "", 1e9, "Gflops"), ("PingPong latency", "pingpong_latency_ns", "", 1e3, "µs"),
            ("PingPong bandwidth", "pingpong_bw_bytes", "", 1e6, "MB/s"),
            ("Ring latency", "ring_latency_ns", "", 1e3, "µs"), ("Ring bandwidth", "ring_bw_bytes", "", 1e6, "MB/s"))
    for name, field, prefix, scale, unit in rows:
        figures = {k[len(prefix):]: v for k, v in getattr(r, field).items() if k.startswith(prefix)}
        if figures:
            text = ", ".join(f"{k} {v / scale:.6g}" for k, v in figures.items())
            checks = [ok for section, ok in r.checks.items() if name.split()[0] in section]
            table.add_row(name, f"{text} {unit}", _check(all(checks)) if checks else "")
    for key in r.untrusted:
        table.add_row("[red]not a result[/red]", key, "[red]its check failed[/red]")
    return table


_FABRIC_COLUMNS = (  # (row field, heading, divisor to the printed unit; None: perftest's bandwidth unit)
    ("latency_ns", "Latency µs", 1e3), ("min_latency_ns", "Min µs", 1e3),
    ("max_latency_ns", "Max µs", 1e3), ("t_min_ns", "t_min µs", 1e3), ("t_typical_ns", "t_typical µs", 1e3),
    ("t_avg_ns", "t_avg µs", 1e3), ("t_max_ns", "t_max µs", 1e3), ("t_stdev_ns", "t_stdev µs", 1e3), ("p99_ns", "99% µs", 1e3),
    ("p99_9_ns", "99.9% µs", 1e3), ("bw_bytes", "Bandwidth MB/s", 1e6), ("bw_peak_bytes", "BW peak", None),
    ("bw_avg_bytes", "BW average", None), ("messages_per_s", "Messages/s", 1.0),
    ("transactions_per_s", "tps", 1.0), ("iterations", "Iterations", 1.0))
_PERFTEST_BW = {"Gb/sec": 125e6}  # MB/sec and MiB/sec: 2^20 bytes


def _cut_line(r: OsuRecord | PerftestRecord) -> str:
    """The state of a table the file may end inside, on its own line: a title wraps with the
    path's length and could split the words a reader (and a script) looks for."""
    if r.complete is False:
        return f"[red]cut short:[/red] the file ends inside the table; only the {len(r.rows)} rows printed are shown"
    if r.complete is None:
        return "[yellow]may be cut short:[/yellow] the file ends after a whole row below the tool's last size"
    return ""


def _fabric_table(title: str, r: OsuRecord | PerftestRecord) -> Table:
    """One OSU or perftest run: a row per message size, figures in the tool's own units."""
    name = r.benchmark or r.title
    head = f"{name} {r.tool_version or ''}".strip() if isinstance(r, OsuRecord) else (
        f"{name}: {r.device or '?'}, {r.link_type or '?'} link, {r.connection or '?'}, "
        f"MTU {r.mtu_bytes or '?'}, {r.qps or '?'} QP")
    table = Table(title=f"{title}: {head}, run {r.run}", header_style="bold")
    shown = [c for c in _FABRIC_COLUMNS if any(getattr(row, c[0], None) is not None for row in r.rows)]
    unit = getattr(r, "bw_unit", None) or "MB/s"
    table.add_column("Size B")
    for _field, heading, divisor in shown:
        table.add_column(heading if divisor is not None else f"{heading} {unit}")
    for row in r.rows:
        cells = []
        for field, _heading, divisor in shown:
            value = getattr(row, field)
            scale = divisor or _PERFTEST_BW.get(unit, 1024.0 ** 2)
            cells.append("-" if value is None else str(value) if field == "iterations"
                         else f"{value / scale:.2f}")
        table.add_row(str(row.size_bytes), *cells)
    return table
