"""`stackprobe doctor`: every external tool, found or missing, its version, the apt-get line.

Exit 0 when the tools the default suite needs are present, 2 otherwise.
"""

from __future__ import annotations

import typer


def doctor() -> None:
    """List the tools stackprobe can use, and what to install for the missing ones."""
    from rich.console import Console
    from rich.table import Table

    from stackprobe.engine.preflight import required_tools
    from stackprobe.engine.tools import all_tools, apt_line
    from stackprobe.plan.expand import expand
    from stackprobe.spec.tools import AnyOf
    from stackprobe.suite.loader import DEFAULT_SUITE, load_suite
    from stackprobe.transport.local import LocalTransport
    from stackprobe.transport.tools import tool_version

    transport = LocalTransport()
    console = Console()
    default_needs = required_tools(expand(load_suite(DEFAULT_SUITE).suite))
    named = {n for need in default_needs for n in (need.names if isinstance(need, AnyOf) else (need,))}
    table = Table(header_style="bold")
    for col in ("Tool", "Status", "Version", "Package", "Used for"):
        table.add_column(col)
    found: dict[str, str | None] = {}
    for tool in all_tools():
        version = tool_version(transport, tool)
        found[tool.name] = version
        status = "[green]found[/]" if version else (
            "[bold red]missing[/]" if tool.name in named else "[yellow]missing[/]")
        table.add_row(tool.name, status, version or "", tool.package, tool.purpose)
    console.print(table)
    missing = [name for name, v in found.items() if v is None]
    blocking = []
    for need in default_needs:
        if isinstance(need, AnyOf):
            if not any(found.get(n) for n in need.names):
                blocking.append(need.names[0])
        elif found.get(need) is None:
            blocking.append(need)
    if missing:
        console.print(f"To install what is missing: {apt_line(missing)}")
    if blocking:
        console.print(f"[bold red]The default suite needs:[/] {', '.join(sorted(blocking))}")
        raise typer.Exit(2)
    console.print("[green]The default suite can run.[/]")
