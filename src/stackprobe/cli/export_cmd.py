"""`stackprobe export RUN --format openmetrics|influx|csv [--output FILE]`.

A run's figures for the tools that keep figures over time: Prometheus (node exporter's
textfile collector, a Pushgateway), InfluxDB, or a spreadsheet. To standard output, so it
pipes into `curl` or `influx write`, or to a file written atomically, so a collector that
reads the file never sees half of it. docs/export.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.cli.show_cmd import resolve_run
from stackprobe.errors import UserError

FORMATS = ("openmetrics", "influx", "csv")


def export(
    run: str = typer.Argument(None, help="Run directory or id; default: the newest run."),
    fmt: str = typer.Option(..., "--format", "-f", help="openmetrics, influx or csv."),
    output: Path = typer.Option(None, "--output", help="File to write; default: standard output."),
    out: Path = options.OUT,
) -> None:
    """Write a run's figures as OpenMetrics text, InfluxDB line protocol or CSV."""
    options.check_format(fmt, FORMATS)
    from stackprobe.report.export_csv import to_figures_csv
    from stackprobe.report.export_influx import to_line_protocol
    from stackprobe.report.export_openmetrics import to_openmetrics
    from stackprobe.store.rundir import atomic_write, load_results

    results = load_results(resolve_run(run, out))
    write = {"openmetrics": to_openmetrics, "influx": to_line_protocol, "csv": to_figures_csv}
    text = write[fmt](results)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        atomic_write(output, text)
    except OSError as exc:
        raise UserError(f"{output}: cannot write: {exc.strerror or exc}") from None
