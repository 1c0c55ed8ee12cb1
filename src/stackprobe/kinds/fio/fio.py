"""The `fio` kind: a job file from the step's parameters, or the user's own file unchanged.

fio runs in the step's work directory with `--output-format=json+` (the full latency
histogram, for exact merged percentiles), and its JSON on stdout is kept as fio.stdout.
A user's job file may refer to ${STACKPROBE_DIR}, the step's scratch directory on the
target (fio expands environment variables in job files); relative paths land there too.
With `hosts:` the step is driven from all of them at once (kinds/fio/fio_fleet.py; on RBD
or CephFS each client on its own image or directory: kinds/fio/fio_ceph_fleet.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from stackprobe.analysis.live_figures import FioLive, fio_status_interval
from stackprobe.kinds.ceph.common import CEPH, CEPH_FUSE, RBD
from stackprobe.kinds.context import (
    StepContext,
    StepOutcome,
    failure_message,
    remove_work_dir,
)
from stackprobe.kinds.contract import ClusterIo, HostMode, Kind
from stackprobe.kinds.fio.cache_note import step_note
from stackprobe.kinds.fio.common import FIO, FIO_DEFAULTS, fio_seconds, job_file_seconds, size_bytes
from stackprobe.kinds.fio.fio_ceph_fleet import FioCephFleet
from stackprobe.kinds.fio.fio_fleet import FioFleet
from stackprobe.kinds.fio.fio_job import build_job, job_place
from stackprobe.kinds.fio.layout import put_back, take
from stackprobe.kinds.fio.params import (
    TARGET_TEXT,
    FioParams,
    expand_fio,
    fio_ceph,
    fio_layer,
    fio_on_device,
    fio_params,
    job_file_path,
    target_needs,
)
from stackprobe.kinds.fio.rbd_vs_cephfs import rbd_vs_cephfs
from stackprobe.kinds.fio.soak import run_soak, soak_job, soak_problem, soak_seconds
from stackprobe.kinds.fio.steady import SteadyMonitor, SteadySpec
from stackprobe.kinds.live import stdout_reader
from stackprobe.kinds.storage_soak import SoakMonitoring, SoakSpec
from stackprobe.parsers.fio.fio_json import FioJsonError, parse_fio_json
from stackprobe.parsers.fio.fio_log import series_from_logs
from stackprobe.safety.job_paths import WORK, job_lines, parse_jobs, plan_uses_of
from stackprobe.schema.records import IoRecord
from stackprobe.schema.storage_soak_records import StorageSoakRecord
from stackprobe.spec.fields import Duration
from stackprobe.spec.steps import MeasuredSpec, StrictModel, slug
from stackprobe.tables.rows import fio_workload
from stackprobe.tables.storage_soak import soak_tables


class AdviceSpec(StrictModel):
    """For a sweep: advise the best setting whose latency percentile meets a limit."""

    limit: Duration
    percentile: float = Field(default=99.0, gt=0, lt=100)


class FioStep(MeasuredSpec, FioParams):
    """One fio workload from parameters, or the user's own job file run unchanged."""

    kind: Literal["fio"]
    job_file: str | None = None
    headline: Literal["auto", "iops", "bw", "lat"] = "auto"
    steady_state: SteadySpec | None = None
    advice: AdviceSpec | None = None
    soak: SoakSpec | None = None  # hours in chunks over the bounded files (kinds/fio/soak.py)

    @model_validator(mode="after")
    def _soak(self):
        problem = soak_problem(self)
        if problem:
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _job_file_alone(self):
        if self.job_file is not None:
            given = [k for k in FioParams.model_fields if getattr(self, k) not in (None, {})]
            if given:
                raise ValueError(
                    f"job_file runs unchanged: remove {', '.join(given)} (set them in the file)"
                )
        return self


JOB_FILE = "job.fio"
LOG_NAME = "persec"  # fio's per-second logs: persec_iops.1.log, persec_bw.1.log
# Files fio writes itself (per-IO and histogram logs) that belong beside its output.
OWN_OUTPUT_GLOBS = ("*.log", "*.log.gz")


