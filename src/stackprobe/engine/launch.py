"""Start a run: pre-flight checks, scratch directory, signal handling, then the executor.

Ctrl-C (SIGINT) or SIGTERM once: the running tool is asked to stop (fio still reports
what it measured), no further step starts, results are saved and test files removed.
A second signal kills the running tool at once.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from stackprobe.engine.executor import Executor, Progress, RunSettings
from stackprobe.engine.preflight import (
    check_target_of,
    check_tools,
    guard_targets,
    make_scratch,
    required_tools,
    supports_direct_io,
)
from stackprobe.engine.step_monitor import storage_names
from stackprobe.engine.target import target_of
from stackprobe.engine.tools import by_name
from stackprobe.errors import UserError
from stackprobe.kinds.ceph.session import (
    CephSession,
    cephfs_bytes_for,
    image_bytes_for,
    images_for,
)
from stackprobe.kinds.ceph.target import resolve_target
from stackprobe.kinds.context import TargetInfo
from stackprobe.schema.results import RunResults
from stackprobe.spec.ceph import CephSettings
from stackprobe.spec.hosts import Host, HostsFile
from stackprobe.spec.planned import PlannedStep
from stackprobe.spec.target import DeviceTarget
from stackprobe.store.rundir import RunDir, load_results, new_run_id
from stackprobe.transport.base import Transport
from stackprobe.transport.fleet import Fleet
from stackprobe.transport.tools import tool_version


@dataclass
class CephOptions:
    settings: CephSettings | None = None  # the suite's `ceph:` section
    conf: Path | None = None  # --ceph-conf
    force: bool = False  # --force: load a HEALTH_ERR cluster anyway


def launch(
    plan: Sequence[PlannedStep],
    settings: RunSettings,
    transport: Transport,
    *,
    target_base: Path,
    out_dir: Path,
    progress: Progress | None = None,
    ceph: CephOptions | None = None,
    hosts: HostsFile | None = None,
    resume: Path | None = None,
    destroy_data: tuple[str, ...] = (),
    host_transport: Callable[[Host, Transport], Transport] | None = None,
) -> tuple[RunResults, Path]:
    """Run the plan; return its results and run directory. UserError before any load.
    `resume`: an existing run directory whose completed steps are kept (cli/resume_cmd.py).
    `host_transport`: how each host's transport is reached instead of as the hosts file
    says (bench/fleet_scale.py records and replays them: transport/replay.py)."""
    _check_hosts_given(plan, hosts)
    runs = [s for s in plan if s.skip is None]  # a step skipped by the plan needs nothing
    here = [s for s in runs if not s.hosts]
    needed = check_tools(transport, required_tools(here) + required_tools(  # fleets' drivers
        [s for s in runs if s.hosts], controller=True))
    target = target_of(target_base)  # a directory, or a raw block device
    scratch_base = check_target_of(target, here)
    tools = by_name()
    versions = {name: v for name in needed if (v := tool_version(transport, tools[name]))}
    previous = load_results(resume) if resume is not None else None
    run_id = previous.run.id if previous is not None else new_run_id(settings.suite_name)
    warnings: list[str] = guard_targets(plan, transport, destroy_data, hosts)  # before any load
    fleet = (_open_fleet(plan, hosts, run_id, storage_names(hosts, plan, settings.monitor),
                         host_transport) if hosts is not None else None)
    try:
        session = _ceph_session(plan, ceph or CephOptions(), transport, run_id, warnings)
    except BaseException:
        if fleet is not None:
            fleet.close()
        raise
    if previous is not None:  # the cut-short run's test files: ours by name, never reused
        shutil.rmtree(scratch_base / f"stackprobe-{run_id}", ignore_errors=True)
    scratch = make_scratch(scratch_base, run_id)
    run_dir: RunDir | None = None
    executor: Executor | None = None
    try:
        direct = isinstance(target, DeviceTarget) or supports_direct_io(scratch)
        if not direct:
            warnings.append(f"{target_base}: O_DIRECT not supported; fio ran with direct=0")
        run_dir = RunDir(resume) if resume is not None else RunDir.create(out_dir, run_id)
        executor = Executor(
            plan, settings, transport, run_dir, out_dir,
            TargetInfo(root=scratch, direct_io=direct), progress, versions, warnings,
            ceph=session, fleet=fleet, previous=previous,
        )
        if session is not None:
            session.scratch = scratch
        with _stop_on_signals(executor):
            results = executor.execute()
        return results, run_dir.path
    finally:
        with _finishing():
            _clean_up(session, fleet, transport, executor, scratch)


def _clean_up(session, fleet, transport, executor, scratch) -> None:
    """Remove what the run made: the Ceph session's pool, images, objects and mounts, the
    hosts' scratch directories, this machine's scratch."""
    if session is not None:
        transport.clear_interrupt()  # removing what the run made must still happen
        if fleet is not None:  # also on the client hosts (their mounts, images)
            fleet.clear_interrupt()
        problems = session.teardown()
        if executor is not None:
            executor.record_session(session.log, problems, scratch / "ceph-fuse.log")
    if fleet is not None:
        fleet.clear_interrupt()
        problems = fleet.close()
        if executor is not None and problems:
            executor.record_problems(problems)
    shutil.rmtree(scratch, ignore_errors=True)


@contextlib.contextmanager
def _finishing() -> Iterator[None]:
    """While the run's things are removed, Ctrl-C (or SIGTERM) waits for it to finish: a
    KeyboardInterrupt in the middle of a teardown would leave the pool or a mount behind.
    The signal is delivered, with its usual handler, once everything is removed."""
    received: list[int] = []

    def note(signum, frame):  # noqa: ARG001 - signal handler signature
        if not received:
            print("stackprobe: removing what the run made first", file=sys.stderr, flush=True)
        received.append(signum)

    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        if received:
            signal.raise_signal(received[0])


def _check_hosts_given(plan: Sequence[PlannedStep], hosts: HostsFile | None) -> None:
    if hosts is None:
        on_hosts = [s for s in plan if s.hosts]
        if on_hosts:
            raise UserError(f"step {on_hosts[0].id} runs on hosts ({', '.join(on_hosts[0].hosts)})"
                            ": give the hosts file with --hosts FILE")


def _open_fleet(plan: Sequence[PlannedStep], hosts: HostsFile, run_id: str,
                watched: set[str] = frozenset(), through=None) -> Fleet:
    """Connect to the hosts the plan uses (and `watched`: the storage hosts monitored
    during Ceph steps), make their scratch directories, check their tools; UserError
    naming each host's problem, before any load."""
    names = {n for s in plan for n in s.hosts} | watched
    fleet = Fleet(hosts, names, run_id, through=through)
    fleet.open()

    def tools(h) -> str | None:
        steps = [s for s in plan if h.name in s.hosts]
        try:
            check_tools(h.transport, required_tools(steps))
        except UserError as exc:
            return f"{h.name}: {exc}"
        return None

    problems = [p for p in fleet.each(tools).values() if p]
    if problems:
        fleet.close()
        raise UserError("; ".join(problems))
    return fleet


