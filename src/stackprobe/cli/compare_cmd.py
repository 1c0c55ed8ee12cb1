"""`stackprobe compare RUN_A RUN_B [RUN_C ...] [--format text|md|json|html]`.

The runs' matching rows side by side, each against the first run (report/compare.py does
the pairing and the statistics; this module loads, prints, and colours only the changes
that are beyond noise, so the eye goes to what is real).
"""

from __future__ import annotations

from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.errors import UserError

FORMATS = ("text", "md", "json", "html")


def compare_runs(
    runs: list[str] = typer.Argument(None, metavar="RUN...", help="Two or more run directories "
                                     "or ids; the first is the baseline."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, md, json or html (a self-contained page)."),
    out: Path = options.OUT,
) -> None:
    """Compare runs: the same workloads side by side, the change against the first run and
    whether it is beyond noise; before them, what differs between the machines."""
    if fmt not in FORMATS:
        raise UserError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")
    if len(runs or []) < 2:
        raise UserError("compare needs at least two runs (run directories or ids), "
                        f"got {len(runs or [])}")
    from stackprobe.cli.show_cmd import resolve_run
    from stackprobe.report.compare_render import compare_json, compare_markdown
    from stackprobe.store.rundir import load_results

    paths = [resolve_run(run, out) for run in runs]
    _refuse_repeats(runs, paths)
    results = [load_results(p) for p in paths]
    if fmt == "md":
        print(compare_markdown(results), end="")
    elif fmt == "json":
        print(compare_json(results), end="")
    elif fmt == "html":
        from stackprobe.report.compare_html import to_compare_html

        print(to_compare_html(results), end="")
    else:
        from rich.console import Console

        from stackprobe.report.compare_terminal import print_comparison

        print_comparison(results, Console())


def _refuse_repeats(names: list[str], paths: list[Path]) -> None:
    seen: dict[Path, str] = {}
    for name, path in zip(names, paths):
        real = path.resolve()
        if real in seen:
            raise UserError(f"{name}: the same run as {seen[real]}; give different runs")
        seen[real] = name
