"""The runner contract: one module per step kind, each with prepare / run / cleanup.

A runner builds the tool's command, runs it through the step's transport, hands the raw
output to a parser and returns a StepOutcome. It never writes results itself: the executor
stores outcomes. StepContext.execute keeps every command's line, stdout and stderr in the
step directory, so raw output is never lost, also when parsing fails.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from stackprobe.analysis.live_figures import LiveSink
from stackprobe.schema.records import Record
from stackprobe.schema.results import CommandRecord
from stackprobe.spec.planned import PlannedStep
from stackprobe.store.rundir import RunDir
from stackprobe.transport.base import CommandResult, Transport
from stackprobe.transport.side_by_side import side_by_side

if TYPE_CHECKING:
    from stackprobe.kinds.ceph.session import CephSession
    from stackprobe.transport.fleet import Fleet, HostHandle


@dataclass
class TargetInfo:
    """Where test files go and what the target supports."""

    root: Path  # the scratch directory stackprobe created for this run
    direct_io: bool = True  # O_DIRECT works on the target filesystem
    remote: bool = False  # root is on a host reached through the transport, not here


STOPPED = "stopped by the user"  # the error of a step the user interrupted


@dataclass
class StepOutcome:
    status: str  # ok | failed | interrupted
    records: list[Record] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    steady: dict | None = None  # steady-state verdict, for steps that asked for one
    notes: list[str] = field(default_factory=list)  # findings (an slo answer), not problems
    # structured findings the report draws: 'consistency' (per-node figures compared),
    # 'network' (the pair matrix), 'disk_scaling' (singles vs all at once)
    findings: dict = field(default_factory=dict)

    @classmethod
    def stopped(cls, records: list[Record] | None = None,
                warnings: list[str] | None = None) -> StepOutcome:
        """The step the user interrupted, with what it measured until then."""
        return cls("interrupted", list(records or []), STOPPED, list(warnings or []))


@dataclass
class StepContext:
    step: PlannedStep
    transport: Transport
    run_dir: RunDir
    target: TargetInfo
    timeout_s: float
    ceph: CephSession | None = None  # set when the plan loads a Ceph cluster
    sub: str | None = None  # this run's sub-directory: 'rep-2' (repetition), 'probe-3' (slo)
    commands: list[CommandRecord] = field(default_factory=list)
    fleet: Fleet | None = None  # the run's hosts, for steps that drive several at once
    host: str | None = None  # the host this context runs on (per-node steps), None: locally
    # servers the step started (iperf3 -s, fio --server): cleanup stops them by PID
    started: list = field(default_factory=list)
    live: LiveSink | None = None  # the run's display of live figures (kinds/live.py), if any
    # the steps of the run still to come after this one: what a step may leave on the target
    # for them (fio's laid-out test files, kinds/fio/layout.py); empty: nothing is kept
    later: tuple[PlannedStep, ...] = ()

    def child(self, sub: str) -> StepContext:
        """A context for one part of the step (an slo probe): its own sub-directory, the
        step's command list and servers."""
        return StepContext(self.step, self.transport, self.run_dir, self.target,
                           self.timeout_s, ceph=self.ceph, sub=sub, commands=self.commands,
                           fleet=self.fleet, host=self.host, started=self.started,
                           live=self.live, later=self.later)

    @property
    def on_cephfs(self) -> bool:
        """The step works in the run's CephFS directory (a ceph-fuse mount made for it)."""
        return self.step.ceph is not None and self.step.ceph.cephfs

    @property
    def base_dir(self) -> Path:
        """The step's directory in the run (file names in results are relative to it)."""
        return self.run_dir.step_dir(self.step.id)

    @property
    def step_dir(self) -> Path:
        """Where raw outputs and job files of this run of the step are kept
        (rep-N/ or probe-N/ under the step's directory)."""
        if self.sub is None:
            return self.base_dir
        d = self.base_dir / self.sub
        d.mkdir(parents=True, exist_ok=True)
        return d

    @property
    def work_dir(self) -> Path:
        """Where this step's test files go (removed by cleanup): under the run's scratch
        directory, or under the run's directory in the CephFS for `target: cephfs`."""
        if self.on_cephfs and self.ceph is not None:
            return self.ceph.cephfs_dir() / self.step.id
        return self.target.root / self.step.id

    def execute(
        self,
        label: str,
        argv: list[str],
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        on_stdout: Callable[[str], bool] | None = None,
        on: Transport | None = None,
    ) -> CommandResult:
        """Run a command through the transport (or `on` another host's, for fleet steps)
        and keep its line, stdout and stderr."""
        result = (on or self.transport).run(
            argv, cwd=str(cwd) if cwd else None, env=env, timeout=self.timeout_s,
            on_stdout=on_stdout,
        )
        self._keep(label, result)
        return result

    def execute_reads(self, commands: Sequence[tuple[str, list[str]]]) -> list[CommandResult]:
        """(label, argv) commands that only read and need nothing of each other, run side
        by side (transport/side_by_side.py) and kept in the order given, as `execute` keeps
        each."""
        results = side_by_side(lambda argv: self.transport.run(argv, timeout=self.timeout_s),
                               [argv for _, argv in commands])
        for (label, _), result in zip(commands, results):
            self._keep(label, result)
        return results

    def _keep(self, label: str, result: CommandResult) -> None:
        out, err = self.run_dir.save_command(self.step_dir, label, result)
        self.commands.append(command_record(
            result, str(out.relative_to(self.base_dir)), str(err.relative_to(self.base_dir))))


