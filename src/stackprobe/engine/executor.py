"""Runs a plan step by step: runner -> parser -> store, with progress and clean stops.

After every step results.json is rewritten atomically and the index row updated, so a
crash or Ctrl-C keeps every finished step. Test files live in one scratch directory per
run, removed at the end whatever happened. A failed step is recorded with the tool's own
message and the suite goes on (unless fail_fast).
"""

from __future__ import annotations

import os
import shutil
import time
import traceback
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from stackprobe import __version__
from stackprobe.analysis.noise import should_repeat
from stackprobe.analysis.repeats import DEFAULT_NOISY_COV
from stackprobe.analysis.stability import judge_records
from stackprobe.analysis.step_summary import summarise_step
from stackprobe.engine.ceph_watch import CephWatch
from stackprobe.engine.health_watch import RunHealth
from stackprobe.engine.per_node import combine_hosts
from stackprobe.engine.step_monitor import StepMonitors, storage_targets
from stackprobe.errors import UserError
from stackprobe.kinds import registry
from stackprobe.kinds.ceph.session import CephSession
from stackprobe.kinds.ceph.shell import CephShell
from stackprobe.kinds.context import StepContext, StepOutcome, TargetInfo, command_record
from stackprobe.report.history import index_figures
from stackprobe.schema.results import CommandRecord, RunInfo, RunResults, StepResult
from stackprobe.spec.planned import PlannedStep
from stackprobe.store.index import record_run
from stackprobe.store.rundir import RunDir, atomic_write, utc_now_iso
from stackprobe.transport.base import CommandResult, Transport
from stackprobe.transport.fleet import Fleet, HostHandle
from stackprobe.transport.local import LocalTransport

MIN_STEP_TIMEOUT_S = 120.0
DONE = ("ok", "partial", "failed")  # a step in one of these states is complete: resume keeps it
MONITOR_MIN_S = 3600.0  # sadc ends by itself at the latest this long after its step started
# a Ceph health read this recent (the previous step's last sample) stands for the check
# before the next Ceph step: one `ceph -s` less per step
HEALTH_FRESH_S = 10.0
SESSION_DIR = "ceph-session"  # steps/<this>/ holds the Ceph setup/teardown commands


class Progress(Protocol):
    def step_started(self, step: PlannedStep) -> None: ...

    def step_finished(self, step: PlannedStep, result: StepResult) -> None: ...


@dataclass
class RunSettings:
    suite_name: str
    suite_source: str
    suite_text: str
    target_label: str
    fail_fast: bool = False
    command_line: tuple[str, ...] = ()
    hosts_file: str | None = None  # --hosts, kept so `resume` can reach the same hosts
    monitor: bool = True  # sadc on every host of every step (--no-monitor: off)
    health: bool = True  # health counters before and after the run (--no-health: off)


def step_timeout(step: PlannedStep) -> float:
    """The suite's `timeout:`, else generous: twice the estimate plus two minutes (a hung
    tool still ends). Applied to each command of the step."""
    if step.timeout_s is not None:
        return step.timeout_s
    return max(MIN_STEP_TIMEOUT_S, 2 * step.estimate_s + MIN_STEP_TIMEOUT_S)