def run_fio_job(ctx: StepContext, job: Path, env: dict[str, str] | None = None,
                steady: SteadyMonitor | None = None, interval_s: int = 1,
                live: bool = False) -> StepOutcome:
    """Run fio on a job file in the step's work directory and read its json+ output.

    The step failed when fio exited non-zero, printed no result, or reported a job error;
    its message is fio's own line. Records measured before a stop or failure are kept.
    With `live` and a display to show them, fio's status documents give live figures.
    """
    argv = ["fio", "--output-format=json+", str(job)]
    reader = stdout_reader(ctx.live if live else None, FioLive(ctx.host), steady)
    if steady is None and reader is not None:
        interval_s = fio_status_interval(ctx.step.estimate_s)
    if reader is not None:
        argv.insert(2, f"--status-interval={interval_s}")
    result = ctx.execute(
        "fio",
        argv,
        cwd=ctx.work_dir,
        env={"STACKPROBE_DIR": str(ctx.work_dir), **(env or {})},
        on_stdout=reader,
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
        return StepOutcome.stopped(records)
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
    spec: FioStep = ctx.step.spec
    out = {"steady": verdict.steady, "reason": verdict.reason,
           "reached_at_s": verdict.reached_at_s, "stopped_early": monitor.stopped_at is not None,
           "window": monitor.window, "intervals": len(monitor.series()),
           "level_iops": verdict.held_mean, "held_from_s": verdict.held_from_s}
    if monitor.stopped_at is not None and spec.runtime is not None:
        planned = spec.runtime.seconds + (spec.ramp_time.seconds if spec.ramp_time else 0.0)
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
    return ctx.target.direct_io or ctx.step.ceph is not None


class FioRunner:
    def __init__(self) -> None:
        self.local_fleet = FioFleet()  # the same step driven from several hosts (--hosts)
        self.ceph_fleet = FioCephFleet()  # ... on RBD or CephFS, each client on its own
        self.files = None  # the run's kept test files this step uses (kinds/fio/layout.py)

    def _fleet(self, ctx: StepContext):
        return self.ceph_fleet if ctx.step.spec.target in ("rbd", "cephfs") else self.local_fleet

    def prepare(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self._fleet(ctx).prepare(ctx)
        spec: FioStep = ctx.step.spec
        ctx.work_dir.mkdir(parents=True, exist_ok=True)  # for rbd: fio's cwd, its logs
        if spec.job_file is not None:
            src = Path(spec.job_file)
            ctx.run_dir.copy_in(src, ctx.step_dir / src.name)  # kept redacted; fio reads src
            return
        engine = self._rbd_engine(ctx) if spec.target == "rbd" else None
        self.files = self.files or take(ctx)
        build = soak_job if spec.soak is not None else build_job
        job = build(ctx.step.name, spec, **job_place(ctx.step, str(ctx.work_dir), engine),
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
            return self._fleet(ctx).run(ctx)
        spec: FioStep = ctx.step.spec
        job = Path(spec.job_file) if spec.job_file is not None else _runnable_job(ctx)
        env = ctx.ceph.env() if ctx.ceph is not None and spec.target == "rbd" else None
        steady = spec.steady_state
        monitor = SteadyMonitor(steady) if steady else None
        if spec.soak is not None:
            outcome = run_soak(ctx, job, env)
        else:
            outcome = run_fio_job(ctx, job, env, monitor, steady.interval if steady else 1,
                                  live=True)
        outcome.notes += self.files.ran(outcome.status) if self.files is not None else []
        if monitor is not None:
            outcome.steady = steady_summary(monitor, ctx)
        self._collect_own_outputs(ctx)
        self._series_from_logs(ctx, outcome)
        if not _direct_ok(ctx) and spec.job_file is None and spec.direct:
            outcome.warnings.append("direct=1 requested but the target does not support "
                                    "O_DIRECT: ran buffered (page cache in play)")
        if spec.job_file is None and ctx.step.ceph is None and outcome.status == "ok":
            outcome.warnings += step_note(ctx, spec, bool(spec.direct) and _direct_ok(ctx))
        return outcome

    def cleanup(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self._fleet(ctx).cleanup(ctx)
        put_back(ctx, self.files)
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


OWN_FIELDS = ("steady_state", "advice", "soak")  # the fio kind's fields beside fio's parameters


class Fio(SoakMonitoring, Kind):
    name = "fio"
    spec = FioStep
    layer = "disk"  # on an RBD image or the CephFS: 'client'
    family = "fio"
    hosts = HostMode.FLEET
    tools = (FIO, CEPH, RBD, CEPH_FUSE)  # Ceph's on `target: rbd|cephfs`
    records = (IoRecord, StorageSoakRecord)
    concurrency = ("iodepth", "numjobs")
    duration_fields = ("runtime", "ramp_time", "time_based", "steady_state", "soak")
    verdict_fields = ("advice",)
    tool_defaults = FIO_DEFAULTS

    def expand(self, spec: FioStep, defaults, base_dir):
        if spec.job_file is not None:  # run unchanged: nothing to merge or sweep
            yield spec.model_copy(update={"job_file": job_file_path(spec, base_dir),
                                          "steady_state": None, "advice": None}), {}
            return
        yield from expand_fio(spec, defaults)

    def params(self, spec: FioStep):
        if spec.job_file is not None:
            return {"job_file": spec.job_file}
        return fio_params(spec, OWN_FIELDS)

    def default_name(self, spec: FioStep):
        if spec.job_file is not None:
            return Path(spec.job_file).stem
        return "-".join(slug(v) for v in (spec.rw, spec.bs) if v is not None) or "fio"

    def title(self, spec: FioStep, name):
        if spec.job_file is not None:
            return name
        parts = [str(spec.bs or ""), str(spec.rw or "")]
        parts += [f"QD{spec.iodepth}"] if spec.iodepth is not None else []
        parts += [f"{spec.numjobs} jobs"] if (spec.numjobs or 1) > 1 else []
        return " ".join(p for p in parts if p) or name  # fio's defaults alone: the name

    def target_text(self, spec: FioStep):
        return TARGET_TEXT.get(spec.target or "local")

    def layer_of(self, spec):
        return fio_layer(spec, self.layer)

    def on_device(self, spec: FioStep, device):
        if spec.job_file is not None:
            return ("a job file names its own files: run it with --target DIR (a filename=/dev/... "
                    "in it reaches a device)")
        return fio_on_device(spec, device)

    def headline(self, spec: FioStep):
        if spec.headline != "auto":
            return spec.headline
        if spec.job_file is not None:
            return "iops"
        if (spec.iodepth or 1) * (spec.numjobs or 1) == 1:
            return "lat"
        if spec.bs is not None and spec.bs.bytes >= 256 * 1024:
            return "bw"
        return "iops"

    def estimate_s(self, spec: FioStep, hosts):
        if spec.job_file is not None:
            return job_file_seconds(spec.job_file)
        return soak_seconds(spec) if spec.soak is not None else fio_seconds(spec)

    def data_bytes(self, spec: FioStep):
        return 0 if spec.job_file is not None else size_bytes(spec) * (spec.numjobs or 1)

    def needs(self, spec: FioStep):
        return ("fio", *target_needs(spec.target))

    def controller_needs(self, spec):
        if spec.target in ("rbd", "cephfs"):  # the run's pool and the clients' images
            return target_needs(spec.target)[:1] + (("rbd",) if spec.target == "rbd" else ())
        return ("fio",)  # `fio --client` drives the fleet from here

    def ceph(self, spec: FioStep):
        return None if spec.job_file is not None else fio_ceph(spec, self.data_bytes(spec))

    def workload_text(self, params):
        if "job_file" in params:
            return f"job file {params['job_file'].rsplit('/', 1)[-1]}"
        return fio_workload(params)

    def runner(self):
        return FioRunner()

    def guard_inputs(self, step, read, hosts):
        spec: FioStep = step.spec
        if spec.job_file is None:
            return built_job_uses(step)
        return plan_uses_of(step, parse_jobs(job_lines(read(spec.job_file), spec.job_file, read)))

    def tables(self, steps):
        return [t for t in (rbd_vs_cephfs(steps),) if t.rows] + soak_tables(steps)

    def cluster_io(self, step):
        p = step.params
        if p.get("target") not in TARGET_TEXT:
            return None
        return ClusterIo.from_params(p, "bs")


def built_job_uses(step) -> tuple[list, list[str]]:
    """What the job stackprobe builds for a fio-like step opens: its directory is the
    step's scratch directory, written as ${STACKPROBE_DIR} (safety/job_paths.py), or the
    raw block device of --target DEVICE — checked like a user's job naming it."""
    spec = step.spec
    engine = {"ioengine": "rbd"} if spec.target == "rbd" else None
    text = build_job(step.name, spec, **job_place(step, WORK, engine), engine=engine)
    return plan_uses_of(step, parse_jobs(job_lines(text, None)))


KIND = Fio()
