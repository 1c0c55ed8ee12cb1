"""`stackprobe show [RUN]` and `stackprobe report RUN --format md|json|csv|html`.

RUN is a run directory, a run id under --out, or omitted for the newest run.
"""

from __future__ import annotations

from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.errors import UserError

FORMATS = ("md", "json", "csv", "html")  # report.<format>


def resolve_run(run: str | None, out: Path) -> Path:
    """The run directory meant by `run` (path, id, or None for the newest)."""
    from stackprobe.store.index import list_runs

    if run:
        path = Path(run)
        if path.is_dir():
            return path
        if (out / run).is_dir():
            return out / run
        raise UserError(f"{run}: no such run directory (looked in . and {out})")
    rows = list_runs(out)
    for row in rows:
        if Path(row["path"]).is_dir():
            return Path(row["path"])
    raise UserError(f"no runs in {out} (run `stackprobe run` first, or give a run directory)")


def show(
    run: str = typer.Argument(None, help="Run directory or id; default: the newest run."),
    out: Path = options.OUT,
    as_json: bool = typer.Option(False, "--json", help="Print the run's report as JSON "
                                 "(what `report --format json` writes)."),
) -> None:
    """Print a run's summary table."""
    from stackprobe.cli.console import make_console
    from stackprobe.report.terminal import print_summary
    from stackprobe.store.rundir import load_results

    path = resolve_run(run, out)
    if as_json:
        from stackprobe.report.render import to_json

        print(to_json(load_results(path)), end="")
        return
    print_summary(load_results(path), make_console(), str(path))


def report(
    run: str = typer.Argument(..., help="Run directory or id."),
    fmt: str = typer.Option("md", "--format", "-f", help="md, json, csv or html."),
    output: Path = typer.Option(None, "--output", help="File to write; default: in the run dir."),
    out: Path = options.OUT,
) -> None:
    """Write a run's report as Markdown, JSON, CSV or HTML (one self-contained page)."""
    options.check_format(fmt, FORMATS)
    from stackprobe.report import render
    from stackprobe.report.html import to_html
    from stackprobe.store.rundir import atomic_write, load_results

    path = resolve_run(run, out)
    results = load_results(path)
    # html also reads the steps' monitor files, which live in the run directory
    text = to_html(results, path) if fmt == "html" else {
        "md": render.to_markdown, "json": render.to_json, "csv": render.to_csv}[fmt](results)
    target = output or path / f"report.{fmt}"
    atomic_write(target, text)
    print(target)
