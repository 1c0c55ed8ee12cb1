"""Start a run: pre-flight checks, scratch directory, signal handling, then the executor.

Ctrl-C (SIGINT) or SIGTERM once: the running tool is asked to stop (fio still reports
what it measured), no further step starts, results are saved and test files removed.
A second signal kills the running tool at once.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from stackprobe.plan.steps import PlannedStep
from stackprobe.runners.base import TargetInfo
from stackprobe.runners.ceph_session import CephSession, cephfs_bytes_for, image_bytes_for
from stackprobe.runners.ceph_target import resolve_target
from stackprobe.runners.executor import Executor, Progress, RunSettings
from stackprobe.runners.preflight import (
    check_space,
    check_target,
    check_tools,
    make_scratch,
    supports_direct_io,
)
from stackprobe.runners.tools import BY_NAME, MEMORY_TOOLS, tool_version
from stackprobe.store.results import RunResults
from stackprobe.store.rundir import RunDir, new_run_id
from stackprobe.suite.models import CephSettings
from stackprobe.transport.base import Transport


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
) -> tuple[RunResults, Path]:
    """Run the plan; return its results and run directory. UserError before any load."""
    needed = check_tools(transport, plan)
    check_target(target_base)
    check_space(target_base, plan)
    if any(step.kind == "memory" for step in plan):
        needed = needed + [t for t in MEMORY_TOOLS if t not in needed]
    versions = {name: v for name in needed if (v := tool_version(transport, BY_NAME[name]))}
    run_id = new_run_id(settings.suite_name)
    warnings: list[str] = []
    session = _ceph_session(plan, ceph or CephOptions(), transport, run_id, warnings)
    scratch = make_scratch(target_base, run_id)
    run_dir: RunDir | None = None
    executor: Executor | None = None
    try:
        direct = supports_direct_io(scratch)
        if not direct:
            warnings.append(f"{target_base}: O_DIRECT not supported; fio ran with direct=0")
        run_dir = RunDir.create(out_dir, run_id)
        executor = Executor(
            plan, settings, transport, run_dir, out_dir,
            TargetInfo(root=scratch, direct_io=direct), progress, versions, warnings,
            ceph=session,
        )
        if session is not None:
            session.scratch = scratch
        with _stop_on_signals(executor):
            results = executor.execute()
        return results, run_dir.path
    finally:
        if session is not None:
            transport.clear_interrupt()  # removing what the run made must still happen
            problems = session.teardown()
            if executor is not None:
                executor.record_session(session.log, problems, scratch / "ceph-fuse.log")
        shutil.rmtree(scratch, ignore_errors=True)


def _ceph_session(plan, opts: CephOptions, transport: Transport, run_id: str,
                  warnings: list[str]) -> CephSession | None:
    """For a plan that loads Ceph: the session, with the cluster checked before any load."""
    if not any(step.on_ceph for step in plan):
        return None
    settings = opts.settings or CephSettings()
    target = resolve_target(settings, opts.conf, Path.cwd())
    session = CephSession(target, settings, transport, run_id, Path("."),
                          image_bytes=image_bytes_for(plan, settings))
    warnings.extend(session.preflight(opts.force))
    session.cluster_space_check(session.image_bytes + cephfs_bytes_for(plan))
    return session


@contextlib.contextmanager
def _stop_on_signals(executor: Executor) -> Iterator[None]:
    received = {"count": 0}

    def handler(signum, frame):  # noqa: ARG001 - signal handler signature
        received["count"] += 1
        if received["count"] == 1:
            executor.request_stop()
        else:
            executor.transport.kill()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
