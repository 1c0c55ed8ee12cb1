"""`stackprobe ingest FILE... [--json]`: bring outputs people already have.

The tool and format are detected from the content. A file that cannot be read costs one
line on stderr; the other files are still ingested (exit 1 when any failed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def ingest(
    files: list[Path] = typer.Argument(
        ..., help="Tool output files (fio, iperf3, IOR, mdtest, IO500, rados bench, rbd bench, ceph tell osd bench, STREAM, HPL, hpcc, OSU Micro-Benchmarks, perftest)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON array of records."),
) -> None:
    """Parse existing tool outputs into stackprobe records."""
    from rich.console import Console

    from stackprobe.cli.ingest_tables import print_records
    from stackprobe.ingest.files import ingest_file

    records: list[dict] = []
    failed = 0
    console = Console()
    for path in files:
        try:
            found = ingest_file(path)
        except OSError as exc:
            print(f"stackprobe: {path}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            failed += 1
            continue
        except ValueError as exc:
            print(f"stackprobe: {path}: cannot ingest: {exc}", file=sys.stderr)
            failed += 1
            continue
        for rec in found.records:
            records.append({"source": str(path), **rec.to_json()})
        if not as_json:
            print_records(console, path, found.format, found.records)
    if as_json:
        json.dump(records, sys.stdout, indent=1)
        sys.stdout.write("\n")
    if failed:
        raise typer.Exit(1)
