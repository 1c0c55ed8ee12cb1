"""`stackprobe run [SUITE] [--target DIR] [--out DIR]`."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from stackprobe.cli import hosts_arg, options
from stackprobe.cli import judging as judge_opts
from stackprobe.cli.hosts_arg import SshOptions


def run(
    suite: str = options.SUITE,
    sets: list[str] = options.SET,
    target: Path = typer.Option(
        None, "--target", "-t",
        help="Directory to test; stackprobe works in a subdirectory it removes afterwards. "
        "Or a raw block device: fio steps address it (writes need --destroy-data), steps "
        "that need files are skipped. Default: the current directory's filesystem.",
    ),
    out: Path = options.OUT,
    fail_fast: bool = typer.Option(False, "--fail-fast", help="Stop at the first failed step."),
    ceph_conf: Path = typer.Option(
        None, "--ceph-conf",
        help="Ceph cluster to test (default: the suite's, the lab's, /etc/ceph/ceph.conf).",
    ),
    force: bool = typer.Option(False, "--force", help="Load a HEALTH_ERR Ceph cluster anyway."),
    hosts_file: Path = typer.Option(
        None, "--hosts", help="The machines steps with `hosts:` run on (over SSH). "
        + options.HOSTS_HELP,
    ),
    ssh_user: str = options.SSH_USER,
    ssh_port: int = options.SSH_PORT,
    ssh_config: Path = options.SSH_CONFIG,
    no_monitor: bool = typer.Option(
        False, "--no-monitor", help="Do not sample CPU, memory, disks and NICs during steps.",
    ),
    no_health: bool = typer.Option(
        False, "--no-health", help="Do not read the hosts' health counters (EDAC, SMART, NIC "
        "errors, kernel log, SEL) before and after the run.",
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
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No live figures while steps run (docs/live.md).",
    ),
) -> None:
    """Run a suite (default: quick), print its summary table and its verdict; the exit
    status says pass (0), a failed step (1), a failed criterion (3), a regression (4)."""
    from stackprobe.suite.loader import load_suite

    run_loaded(load_suite(suite, sets or ()), hosts_file=hosts_file, target=target, out=out,
               ssh=SshOptions(ssh_user, ssh_port, ssh_config),
               fail_fast=fail_fast, ceph_conf=ceph_conf, force=force, monitor=not no_monitor,
               health=not no_health, destroy_data=tuple(destroy_data or ()), strict=strict,
               against=against, max_regression=max_regression, junit=junit,
               command_line=tuple(sys.argv), quiet=quiet)


def run_loaded(loaded, *, hosts_file: Path | None, target: Path | None, out: Path,
               ssh: SshOptions = SshOptions(),
               fail_fast: bool = False, ceph_conf: Path | None = None, force: bool = False,
               monitor: bool = True, health: bool = True, destroy_data: tuple[str, ...] = (),
               strict: bool = False, against: str | None = None, max_regression: str = "10%",
               junit: Path | None = None, command_line: tuple[str, ...] = (),
               quiet: bool = False) -> None:
    """Plan a loaded suite, run it, judge it and exit with its code: `run`, and the
    commands that run a built-in suite of their own (`check`)."""
    from stackprobe.cli.console import make_console
    from stackprobe.cli.progress import RunProgress
    from stackprobe.engine.executor import RunSettings
    from stackprobe.engine.launch import CephOptions, launch
    from stackprobe.engine.target import target_of
    from stackprobe.plan.expand import expand
    from stackprobe.spec.target import DeviceTarget
    from stackprobe.transport.local import LocalTransport
    from stackprobe.verdict.bind import bind_criteria

    console = make_console()
    hosts = hosts_arg.load(hosts_file, ssh)
    chosen = target_of(target)  # a directory, or a raw block device the plan addresses
    plan = expand(loaded.suite, loaded.base_dir, hosts,
                  chosen if isinstance(chosen, DeviceTarget) else None)
    judging = judge_opts.Judging(bind_criteria(loaded, plan), strict, against, max_regression,
                                 junit, out.resolve())
    judging = judge_opts.prepare(judging)  # a bad --against fails now, not after the load
    base = Path(chosen.path)
    settings = RunSettings(
        suite_name=loaded.suite.name,
        suite_source=loaded.source,
        suite_text=loaded.text,
        target_label=str(base),
        fail_fast=fail_fast,
        monitor=monitor,
        health=health,
        command_line=command_line,
        hosts_file=hosts_arg.stored(hosts_file),
    )
    with RunProgress(plan, console, quiet=quiet) as progress:
        results, run_path = launch(
            plan, settings, LocalTransport(), target_base=base, out_dir=out.resolve(),
            progress=progress,
            ceph=CephOptions(loaded.suite.ceph, ceph_conf.resolve() if ceph_conf else None, force),
            hosts=hosts, destroy_data=destroy_data,
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
