"""`stackprobe verdict [RUN] [--format text|md|json|csv]`: the checklist a run ended in,
and its exit status again, for scripts that judge a run after the fact."""

from __future__ import annotations

from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.errors import UserError

FORMATS = ("text", "md", "json", "csv")


def verdict(
    run: str = typer.Argument(None, help="Run directory or id; default: the newest run."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, md, json or csv."),
    out: Path = options.OUT,
) -> None:
    """Print a run's checklist (criteria, regression gates, findings) and exit with its code."""
    options.check_format(fmt, FORMATS)
    from stackprobe.cli.show_cmd import resolve_run
    from stackprobe.report import checklist
    from stackprobe.store.rundir import load_results

    path = resolve_run(run, out)
    results = load_results(path)
    if results.verdict is None:
        raise UserError(f"{path}: this run has no verdict (it was run before verdicts, or is "
                        "still running)")
    v = results.verdict
    if fmt == "text":
        from stackprobe.cli.console import make_console

        checklist.print_checklist(v, make_console())
    elif fmt == "md":
        print("\n".join(checklist.checklist_markdown(v)))
    else:
        print({"json": checklist.checklist_json, "csv": checklist.checklist_csv}[fmt](v), end="")
    raise typer.Exit(v.exit_code)
