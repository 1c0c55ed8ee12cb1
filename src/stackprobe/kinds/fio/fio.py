"""The fio runner: a job file from the step's parameters, or the user's own file unchanged.

fio runs in the step's work directory with `--output-format=json+` (the full latency
histogram, for exact merged percentiles), and its JSON on stdout is kept as fio.stdout.
A user's job file may refer to ${STACKPROBE_DIR}, the step's scratch directory on the
target (fio expands environment variables in job files); relative paths land there too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from stackprobe.parsers.fio.fio_json import FioJsonError, parse_fio_json
from stackprobe.parsers.fio.fio_log import series_from_logs
from stackprobe.schema.records import IoRecord
from stackprobe.kinds.context import (
    StepContext,
    StepOutcome,
    failure_message,
    remove_work_dir,
)
from stackprobe.kinds.fio.fio_fleet import FioFleet
from stackprobe.kinds.fio.fio_job import build_job
from stackprobe.kinds.fio.steady import SteadyMonitor
from stackprobe.units import parse_duration_s

JOB_FILE = "job.fio"
LOG_NAME = "persec"  # fio's per-second logs: persec_iops.1.log, persec_bw.1.log
# Files fio writes itself (per-IO and histogram logs) that belong beside its output.
OWN_OUTPUT_GLOBS = ("*.log", "*.log.gz")


def run_fio_job(ctx: StepContext, job: Path, env: dict[str, str] | None = None,
                steady: SteadyMonitor | None = None, interval_s: int = 1) -> StepOutcome:
    """Run fio on a job file in the step's work directory and read its json+ output.

    The step failed when fio exited non-zero, printed no result, or reported a job error;
    its message is fio's own line. Records measured before a stop or failure are kept.
    """
    argv = ["fio", "--output-format=json+", str(job)]
    if steady is not None:
        argv.insert(2, f"--status-interval={interval_s}")
    result = ctx.execute(
        "fio",
        argv,
        cwd=ctx.work_dir,
        env={"STACKPROBE_DIR": str(ctx.work_dir), **(env or {})},
        on_stdout=steady,
    )
    try:
        records: list[IoRecord] = parse_fio_json(result.stdout)
    except FioJsonError:
        records = []
    for rec in records:
        rec.host = rec.host or ctx.transport.host
        if steady is not None:
            rec.series = steady.series()
    if result.interrupted:
        return StepOutcome("interrupted", list(records), "stopped by the user")
    failed = [r for r in records if r.error]
    # fio exits non-zero after the SIGINT of a steady-state stop, and still reports
    finished = result.ok or (result.stopped_early and not result.timed_out)
    if finished and records and not failed:
        return StepOutcome("ok", list(records))
    if not finished:
        message = failure_message(result, "fio")
    elif failed:
        message = f"fio: job {failed[0].job} failed with err={failed[0].error}"
    else:
        message = "fio printed no JSON result"
    for rec in failed:
        rec.error_message = message
    return StepOutcome("failed", list(records), message)


def steady_summary(monitor: SteadyMonitor, ctx: StepContext) -> dict:
    """The verdict, and for a step ended early the time it saved against its plan."""
    verdict = monitor.verdict()
    p = ctx.step.params
    out = {"steady": verdict.steady, "reason": verdict.reason,
           "reached_at_s": verdict.reached_at_s, "stopped_early": monitor.stopped_at is not None,
           "window": monitor.window, "intervals": len(monitor.series())}
    if monitor.stopped_at is not None and "runtime" in p:
        planned = parse_duration_s(p["runtime"]) + parse_duration_s(p.get("ramp_time", 0))
        ran = ctx.commands[-1].duration_s if ctx.commands else planned
        out.update(planned_s=planned, ran_s=round(ran, 1), saved_s=round(max(0.0, planned - ran), 1))
    return out


def _runnable_job(ctx: StepContext) -> Path:
    """The generated job file fio reads: the kept one, or the unredacted copy beside the
    test files when the kept one had to be redacted (store/redact.py)."""
    unredacted = ctx.work_dir / JOB_FILE
    return unredacted if unredacted.is_file() else ctx.step_dir / JOB_FILE


def _direct_ok(ctx: StepContext) -> bool:
    """O_DIRECT was probed on the local target; ceph-fuse supports it; rbd ignores it."""
    return ctx.target.direct_io or ctx.step.params.get("target", "local") != "local"


class FioRunner:
    kind = "fio"

    def __init__(self) -> None:
        self.fleet = FioFleet()  # the same step driven from several hosts (--hosts)

    def prepare(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self.fleet.prepare(ctx)
        p = ctx.step.params
        ctx.work_dir.mkdir(parents=True, exist_ok=True)  # for rbd: fio's cwd, its logs
        if "job_file" in p:
            src = Path(p["job_file"])
            ctx.run_dir.copy_in(src, ctx.step_dir / src.name)  # kept redacted; fio reads src
            return
        engine = self._rbd_engine(ctx) if p.get("target") == "rbd" else None
        job = build_job(ctx.step.name, p, directory=None if engine else str(ctx.work_dir),
                        engine=engine, direct_io=_direct_ok(ctx), log_name=LOG_NAME)
        if ctx.run_dir.write_text(ctx.step_dir / JOB_FILE, job):  # kept redacted: fio reads
            (ctx.work_dir / JOB_FILE).write_text(job, encoding="utf-8")  # an unredacted copy

    @staticmethod
    def _rbd_engine(ctx: StepContext) -> dict[str, str]:
        """fio's rbd engine options for the run's image (created and filled on first use)."""
        assert ctx.ceph is not None, "fio on rbd needs the run's Ceph session"
        pool, image = ctx.ceph.rbd_image(ctx.execute).split("/", 1)
        return {"ioengine": "rbd", "clientname": ctx.ceph.target.client, "pool": pool,
                "rbdname": image}

    def run(self, ctx: StepContext) -> StepOutcome:
        if ctx.fleet is not None:
            return self.fleet.run(ctx)
        p = ctx.step.params
        job = Path(p["job_file"]) if "job_file" in p else _runnable_job(ctx)
        env = ctx.ceph.env() if ctx.ceph is not None and p.get("target") == "rbd" else None
        spec = p.get("steady_state")
        monitor = SteadyMonitor(spec) if spec else None
        outcome = run_fio_job(ctx, job, env, monitor, int(spec.get("interval", 1)) if spec else 1)
        if monitor is not None:
            outcome.steady = steady_summary(monitor, ctx)
        self._collect_own_outputs(ctx)
        self._series_from_logs(ctx, outcome)
        if not _direct_ok(ctx) and "job_file" not in p and p.get("direct"):
            outcome.warnings.append("direct=1 requested but the target does not support "
                                    "O_DIRECT: ran buffered (page cache in play)")
        return outcome

    def cleanup(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self.fleet.cleanup(ctx)
        remove_work_dir(ctx)

    @staticmethod
    def _series_from_logs(ctx: StepContext, outcome: StepOutcome) -> None:
        """The step's per-second series from fio's logs, for a step reported as one group
        (the series is the group's) that has none from steady-state monitoring."""
        io = [r for r in outcome.records if isinstance(r, IoRecord)]
        if len(io) != 1 or io[0].series:
            return
        iops = sorted(ctx.step_dir.glob(f"{LOG_NAME}_iops.*.log"))
        bw = sorted(ctx.step_dir.glob(f"{LOG_NAME}_bw.*.log"))
        try:
            series = series_from_logs([f.read_text() for f in iops], [f.read_text() for f in bw])
        except (OSError, ValueError) as exc:
            outcome.warnings.append(f"per-second fio logs unreadable: {exc}")
            return
        io[0].series = series or None

    @staticmethod
    def _collect_own_outputs(ctx: StepContext) -> None:
        if not ctx.work_dir.is_dir():
            return
        for pattern in OWN_OUTPUT_GLOBS:
            for f in ctx.work_dir.glob(pattern):
                shutil.move(str(f), ctx.step_dir / f.name)
