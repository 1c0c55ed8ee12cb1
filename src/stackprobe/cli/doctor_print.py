"""`stackprobe doctor`'s findings for a terminal: the tools table, a line per built-in
suite, and with --hosts a table of the hosts (reachable, missing tools, free space, clock)
followed by the apt-get line of each host that misses tools."""

from __future__ import annotations

from stackprobe.units import fmt_bytes

CLOCK_WARN_S = 0.1  # a host further off than this is marked: time series across hosts skew


def print_findings(tools, blocking: list[str], suites, hosts) -> None:
    from rich.table import Table

    from stackprobe.cli.console import make_console
    from stackprobe.engine.tools import apt_line

    console = make_console()
    table = Table(header_style="bold")
    for col in ("Tool", "Status", "Version", "Package", "Used for"):
        table.add_column(col)
    for t in tools:
        status = "[green]found[/]" if t.version else (
            "[bold red]missing[/]" if t.name in blocking else "[yellow]missing[/]")
        table.add_row(t.name, status, t.version or "", t.package, t.purpose)
    console.print(table)
    missing = [t.name for t in tools if t.version is None]
    if missing:
        console.print(f"To install what is missing: {apt_line(missing)}")
    for s in suites:
        console.print(f"  suite {s.name}: " + ("[green]can run here[/]" if s.can_run else
                      f"[yellow]needs {', '.join(s.missing)}[/]"))
    if hosts:
        _print_hosts(console, hosts)
    if blocking:
        console.print(f"[bold red]The default suite needs:[/] {', '.join(sorted(blocking))}")
    else:
        console.print("[green]The default suite can run.[/]")
    down = [h.name for h in hosts if not h.reachable]
    if down:
        console.print(f"[bold red]Unreachable:[/] {', '.join(down)}")


def _print_hosts(console, hosts) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="Hosts", header_style="bold")
    for col in ("Host", "Address", "Login", "Missing tools", "Free space", "Clock offset"):
        table.add_column(col)
    for h in hosts:
        if not h.reachable:
            table.add_row(h.name, h.address, f"[bold red]no[/]: {escape(h.error or '')}", "", "", "")
            continue
        space = ", ".join(f"{d} {fmt_bytes(b) if b is not None else 'unreadable'}"
                          for d, b in h.free_bytes.items())
        table.add_row(h.name, h.address, "[green]yes[/]", ", ".join(h.missing_tools) or "none",
                      space, _clock(h))
    console.print(table)
    for h in hosts:
        if h.apt_line:
            console.print(f"  {h.name}: {h.apt_line}")


def _clock(h) -> str:
    if h.clock_offset_s is None:
        return escape_error(h.error)
    text = f"{h.clock_offset_s * 1000:+.1f} ms ± {h.clock_error_s * 1000:.1f} ms"
    return f"[yellow]{text}[/]" if abs(h.clock_offset_s) > CLOCK_WARN_S else text


def escape_error(error: str | None) -> str:
    from rich.markup import escape

    return escape(error or "")
