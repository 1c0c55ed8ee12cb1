"""`stackprobe run [SUITE] [--target DIR] [--out DIR]`."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from stackprobe.cli import options

EXIT_STEP_FAILED = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def run(
    suite: str = options.SUITE,
    target: Path = typer.Option(
        None, "--target", "-t",
        help="Directory to test; stackprobe works in a subdirectory it removes afterwards. "
        "Default: the current directory's filesystem.",
    ),
    out: Path = typer.Option(Path("runs"), "--out", "-o", help="Where run directories go."),
    fail_fast: bool = typer.Option(False, "--fail-fast", help="Stop at the first failed step."),
    ceph_conf: Path = typer.Option(
        None, "--ceph-conf",
        help="Ceph cluster to test (default: the suite's, the lab's, /etc/ceph/ceph.conf).",
    ),
    force: bool = typer.Option(False, "--force", help="Load a HEALTH_ERR Ceph cluster anyway."),
    hosts_file: Path = typer.Option(
        None, "--hosts", help="hosts.yaml: the machines steps with `hosts:` run on (over SSH).",
    ),
    no_monitor: bool = typer.Option(
        False, "--no-monitor", help="Do not sample CPU, memory, disks and NICs during steps.",
    ),
    destroy_data: list[str] = typer.Option(
        None, "--destroy-data", metavar="DEV",
        help="Let fio steps write this raw block device, destroying what is on it (repeatable;"
        " a mounted or open device is refused anyway).",
    ),
) -> None:
    """Run a suite (default: quick) and print its summary table."""
    from rich.console import Console

    from stackprobe.cli.progress import RunProgress
    from stackprobe.engine.executor import RunSettings
    from stackprobe.engine.launch import CephOptions, launch
    from stackprobe.plan.expand import expand
    from stackprobe.suite.loader import load_hosts, load_suite
    from stackprobe.transport.local import LocalTransport

    console = Console()
    loaded = load_suite(suite)
    hosts = load_hosts(hosts_file) if hosts_file is not None else None
    plan = expand(loaded.suite, loaded.base_dir, hosts)
    base = (target or Path.cwd()).resolve()
    settings = RunSettings(
        suite_name=loaded.suite.name,
        suite_source=loaded.source,
        suite_text=loaded.text,
        target_label=str(base),
        fail_fast=fail_fast,
        monitor=not no_monitor,
        command_line=tuple(sys.argv),
        hosts_file=str(hosts_file.resolve()) if hosts_file is not None else None,
    )
    with RunProgress(plan, console) as progress:
        results, run_path = launch(
            plan, settings, LocalTransport(), target_base=base, out_dir=out.resolve(),
            progress=progress,
            ceph=CephOptions(loaded.suite.ceph, ceph_conf.resolve() if ceph_conf else None, force),
            hosts=hosts, destroy_data=tuple(destroy_data or ()),
        )
    finish(results, console, run_path)


def finish(results, console, run_path: Path) -> None:
    """The summary table, then the exit status a script can test (1 failed, 130 stopped)."""
    from stackprobe.report.terminal import print_summary

    console.print()
    print_summary(results, console, str(run_path))
    if results.run.status == "interrupted":
        raise typer.Exit(EXIT_INTERRUPTED)
    if results.run.status == "failed":
        raise typer.Exit(EXIT_STEP_FAILED)
