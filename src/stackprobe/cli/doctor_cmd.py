"""`stackprobe doctor`: every external tool, found or missing, its version, the apt-get line.

Exit 0 when the tools the default suite needs are present, 2 otherwise.
"""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from stackprobe.plan.expand import expand
from stackprobe.engine.preflight import required_tools
from stackprobe.engine.tools import MEMORY_TOOLS, TOOLS, apt_line, tool_version
from stackprobe.suite.loader import DEFAULT_SUITE, load_suite
from stackprobe.transport.local import LocalTransport


def doctor() -> None:
    """List the tools stackprobe can use, and what to install for the missing ones."""
    transport = LocalTransport()
    console = Console()
    default_needs = set(required_tools(expand(load_suite(DEFAULT_SUITE).suite)))
    table = Table(header_style="bold")
    for col in ("Tool", "Status", "Version", "Package", "Used for"):
        table.add_column(col)
    found: dict[str, str | None] = {}
    for tool in TOOLS:
        version = tool_version(transport, tool)
        found[tool.name] = version
        status = "[green]found[/]" if version else (
            "[bold red]missing[/]" if tool.name in default_needs else "[yellow]missing[/]")
        table.add_row(tool.name, status, version or "", tool.package, tool.purpose)
    console.print(table)
    missing = [name for name, v in found.items() if v is None]
    blocking = [n for n in default_needs if found.get(n) is None]
    if not any(found.get(t) for t in MEMORY_TOOLS):
        blocking.append(MEMORY_TOOLS[0])
    if missing:
        console.print(f"To install what is missing: {apt_line(missing)}")
    if blocking:
        console.print(f"[bold red]The default suite needs:[/] {', '.join(sorted(blocking))}")
        raise typer.Exit(2)
    console.print("[green]The default suite can run.[/]")
