"""`stackprobe resume RUN`: finish a run that was cut short (a crash, SIGKILL, a reboot).

The run's own copy of its suite (suite.yaml in the run directory) is expanded again, with
the same hosts file and Ceph cluster, and must give the same steps with the same
parameters — otherwise resuming would mix two different suites in one result. Completed
steps (ok or failed) are kept byte for byte; the first step not completed and all after it
run again, each from nothing. A run whose controller is still alive is refused.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from stackprobe.cli import options
from stackprobe.cli.judging import STRICT
from stackprobe.errors import UserError
from stackprobe.procs import stop_pids


def resume(
    run: str = typer.Argument(..., help="Run directory or id to finish."),
    out: Path = options.OUT,
    no_monitor: bool = typer.Option(False, "--no-monitor", help="No resource sampling."),
    no_health: bool = typer.Option(False, "--no-health", help="No health counters after the run."),
    strict: bool = STRICT,
    ssh_user: str = options.SSH_USER,
    ssh_port: int = options.SSH_PORT,
    ssh_config: Path = options.SSH_CONFIG,
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No live figures while steps run (docs/live.md).",
    ),
) -> None:
    """Continue a run from its first step not completed; completed steps are kept. The
    run's --hosts are read again; --ssh-* are not kept with the run: give them again."""
    from stackprobe.cli import hosts_arg
    from stackprobe.cli.console import make_console
    from stackprobe.cli.judging import Judging
    from stackprobe.cli.progress import RunProgress
    from stackprobe.cli.run_cmd import finish
    from stackprobe.cli.show_cmd import resolve_run
    from stackprobe.engine.executor import DONE, RunSettings
    from stackprobe.engine.launch import CephOptions, launch
    from stackprobe.engine.preflight import scratch_base
    from stackprobe.engine.target import target_of
    from stackprobe.plan.expand import expand
    from stackprobe.spec.target import DeviceTarget
    from stackprobe.store.rundir import load_results
    from stackprobe.suite.loader import LoadedSuite, parse_suite
    from stackprobe.transport.local import LocalTransport
    from stackprobe.verdict.bind import bind_criteria

    path = resolve_run(run, out).resolve()
    previous = load_results(path)
    left = [s.id for s in previous.steps if s.status not in DONE]
    if not left:
        raise UserError(f"{path}: every step completed (ok or failed): nothing to resume")
    _refuse_live(previous)
    suite_file = path / "suite.yaml"
    suite_text = suite_file.read_text(encoding="utf-8")
    suite = parse_suite(suite_text, str(suite_file))
    source = previous.run.suite_source
    base_dir = None if source.startswith("builtin:") else Path(source).parent
    hosts = hosts_arg.load(previous.run.hosts_file,
                           hosts_arg.SshOptions(ssh_user, ssh_port, ssh_config))
    target = target_of(Path(previous.run.target))  # a device run is planned for its device
    device = target if isinstance(target, DeviceTarget) else None
    plan = expand(suite, base_dir, hosts, device)
    _same_steps(previous, plan, suite_file)
    settings = RunSettings(
        suite_name=suite.name, suite_source=source, suite_text=suite_text,
        target_label=previous.run.target, monitor=not no_monitor, health=not no_health,
        command_line=tuple(previous.run.command_line), hosts_file=previous.run.hosts_file,
    )
    stopped = stop_leftovers(scratch_base(target) / f"stackprobe-{previous.run.id}")
    conf = (previous.run.ceph or {}).get("conf")
    console = make_console()
    console.print(f"resuming {previous.run.id}: {len(previous.steps) - len(left)} steps kept, "
                  f"{len(left)} to run (from {left[0]})"
                  + (f"; stopped {len(stopped)} process(es) the cut-short run left: "
                     f"{', '.join(map(str, stopped))}" if stopped else ""))
    with RunProgress([s for s in plan if s.id in left], console, quiet=quiet) as progress:
        results, run_path = launch(
            plan, settings, LocalTransport(), target_base=Path(previous.run.target),
            out_dir=path.parent, progress=progress,
            ceph=CephOptions(suite.ceph, Path(conf) if conf else None), hosts=hosts, resume=path,
        )
    finish(results, console, run_path, Judging(
        bind_criteria(LoadedSuite(suite, source, suite_text, base_dir), plan), strict,
        runs_dir=path.parent))


def stop_leftovers(scratch: Path, grace_s: float = 5.0) -> list[int]:
    """Processes the cut-short run left behind here (its monitor, a tool), found by the
    run's own scratch directory in their command line — a path no other program uses —
    and stopped by PID: SIGTERM, then SIGKILL. The PIDs stopped."""
    marker = (str(scratch) + "/").encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if any(arg.startswith(marker) or marker in arg
                   for arg in (proc / "cmdline").read_bytes().split(b"\0")):
                found.append(int(proc.name))
        except OSError:
            continue
    stop_pids(found, _running, grace_s)
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _refuse_live(previous) -> None:
    """The controller that wrote the run must be gone (its PID dead or another program)."""
    from stackprobe.store.rundir import writing_pid

    pid = writing_pid(previous.run)
    if pid is not None:
        raise UserError(f"{previous.run.id}: still being run by process {pid}; stop it first "
                        "(Ctrl-C keeps every finished step) or wait for it")


def _same_steps(previous, plan, suite_file: Path) -> None:
    before = [(s.id, s.params) for s in previous.steps]
    now = [(s.id, s.params) for s in plan]
    if before != now:
        changed = next((a[0] for a, b in zip(before, now) if a != b), None) or \
            f"{len(before)} steps then, {len(now)} now"
        raise UserError(f"{suite_file}: the suite no longer expands to the run's steps "
                        f"(first difference: {changed}); resume needs the same plan")