class Executor:
    def __init__(
        self,
        plan: Sequence[PlannedStep],
        settings: RunSettings,
        transport: Transport,
        run_dir: RunDir,
        out_dir: Path,
        target: TargetInfo,
        progress: Progress | None = None,
        tool_versions: dict[str, str] | None = None,
        warnings: list[str] | None = None,
        ceph: CephSession | None = None,
        fleet: Fleet | None = None,
        previous: RunResults | None = None,
    ):
        self.plan = list(plan)
        self.settings = settings
        self.transport = transport
        self.run_dir = run_dir
        self.out_dir = out_dir
        self.target = target
        self.progress = progress
        self.ceph = ceph
        self.fleet = fleet
        self.ceph_error: str | None = None  # set once the cluster went HEALTH_ERR mid-run
        self.health_watch: RunHealth | None = None  # the hosts' counters around the run
        self._link_speeds: dict[str, dict[str, float]] = {}  # host -> nic -> Mb/s
        # (monotonic time, status): the health the last Ceph step's watch read as it ended
        self._ceph_health: tuple[float, str] | None = None
        self._ceph_shell: CephShell | None = None  # watching's librados client, once started
        self._ceph_shell_tried = False
        self.stop_requested = False
        self.setup_failed = False
        self.results = RunResults(
            run=RunInfo(
                id=run_dir.run_id,
                suite=settings.suite_name,
                suite_source=settings.suite_source,
                target=settings.target_label,
                host=transport.host,
                started=utc_now_iso(),
                stackprobe_version=__version__,
                tool_versions=tool_versions or {},
                command_line=list(settings.command_line),
                warnings=list(warnings or []),
                hosts=fleet.describe() if fleet is not None else [],
                hosts_file=settings.hosts_file,
                pid=os.getpid(),
            ),
            steps=[_pending(step) for step in self.plan],
        )
        self.resuming = previous is not None
        if previous is not None:
            self._take_over(previous)

    def _take_over(self, previous: RunResults) -> None:
        """Resume: keep every completed step (ok or failed) as it was; the others start
        again from nothing (their partial raw output is removed)."""
        fresh = self.results.run
        run = previous.run
        run.status, run.ended, run.pid = "running", None, fresh.pid
        run.resumed.append(utc_now_iso())
        run.tool_versions.update(fresh.tool_versions)
        run.warnings += [w for w in fresh.warnings if w not in run.warnings]
        run.hosts = fresh.hosts or run.hosts
        done = {s.id: s for s in previous.steps if s.status in DONE}
        steps = []
        for pending in self.results.steps:
            if pending.id in done:
                steps.append(done[pending.id])
            else:
                shutil.rmtree(self.run_dir.path / "steps" / pending.id, ignore_errors=True)
                steps.append(pending)
        self.results = RunResults(run=run, steps=steps, health=previous.health)

    def request_stop(self) -> None:
        """First Ctrl-C: stop the running tool gracefully, run no further step."""
        self.stop_requested = True
        self.transport.interrupt()
        if self.fleet is not None:
            self.fleet.interrupt()

    def kill(self) -> None:
        """Second Ctrl-C: stop every running command now, here and on the hosts."""
        self.transport.kill()
        if self.fleet is not None:
            self.fleet.kill()

    def execute(self) -> RunResults:
        if not self.resuming:
            self.run_dir.write_suite(self.settings.suite_text)
        self._save()
        if self.settings.health:
            self.health_watch = RunHealth(self.run_dir, self.transport, self.fleet, self.plan)
        try:
            if self.health_watch is not None:
                self.health_watch.before(self.results)
            if self.ceph is not None:
                self._setup_ceph()
            for i, step in enumerate(self.plan):
                if self.stop_requested:
                    break
                result = self.results.steps[i]
                if result.status in DONE:  # kept from before a resume
                    continue
                if step.on_ceph and self._cluster_broke(result):
                    continue
                if step.skip is not None:  # nothing here for it to measure (plan/expand.py)
                    result.status, result.error = "skipped", step.skip
                    self._save()
                    continue
                self._run_step(step, result)
                if result.status == "interrupted":
                    break
                if result.status == "failed" and self.settings.fail_fast:
                    break
        finally:
            self._finish()
        return self.results

    def _setup_ceph(self) -> None:
        """The run's pool; a failure ends the run before any step, and says why."""
        assert self.ceph is not None
        t = self.ceph.target
        self.results.run.ceph = {"conf": str(t.conf), "client": t.client,
                                 "pool": self.ceph.settings.pool}
        try:
            self.ceph.setup()
            self.results.run.ceph.update(pool=self.ceph.pool, pool_created=self.ceph.pool_created)
        except UserError as exc:
            self.results.run.warnings.append(f"Ceph setup failed: {exc}")
            self.setup_failed = True
            raise

    def _run_step(self, step: PlannedStep, result: StepResult) -> None:
        result.status = "running"
        result.started = utc_now_iso()
        self._save()
        if self.progress:
            self.progress.step_started(step)
        t0 = time.monotonic()
        monitors = self._monitors(step)
        monitors.start()
        if step.per_node:
            outcome, commands = self._run_per_node(step)
        else:
            outcome, commands = self._run_repetitions(step, self._context_maker(step))
        if self.stop_requested and outcome.status == "ok":
            outcome.status = "interrupted"
        result.duration_s = round(time.monotonic() - t0, 3)
        result.ended = utc_now_iso()
        result.status = outcome.status  # type: ignore[assignment]
        result.records = list(outcome.records)
        noisy_cov = step.repeat.cov if step.repeat and step.repeat.cov else DEFAULT_NOISY_COV
        result.summary = summarise_step(step.headline, outcome.records, noisy_cov)
        if result.summary is not None and outcome.steady is not None:
            result.summary.steady = outcome.steady
        result.error = outcome.error
        result.warnings.extend(outcome.warnings)
        result.notes.extend(outcome.notes)
        result.findings.update(outcome.findings)
        result.stability = judge_records(outcome.records)
        result.monitor, result.hints, problems = monitors.stop(self.run_dir.step_dir(step.id))
        result.ceph_view = monitors.ceph_view
        after = ((monitors.ceph_view or {}).get("health") or {}).get("after")
        self._ceph_health = (time.monotonic(), after["status"]) if after else None
        result.warnings.extend(problems)
        result.commands = commands
        base = self.run_dir.step_dir(step.id)
        result.artifacts = sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file())
        self._save()
        if self.progress:
            self.progress.step_finished(step, result)

    def _monitors(self, step: PlannedStep) -> StepMonitors:
        """sadc on every host the step runs on (none with --no-monitor); a Ceph step also on
        the storage hosts, with Ceph's own view from here (step_monitor.py)."""
        roles: dict[str, list[str]] = {}
        if not self.settings.monitor:
            targets = []
        elif step.hosts and self.fleet is not None:
            handles = self.fleet.select(step.hosts)
            busy = set(registry.kind(step.kind).monitored_hosts(
                step.spec, [h.name for h in handles], self.run_dir.run_id))
            targets = [(h.name, h.transport, h.scratch) for h in handles
                       if h.transport is not None  # a BMC entry has no shell to sample
                       and h.name in busy]
        else:
            targets = [(self.transport.host, self.transport, str(self.target.root))]
            if step.on_ceph:
                roles[self.transport.host] = ["client"]  # the controller drives the load
        runs = step.repeat.max if step.repeat else 1
        max_s = max(MONITOR_MIN_S, 2 * runs * step_timeout(step))
        watch = None
        if self.settings.monitor and step.on_ceph and self.ceph is not None:
            targets += storage_targets(self.fleet, {name for name, _, _ in targets})
            watch = CephWatch(self.ceph.target, self.transport, max_s=max_s,
                              shell=self._watch_shell())
        if self.fleet is not None:
            roles.update({n: list(self.fleet[n].host.roles) for n, _, _ in targets
                          if n in self.fleet.handles})
        return StepMonitors(targets, self._link_speeds, max_s=max_s, roles=roles, ceph=watch,
                            segment_s=registry.kind(step.kind).monitor_segment_s(step.spec),
                            keep_s=registry.kind(step.kind).monitor_keep_s(step.spec),
                            step_dir=self.run_dir.step_dir(step.id))

    def _cluster_broke(self, result: StepResult) -> bool:
        """Before a Ceph step: a cluster gone HEALTH_ERR is not loaded any further; this
        and every later Ceph step is skipped, saying why."""
        if self.ceph is None:
            return False
        if self.ceph_error is None:
            if self._ceph_health is not None and self._ceph_health[1] != "HEALTH_ERR" \
                    and time.monotonic() - self._ceph_health[0] < HEALTH_FRESH_S:
                return False  # the previous step's watch read it moments ago
            why = self.ceph.new_health_error()
            if why is None:
                return False
            self.ceph_error = f"the cluster went HEALTH_ERR during the run ({why})"
            self.results.run.warnings.append(f"{self.ceph_error}: Ceph steps stopped")
        result.status = "skipped"
        result.error = f"not run: {self.ceph_error}"
        self._save()
        return True

    def _context_maker(self, step: PlannedStep, host: HostHandle | None = None):
        """sub -> the StepContext of one run of the step, locally or on one host."""
        live = getattr(self.progress, "live_sink", None)  # the display's live figures
        later = self._later(step)

        def make(sub: str | None) -> StepContext:
            if host is None:
                return StepContext(step, self.transport, self.run_dir, self.target,
                                   step_timeout(step), ceph=self.ceph if step.on_ceph else None,
                                   sub=sub, fleet=self.fleet if step.hosts else None, live=live,
                                   later=later)
            where = host.name if sub is None else f"{host.name}/{sub}"
            return StepContext(step, host.transport, self.run_dir,
                               TargetInfo(root=Path(host.scratch), remote=True),
                               step_timeout(step), sub=where, fleet=self.fleet, host=host.name,
                               live=live)
        return make

    def _later(self, step: PlannedStep) -> tuple[PlannedStep, ...]:
        """The steps that will run after this one (not those kept from before a resume, nor
        those the plan skips): what a step may leave its test files for."""
        at = next((i for i, s in enumerate(self.plan) if s is step), len(self.plan))
        after = zip(self.plan[at + 1:], self.results.steps[at + 1:], strict=True)
        return tuple(s for s, r in after if r.status not in DONE and s.skip is None)

    def _run_per_node(self, step: PlannedStep) -> tuple[StepOutcome, list[CommandRecord]]:
        """The step on each of its hosts at once (each in its own sub-directory), then the
        hosts compared with one another (analysis/consistency)."""
        if self.fleet is None:
            return StepOutcome("failed", error="this step runs on hosts: give --hosts FILE"), []
        handles = self.fleet.select(step.hosts)
        with ThreadPoolExecutor(max_workers=min(32, len(handles))) as pool:
            futures = [pool.submit(self._run_repetitions, step, self._context_maker(step, h))
                       for h in handles]
            per_host = [(h.name, *f.result()) for h, f in zip(handles, futures, strict=True)]
        earlier = [r for done in self.results.steps if done.id != step.id for r in done.records]
        return combine_hosts(step, per_host, {h.name: h.host.roles for h in handles}, earlier)

    def _run_repetitions(self, step: PlannedStep, make_ctx) -> tuple[StepOutcome, list[CommandRecord]]:
        """Run the step once, or again and again as its repeat plan says; cleanup once at
        the end (a read workload's files are laid out once for all repetitions)."""
        runner = registry.kind(step.kind).runner()
        plan = step.repeat
        reps: list[int | None] = [None] if plan is None else list(range(1, plan.max + 1))
        records, warnings, notes, commands, values = [], [], [], [], []
        outcome = StepOutcome("failed", error="not run")
        ctx = None
        started: list = []  # the step's servers, one list for every repetition: a later one
        # uses the servers still running and cleanup stops them all
        try:
            for rep in reps:
                ctx = make_ctx(None if rep is None else f"rep-{rep}")
                ctx.started = started
                outcome = self._attempt(runner, ctx)
                for rec in outcome.records:
                    rec.repetition = rep
                records += outcome.records
                warnings += [w if rep is None else f"run {rep}: {w}" for w in outcome.warnings]
                notes += [n if rep is None else f"run {rep}: {n}" for n in outcome.notes]
                commands += ctx.commands
                if outcome.status != "ok" or self.stop_requested or plan is None:
                    break
                value = summarise_step(step.headline, outcome.records)
                values.append(value.headline_value if value else None)
                known = [v for v in values if v is not None]
                if len(known) < len(values) and len(values) >= plan.min:
                    break  # no headline figure to judge noise by: the fixed minimum only
                if not should_repeat(known, cov_threshold=plan.cov, min_runs=plan.min,
                                     max_runs=plan.max):
                    break
        finally:
            self.transport.clear_interrupt()  # cleanup commands must run even after Ctrl-C
            if ctx is not None:
                ctx.transport.clear_interrupt()
                if ctx.fleet is not None and ctx.host is None:  # a fleet step: every host
                    ctx.fleet.clear_interrupt()
                before = len(ctx.commands)
                try:
                    runner.cleanup(ctx)
                except Exception as exc:  # pragma: no cover - cleanup of our own directory
                    warnings.append(f"cleanup failed: {exc}")
                commands += ctx.commands[before:]
        return StepOutcome(outcome.status, records, outcome.error, warnings,
                           outcome.steady, notes, outcome.findings), commands

    @staticmethod
    def _attempt(runner, ctx: StepContext) -> StepOutcome:
        try:
            runner.prepare(ctx)
            return runner.run(ctx)
        except Exception as exc:  # a bug or an OS error must not lose the run
            atomic_write(ctx.step_dir / "error.txt", traceback.format_exc())
            return StepOutcome("failed", error=f"{type(exc).__name__}: {exc} (see error.txt)")

    def _watch_shell(self) -> CephShell | None:
        """The run's one librados client for watching Ceph steps, started with the first
        one (on this machine only: the run's Ceph files are here); None: the `ceph` CLI."""
        if not self._ceph_shell_tried and self.ceph is not None \
                and isinstance(self.transport, LocalTransport):
            self._ceph_shell_tried = True
            shell = CephShell(self.ceph.target, self.transport.host)
            self._ceph_shell = shell if shell.start() else None
        return self._ceph_shell

    def _finish(self) -> None:
        if self._ceph_shell is not None:
            self._ceph_shell.close()
        if self.health_watch is not None:
            self.health_watch.after(self.results)
        for result in self.results.steps:
            if result.status in ("pending", "running"):
                result.status = "skipped"
        statuses = {s.status for s in self.results.steps}
        run = self.results.run
        if self.stop_requested or "interrupted" in statuses:
            run.status = "interrupted"
        elif statuses & {"failed", "partial"} or self.setup_failed or self.ceph_error:
            run.status = "failed"
        else:
            run.status = "ok"
        run.ended = utc_now_iso()
        run.pid = None
        self._save()

    def record_session(self, commands: Sequence[CommandResult], problems: list[str],
                       fuse_log: Path) -> None:
        """Keep the Ceph session's setup/teardown commands (pool, image, mount) and any
        problem removing what the run created; saved after the steps' results."""
        session_dir = self.run_dir.step_dir(SESSION_DIR)
        for i, result in enumerate(commands, start=1):
            out, err = self.run_dir.save_command(session_dir, f"{i:02d}-{result.argv[0]}", result)
            self.results.run.commands.append(command_record(result, out.name, err.name))
        if fuse_log.is_file():
            shutil.copyfile(fuse_log, self.run_dir.step_dir(SESSION_DIR) / fuse_log.name)
        self.results.run.warnings.extend(f"cleanup: {p}" for p in problems)
        if self.results.run.ceph is not None:
            self.results.run.ceph["cleanup"] = "ok" if not problems else "incomplete"
        self._save()

    def record_problems(self, problems: list[str]) -> None:
        """Problems removing what the run made on its hosts, kept as run warnings."""
        self.results.run.warnings.extend(f"cleanup: {p}" for p in problems)
        self._save()

    def _save(self) -> None:
        self.run_dir.save(self.results)
        record_run(self.out_dir, self.run_dir.path, self.results,
                   figures=index_figures(self.results))


def _pending(step: PlannedStep) -> StepResult:
    return StepResult(
        id=step.id,
        index=step.index,
        name=step.name,
        kind=step.kind,
        title=step.title,
        layer=step.layer,
        params=step.params,
        swept=step.swept,
        sweep=step.sweep,
        headline=step.headline,
        estimate_s=round(step.estimate_s, 1),
        hosts=list(step.hosts),
    )