def command_record(result: CommandResult, stdout_file: str, stderr_file: str) -> CommandRecord:
    """What results.json says of a command; its output is in the named files."""
    return CommandRecord(
        command=result.command_line(),
        argv=result.argv,
        host=result.host,
        cwd=result.cwd,
        returncode=result.returncode,
        duration_s=round(result.duration_s, 3),
        timed_out=result.timed_out,
        interrupted=result.interrupted,
        stdout_file=stdout_file,
        stderr_file=stderr_file,
    )


class Runner(Protocol):
    kind: str

    def prepare(self, ctx: StepContext) -> None: ...

    def run(self, ctx: StepContext) -> StepOutcome: ...

    def cleanup(self, ctx: StepContext) -> None: ...


def remove_work_dir(ctx: StepContext) -> None:
    """Remove the step's test files: only the directory stackprobe made for this step."""
    if ctx.on_cephfs and (ctx.ceph is None or ctx.ceph.mount_dir is None):
        return  # never mounted: nothing was written
    work = ctx.work_dir
    if ctx.target.remote:  # on a host: rm there, only below the run's scratch directory
        if work.is_relative_to(ctx.target.root) and work != ctx.target.root:
            ctx.execute("cleanup", ["rm", "-rf", "--", str(work)])
        return
    roots = [ctx.target.root.resolve()]
    if ctx.ceph is not None and ctx.ceph.mount_dir is not None:
        roots.append((ctx.ceph.mount_dir / ctx.ceph.run_tag).resolve())
    if work.is_dir() and any(work.resolve().is_relative_to(r) for r in roots):
        shutil.rmtree(work, ignore_errors=True)


def stop_started(ctx: StepContext) -> list[str]:
    """Stop the step's background servers (by PID, on their hosts, all at once); problems,
    in words."""
    started = list(ctx.started)
    ctx.started.clear()  # in place: the step's repetitions share the list

    def stop(item) -> str | None:
        host, proc = item
        try:
            proc.stop(grace_s=5.0)
        except Exception as exc:  # a host gone away: say so, go on with the others
            return f"{host}: could not stop {proc.argv[0]} (pid {proc.pid}): {exc}"
        return None

    if not started:
        return []
    with ThreadPoolExecutor(max_workers=min(32, len(started))) as pool:
        return [p for p in pool.map(stop, started) if p]


SERVER_READY_S = 10.0
PORT_RELEASED_S = 5.0