def _ceph_session(plan, opts: CephOptions, transport: Transport, run_id: str,
                  warnings: list[str]) -> CephSession | None:
    """For a plan that loads Ceph: the session, with the cluster checked before any load."""
    if not any(step.on_ceph for step in plan):
        return None
    settings = opts.settings or CephSettings()
    owned = [s for s in plan if s.ceph is not None and s.ceph.own_pool]
    if owned and settings.pool != "create":
        raise UserError(f"step {owned[0].id} ({owned[0].kind}) writes objects it cannot name, "
                        f"and a stop would leave them: it runs only in a pool stackprobe creates "
                        f"for the run (`ceph: pool: create`), not in pool {settings.pool}")
    target = resolve_target(settings, opts.conf, Path.cwd())
    session = CephSession(target, settings, transport, run_id, Path("."),
                          image_bytes=image_bytes_for(plan, settings))
    warnings.extend(session.preflight(opts.force))
    session.cluster_space_check(session.image_bytes * images_for(plan) + cephfs_bytes_for(plan))
    return session


@contextlib.contextmanager
def _stop_on_signals(executor: Executor) -> Iterator[None]:
    received = {"count": 0}

    def handler(signum, frame):  # noqa: ARG001 - signal handler signature
        received["count"] += 1
        if received["count"] == 1:
            executor.request_stop()
        else:
            executor.kill()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
