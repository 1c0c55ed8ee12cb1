"""`stackprobe run [SUITE] [--target DIR] [--out DIR]`."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from stackprobe.cli import judging as judge_opts
from stackprobe.cli import options


def run(
    suite: str = options.SUITE,
    target: Path = typer.Option(
        None, "--target", "-t",
        help="Directory to test; stackprobe works in a subdirectory it removes afterwards. "
        "Default: the current directory's filesystem.",
    ),
    out: Path = options.OUT,
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
    strict: bool = judge_opts.STRICT,
    against: str = judge_opts.AGAINST,
    max_regression: str = judge_opts.MAX_REGRESSION,
    junit: Path = judge_opts.JUNIT,
) -> None:
    """Run a suite (default: quick), print its summary table and its verdict; the exit
    status says pass (0), a failed step (1), a failed criterion (3), a regression (4)."""
    from rich.console import Console

    from stackprobe.cli.progress import RunProgress
    from stackprobe.engine.executor import RunSettings
    from stackprobe.engine.launch import CephOptions, launch
    from stackprobe.plan.expand import expand
    from stackprobe.suite.loader import load_hosts, load_suite
    from stackprobe.transport.local import LocalTransport
    from stackprobe.verdict.bind import bind_criteria

    console = Console()
    loaded = load_suite(suite)
    hosts = load_hosts(hosts_file) if hosts_file is not None else None
    plan = expand(loaded.suite, loaded.base_dir, hosts)
    judging = judge_opts.Judging(bind_criteria(loaded, plan), strict, against, max_regression,
                                 junit, out.resolve())
    judging = judge_opts.prepare(judging)  # a bad --against fails now, not after the load
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
    finish(results, console, run_path, judging)


def finish(results, console, run_path: Path, judging: judge_opts.Judging) -> None:
    """The verdict judged and stored, the summary table and checklist, then the exit status
    a script can test (verdict/codes.py: 130 stopped, 1 a step failed, 3 a criterion
    failed, 4 a regression; the first that applies wins)."""
    from stackprobe.report.terminal import print_summary

    results = judge_opts.judge_and_store(results, run_path, judging)
    console.print()
    print_summary(results, console, str(run_path))
    if results.verdict.exit_code:
        raise typer.Exit(results.verdict.exit_code)
