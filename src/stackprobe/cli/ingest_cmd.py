"""`stackprobe ingest FILE... [--json]`: bring outputs people already have.

The tool and format are detected from the content. A file that cannot be read costs one
line on stderr; the other files are still ingested (exit 1 when any failed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from stackprobe.parsers.records import IoRecord, NetRecord
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns


def ingest(
    files: list[Path] = typer.Argument(..., help="Tool output files (fio, iperf3)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON array of records."),
) -> None:
    """Parse existing tool outputs into stackprobe records."""
    from stackprobe.parsers.detect import detect  # every parser; only ingest needs them all

    records: list[dict] = []
    failed = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
            fmt = detect(text)
            found = fmt.parse(text)
        except OSError as exc:
            print(f"stackprobe: {path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            failed += 1
            continue
        except ValueError as exc:
            print(f"stackprobe: {path}: cannot ingest: {exc}", file=sys.stderr)
            failed += 1
            continue
        for rec in found:
            records.append({"source": str(path), **rec.to_json()})
        if not as_json:
            _print_records(path, fmt.name, found)
    if as_json:
        json.dump(records, sys.stdout, indent=1)
        sys.stdout.write("\n")
    if failed:
        raise typer.Exit(1)


def _print_records(path: Path, fmt: str, records: list) -> None:
    console = Console()
    table = Table(title=f"{path} ({fmt})", header_style="bold")
    for col in ("Job", "Host", "Dir", "Bandwidth", "IOPS", "Mean lat", "p99 clat", "Error"):
        table.add_column(col)
    for rec in records:
        if isinstance(rec, IoRecord):
            for name, s in rec.directions() or [("-", rec.read)]:
                table.add_row(rec.job, rec.host or "", name, fmt_bw(s.bw_bytes),
                              fmt_iops(s.iops), fmt_ns(s.lat_ns.get("mean")),
                              fmt_ns(s.clat_ns.get("p99")), str(rec.error or ""))
        elif isinstance(rec, NetRecord):
            bw = fmt_bw(rec.received_bps / 8) if rec.received_bps else "-"
            table.add_row("iperf3", f"{rec.client} -> {rec.server}", "", bw, "", "", "",
                          rec.error or "")
    console.print(table)
