"""`stackprobe compare` in the terminal (rich): the runs' matching rows side by side, only
the changes beyond noise coloured, so the eye goes to what is real; as wide as the
terminal allows (a narrow one keeps the headline figure and the change)."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from stackprobe.report.compare import BEYOND_NOISE, WITHIN_NOISE, Comparison, compare
from stackprobe.report.compare_render import HEADLINE_COLUMN, TABLE_HEADERS, layer_groups, side_cells
from stackprobe.schema.results import RunResults

NARROW_COLUMNS = 150
COMPACT_COLUMNS = 120
HEADLINE = len(TABLE_HEADERS)  # a column of its own in the compact table: the headline cell
WORKLOAD_COLUMN = 1
MIN_WIDTHS = {7: 14, 8: 12}  # 'beyond noise' whole; a change's sign and figure on one line
SHORT_HEADERS = ["Test", "Workload", "Run", "Bandwidth", "IOPS/ops", "Mean lat", "p99 lat",
                 "Change", "Noise"]


def print_comparison(runs: list[RunResults], console: Console) -> None:
    comparison = compare(runs)
    console.print(f"[bold]stackprobe compare[/] {' vs '.join(comparison.labels)}")
    for label, text in comparison.legend:
        console.print(f"  [bold]{label}[/] {escape(text)}")
    for what, text in comparison.differences:
        console.print(f"  [bold]{escape(what)}:[/] {escape(text)}")
    _print_tables(comparison, console)


def _print_tables(comparison: Comparison, console: Console) -> None:
    """A wide terminal gets every column; a narrower one loses the workload (the test name
    says it); a narrow one keeps only the headline figure, so the change never wraps away."""
    narrow = console.width < NARROW_COLUMNS
    compact = console.width < COMPACT_COLUMNS
    for title, rows in layer_groups(comparison):
        table = Table(title=title, header_style="bold",
                      box=box.SIMPLE_HEAD if narrow else box.HEAVY_HEAD)
        if compact:
            keep = [0, 2, HEADLINE, 7, 8]
        else:
            keep = [i for i in range(len(TABLE_HEADERS)) if not (narrow and i == WORKLOAD_COLUMN)]
        headers = SHORT_HEADERS if narrow else TABLE_HEADERS
        for i in keep:  # figures never wrap; the test name and the change may
            table.add_column(headers[i] if i != HEADLINE else "Figure",
                             justify="right" if 3 <= i <= 6 or i == HEADLINE else "left",
                             no_wrap=i not in (0, 1, 7), min_width=MIN_WIDTHS.get(i))
        for n, matched in enumerate(rows):
            for i in range(len(matched.sides)):
                cells = side_cells(matched, i)
                styled = [escape(c) for c in cells]
                pos = HEADLINE_COLUMN[matched.headline]
                if styled[pos]:
                    styled[pos] = f"[bold]{styled[pos]}[/]"
                styled[7] = _change_style(cells[7], cells[8])
                if cells[8] == WITHIN_NOISE:
                    styled[8] = f"[dim]{styled[8]}[/]"
                styled.append(styled[pos])  # HEADLINE: the compact table's one figure
                last_line = i == len(matched.sides) - 1 and n != len(rows) - 1
                table.add_row(*(styled[k] for k in keep), end_section=last_line)
        console.print(table)
    for note in comparison.notes:
        console.print(f"  {escape(note)}")


def _change_style(change: str, verdict: str) -> str:
    """Green or red only for a change beyond noise; a missing row in yellow."""
    text = escape(change)
    if verdict == BEYOND_NOISE:
        return f"[bold green]{text}[/]" if change.endswith("better") else \
            f"[bold red]{text}[/]" if change.endswith("worse") else text
    if change and change[0] not in "+-":
        return f"[yellow]{text}[/]"
    return text
