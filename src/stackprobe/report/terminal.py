"""The run summary in the terminal (rich): environment, ladder table, warnings."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from stackprobe.report.checklist import print_checklist
from stackprobe.report.render import (
    HEADLINE_CELL,
    LAYER_TITLES,
    environment_lines,
    extra_tables,
    formatted,
    limits_of,
    warnings_of,
)
from stackprobe.report.table import summary_rows
from stackprobe.schema.results import RunResults
from stackprobe.spec.steps import LAYERS
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_seconds

NARROW_COLUMNS = 130
SHORT_HEADERS = ("Test", "Workload", "Bandwidth", "IOPS/ops", "Mean lat", "p99 lat", "Status")
_STATUS_STYLE = {"ok": "green", "partial": "bold yellow", "failed": "bold red", "interrupted": "yellow", "skipped": "dim"}


def rich_table(extra: TextTable, narrow: bool = False) -> Table:
    """A TextTable for the terminal: words left, figures right; a narrow terminal leaves
    out the columns the table marks wide-only."""
    t = Table(title=extra.title, header_style="bold",
              box=box.SIMPLE_HEAD if narrow else box.HEAVY_HEAD)
    shown = [i for i in range(len(extra.headers)) if not (narrow and i in extra.wide_only)]
    for i in shown:
        t.add_column(extra.headers[i], justify="left" if i in extra.left else "right")
    for row in extra.rows:
        t.add_row(*(row[i] for i in shown))
    return t


def print_summary(results: RunResults, console: Console, run_path: str | None = None) -> None:
    run = results.run
    took = sum(s.duration_s or 0 for s in results.steps)
    console.print(
        f"[bold]stackprobe[/] run [bold]{run.id}[/]  suite {run.suite}  target {run.target}  "
        f"status [{_STATUS_STYLE.get(run.status, 'white')}]{run.status}[/]  "
        f"measured {fmt_seconds(took)}"
    )
    for label, text in environment_lines(results):
        console.print(f"  [bold]{label}:[/] {text}")
    rows = summary_rows(results)
    # A narrow terminal drops the workload (the test name says it) and, when every row is
    # ok, the status column (the header line says it), so figures never get cut off.
    narrow = console.width < NARROW_COLUMNS
    keep = [i for i in range(len(SHORT_HEADERS)) if not (narrow and i == 1)]
    if narrow and all(r.status == "ok" for r in rows):
        keep.remove(len(SHORT_HEADERS) - 1)
    table = Table(header_style="bold", box=box.SIMPLE_HEAD if narrow else box.HEAVY_HEAD)
    for i in keep:
        table.add_column(SHORT_HEADERS[i], justify="right" if 2 <= i <= 5 else "left",
                         min_width=26 if i == 0 else None)
    for layer in LAYERS:
        layer_rows = [r for r in rows if r.layer == layer]
        if not layer_rows:
            continue
        table.add_row(f"[bold cyan]{LAYER_TITLES[layer]}[/]", *[""] * (len(table.columns) - 1))
        for row in layer_rows:
            cells = formatted(row)
            pos = HEADLINE_CELL.get(row.headline or "")
            if pos is not None and cells[pos]:
                cells[pos] = f"[bold]{cells[pos]}[/]"
            style = "yellow" if row.noisy else _STATUS_STYLE.get(row.status, "white")
            cells[-1] = f"[{style}]{cells[-1]}[/]"
            table.add_row(*(cells[i] for i in keep))
    if rows:  # a run of checks alone (settings, BMCs, health) has tables, not figures
        console.print(table)
    for extra in extra_tables(results):
        # nothing found (no drift, no counter moved): the title and what the notes say
        console.print(rich_table(extra, narrow) if extra.rows else f"[bold]{extra.title}[/]")
        for note in extra.notes:
            console.print(f"  {note}")
    for x in limits_of(results):
        console.print(f"  [cyan]›[/] {x}")
    for w in warnings_of(results):
        console.print(f"  [yellow]![/] {w}")
    if results.verdict is not None:
        print_checklist(results.verdict, console)
    if run_path:
        console.print(f"Results: {run_path}")
