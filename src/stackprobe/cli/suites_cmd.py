"""`stackprobe suites` (the built-in suites, a line each) and `stackprobe suites show NAME`
(one suite's YAML, to copy and change).

Why: a suite of one's own starts from a built-in one, and the built-in ones live inside the
installed package; nobody should have to find site-packages to read them. The estimate is
`plan`'s (plan/expand.py, each kind's own), without a hosts file: a step on hosts counts
once, as `plan SUITE` shows it.
"""

from __future__ import annotations

import typer

suites_app = typer.Typer(help="The built-in suites: list them, or print one to copy.",
                         invoke_without_command=True)


@suites_app.callback()
def suites(ctx: typer.Context) -> None:
    """List the built-in suites: name, steps, estimated time, what they do."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.table import Table

    from stackprobe.cli.console import make_console
    from stackprobe.plan.expand import expand
    from stackprobe.suite.loader import builtin_names, load_suite
    from stackprobe.units import fmt_seconds

    table = Table(header_style="bold")
    for col in ("Suite", "Steps", "Est. time", "Description"):
        table.add_column(col, justify="right" if col in ("Steps", "Est. time") else "left")
    for name in builtin_names():
        loaded = load_suite(name)
        plan = expand(loaded.suite, loaded.base_dir, None)
        table.add_row(name, str(len(plan)), fmt_seconds(sum(s.estimate_s for s in plan)),
                      loaded.suite.description or "")
    console = make_console()
    console.print(table)
    console.print("`stackprobe suites show NAME` prints one; `stackprobe plan NAME` its steps.")


@suites_app.command("show")
def show(name: str = typer.Argument(..., help="A built-in suite's name.")) -> None:
    """Print a built-in suite's YAML as shipped (comments included), to copy and change."""
    from stackprobe.errors import UserError
    from stackprobe.suite.loader import builtin_names, load_suite

    if name not in builtin_names():
        raise UserError(f"{name}: not a built-in suite ({', '.join(builtin_names())})")
    print(load_suite(name).text, end="")
