"""`stackprobe plan [SUITE]`: the expanded steps and the estimated duration; runs nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from stackprobe.cli import options


def plan(
    suite: str = options.SUITE,
    sets: list[str] = options.SET,
    hosts_file: Path = typer.Option(None, "--hosts", help=options.HOSTS_HELP),
    ssh_user: str = options.SSH_USER,
    ssh_port: int = options.SSH_PORT,
    ssh_config: Path = options.SSH_CONFIG,
    target: Path = typer.Option(None, "--target", "-t", help="The directory or raw block device "
                                "the run would test (a device: what each step addresses)."),
    as_json: bool = typer.Option(False, "--json", help="Print the plan as one JSON document."),
) -> None:
    """Print the steps a suite expands to, with estimated time and space; runs nothing."""
    from stackprobe.cli import hosts_arg
    from stackprobe.engine.preflight import space_needed
    from stackprobe.engine.target import target_of
    from stackprobe.plan.expand import expand
    from stackprobe.spec.target import DeviceTarget
    from stackprobe.suite.loader import load_suite
    from stackprobe.verdict.bind import bind_criteria

    loaded = load_suite(suite, sets or ())
    hosts = hosts_arg.load(hosts_file, hosts_arg.SshOptions(ssh_user, ssh_port, ssh_config))
    chosen = target_of(target) if target is not None else None
    steps = expand(loaded.suite, loaded.base_dir, hosts,
                   chosen if isinstance(chosen, DeviceTarget) else None)
    rules = bind_criteria(loaded, steps)  # a bad rule is refused here, as `run` would
    need, biggest = space_needed([s for s in steps if not s.hosts])  # hosts: their own disks
    if as_json:
        json.dump(_document(loaded, steps, rules, need, biggest), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        _print(loaded, steps, rules, need, biggest)


def _print(loaded, steps, rules, need: int, biggest) -> None:
    from rich.table import Table

    from stackprobe.cli.console import make_console
    from stackprobe.kinds import registry
    from stackprobe.units import fmt_bytes, fmt_seconds

    console = make_console()
    table = Table(title=f"suite {loaded.suite.name} ({loaded.source})", header_style="bold")
    for col in ("Step", "Kind", "Layer", "Title", "Workload", "Hosts", "Est. time", "Test data"):
        table.add_column(col, justify="right" if col in ("Est. time", "Test data") else "left")
    for s in steps:
        table.add_row(s.id, s.kind, s.layer, s.title, registry.kind(s.kind).workload_text(s.params),
                      _where(s), fmt_seconds(s.estimate_s),
                      fmt_bytes(s.space_bytes) if s.space_bytes else "")
    console.print(table)
    total = sum(s.estimate_s for s in steps)
    line = f"{len(steps)} steps, estimated {fmt_seconds(total)}"
    if biggest is not None:
        line += f"; needs {fmt_bytes(need)} free on the target (largest step {biggest.id})"
    console.print(line)
    device = next((s.device for s in steps if s.device is not None), None)
    if device is not None:
        console.print(f"target {device.label}: each fio step addresses its `size` of it, the "
                      "whole device where that is larger or unset (no free space to need)")
    for bound in rules:
        scope = ", ".join(bound.steps) if bound.steps is not None else "the run"
        console.print(f"  criterion: {bound.rule.text}  ({bound.origin}; judges {scope})")


def _document(loaded, steps, rules, need: int, biggest) -> dict:
    """The plan for scripts: what the table and the lines under it say, in numbers."""
    from stackprobe.kinds import registry

    return {
        "suite": loaded.suite.name,
        "source": loaded.source,
        "steps": [{
            "id": s.id, "name": s.name, "kind": s.kind, "layer": s.layer, "title": s.title,
            "workload": registry.kind(s.kind).workload_text(s.params), "params": s.params,
            "hosts": list(s.hosts), "skip": s.skip, "estimate_s": s.estimate_s,
            "device": s.device.path if s.device is not None else None,
            "space_bytes": s.space_bytes or 0,
        } for s in steps],
        "estimate_s": sum(s.estimate_s for s in steps),
        "space_needed_bytes": need if biggest is not None else 0,
        "largest_step": biggest.id if biggest is not None else None,
        "criteria": [{"text": b.rule.text, "origin": b.origin, "steps": b.steps} for b in rules],
    }


def _where(step) -> str:
    """The Hosts cell: the hosts, 'local', or why the step will be skipped."""
    if step.skip is not None:
        return f"skipped: {step.skip}"
    if step.device is not None:
        size = getattr(step.spec, "size", None)
        return f"{step.device.path}: {step.device.extent_text(size.bytes if size else None)}"
    return ", ".join(step.hosts) or "local"