def start_servers(ctx: StepContext, tool: str, port: int,
                  argv_of: Callable[[HostHandle], list[str]],
                  names: list[str] | None = None) -> str | None:
    """A server (`fio --server`, `iperf3 -s`) on each host of a fleet step (or on `names`
    of them: a pair step's servers), all at once, each kept in ctx.started for cleanup to
    stop by PID; None once every one listens on `port`, else why not, in one line."""
    assert ctx.fleet is not None
    names = list(ctx.step.hosts) if names is None else names
    # a repetition (or an slo probe) of the step uses the servers it started before, still
    # running: a second server would find the port taken and leave the first one running
    names = _not_serving(ctx, names, argv_of)
    if not names:
        return None
    # the server of the step before, stopped by its PID, may still hold its socket for a
    # moment: a new server would then not bind while the old socket passed the readiness
    # check (seen once in three runs of the multi-host lab, fio's client then missing a
    # host). Something else on the port after that is left to the readiness check.
    _until_port(ctx, names, port, listening=False, within_s=PORT_RELEASED_S)

    def start(h: HostHandle) -> str | None:
        try:
            proc = h.transport.start(argv_of(h), log=f"{h.scratch}/{tool}-server-{ctx.step.id}.log")
        except OSError as exc:
            return f"{h.name}: {tool} server did not start: {exc}"
        ctx.started.append((h.name, proc))
        return None

    problems = [p for p in ctx.fleet.each(start, names).values() if p]
    if problems:
        return "; ".join(problems)
    waiting = _until_port(ctx, names, port, listening=True, within_s=SERVER_READY_S)
    if waiting:
        return f"{tool} server not listening on " + ", ".join(
            f"{n} ({ctx.fleet[n].host.address}:{port})" for n in waiting)
    return None


def _not_serving(ctx: StepContext, names: list[str],
                 argv_of: Callable[[HostHandle], list[str]]) -> list[str]:
    """The hosts of `names` where the step does not already run this server (started by
    it, still alive): asked on all those hosts at once, as the ports are."""
    assert ctx.fleet is not None
    fleet = ctx.fleet
    mine = {n: [p for host, p in ctx.started if host == n
                and list(p.argv) == list(argv_of(fleet[n]))] for n in names}

    def alive(h: HostHandle) -> bool:
        try:
            return any(p.alive() for p in mine[h.name])
        except Exception:  # a host gone away: start again, which then says why
            return False

    asked = [n for n in names if mine[n]]
    up = fleet.each(alive, asked) if asked else {}
    return [n for n in names if not up.get(n)]


def _until_port(ctx: StepContext, names: list[str], port: int, *, listening: bool,
                within_s: float) -> list[str]:
    """Ask the hosts every 0.2 s, for up to `within_s`, whether something listens on TCP
    `port`, until each answers `listening`; the hosts that never did."""
    assert ctx.fleet is not None
    deadline = time.monotonic() + within_s
    waiting = names
    while waiting:
        up = ctx.fleet.each(lambda h: h.listening(port), waiting)
        waiting = [n for n in waiting if up[n] != listening]
        if not waiting or time.monotonic() >= deadline:
            break
        time.sleep(0.2)
    return waiting


MAX_MESSAGE = 300


def failure_message(result: CommandResult, tool: str) -> str:
    """The tool's own words for why it failed, in one line."""
    if result.returncode is None:
        return result.stderr.strip() or f"{tool} could not be started"
    if result.timed_out:
        return f"{tool} timed out after {result.duration_s:.0f} s and was stopped"
    lines = [ln.strip() for ln in result.stderr.splitlines() if ln.strip()]
    tool_lines = [ln.removeprefix(f"{tool}:").strip() for ln in lines if ln.startswith(f"{tool}:")]
    if tool_lines:  # the cause comes first ('failed parsing x=y'), its effect last ('job dropped')
        text = "; ".join(dict.fromkeys(tool_lines))
    else:
        text = (lines or [f"exit status {result.returncode}"])[-1]
    text = text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."
    return f"{tool}: {text}"
