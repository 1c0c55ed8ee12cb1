"""`stackprobe plan [SUITE]`: the expanded steps and the estimated duration; runs nothing."""

from __future__ import annotations

from pathlib import Path

import typer

from stackprobe.cli import options


def plan(
    suite: str = options.SUITE,
    hosts_file: Path = typer.Option(None, "--hosts", help="hosts.yaml the run would use."),
) -> None:
    """Print the steps a suite expands to, with estimated time and space; runs nothing."""
    from rich.console import Console
    from rich.table import Table

    from stackprobe.engine.preflight import space_needed
    from stackprobe.kinds import registry
    from stackprobe.plan.expand import expand
    from stackprobe.suite.loader import load_hosts, load_suite
    from stackprobe.units import fmt_bytes, fmt_seconds
    from stackprobe.verdict.bind import bind_criteria

    loaded = load_suite(suite)
    hosts = load_hosts(hosts_file) if hosts_file is not None else None
    steps = expand(loaded.suite, loaded.base_dir, hosts)
    rules = bind_criteria(loaded, steps)  # a bad rule is refused here, as `run` would
    console = Console()
    table = Table(title=f"suite {loaded.suite.name} ({loaded.source})", header_style="bold")
    for col in ("Step", "Kind", "Layer", "Title", "Workload", "Hosts", "Est. time", "Test data"):
        table.add_column(col, justify="right" if col in ("Est. time", "Test data") else "left")
    for s in steps:
        table.add_row(s.id, s.kind, s.layer, s.title, registry.kind(s.kind).workload_text(s.params),
                      ", ".join(s.hosts) or "local", fmt_seconds(s.estimate_s), fmt_bytes(s.space_bytes) if s.space_bytes else "")
    console.print(table)
    total = sum(s.estimate_s for s in steps)
    need, biggest = space_needed([s for s in steps if not s.hosts])  # hosts: their own disks
    line = f"{len(steps)} steps, estimated {fmt_seconds(total)}"
    if biggest is not None:
        line += f"; needs {fmt_bytes(need)} free on the target (largest step {biggest.id})"
    console.print(line)
    for bound in rules:
        scope = ", ".join(bound.steps) if bound.steps is not None else "the run"
        console.print(f"  criterion: {bound.rule.text}  ({bound.origin}; judges {scope})")
