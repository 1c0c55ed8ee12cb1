"""The `slo` kind: the highest IOPS whose latency percentile stays within a limit.

Each probe is one fio run of the step's workload at one setting of `vary` (numjobs,
iodepth, or an offered rate via fio's rate_iops), in its own probe-N/ directory, on the
same test files; analysis/slo_search.py decides which setting to probe next. The probes'
fio records are kept (one fio group each) beside an slo record with the answer and the
knee curve.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, model_validator

from stackprobe.analysis.io_summary import summarise_io
from stackprobe.analysis.slo_confirm import confirm
from stackprobe.analysis.slo_search import Probe, SloResult, search
from stackprobe.kinds.ceph.common import CEPH, CEPH_FUSE, RBD
from stackprobe.kinds.context import StepContext, StepOutcome, remove_work_dir
from stackprobe.kinds.contract import Kind
from stackprobe.kinds.fio.common import FIO, FIO_DEFAULTS, fio_seconds, size_bytes
from stackprobe.kinds.fio.fio import FioRunner, built_job_uses, run_fio_job
from stackprobe.kinds.fio.fio_job import build_job, job_place
from stackprobe.kinds.fio.params import (
    TARGET_TEXT,
    FioParams,
    expand_fio,
    fio_ceph,
    fio_layer,
    fio_on_device,
    fio_params,
    target_needs,
)
from stackprobe.schema.records import IoRecord, SloRecord, percentile_key
from stackprobe.schema.results import StepResult
from stackprobe.spec.fields import Duration
from stackprobe.spec.steps import MeasuredSpec
from stackprobe.tables.rows import fio_workload, io_rows, status_row
from stackprobe.units import fmt_iops, fmt_ns


class SloStep(MeasuredSpec, FioParams):
    """The highest IOPS with a latency percentile within a limit (seed 000's search, done
    adaptively). The fio parameters describe the workload; `vary` is what the search
    raises: numjobs (iodepth fixed), iodepth (numjobs fixed) or rate_iops (the offered
    load in IOPS, with the workload's numjobs and iodepth). `runtime` is per probe."""

    kind: Literal["slo"]
    percentile: float = Field(default=99.9, gt=0, lt=100)
    limit: Duration
    latency: Literal["total", "completion"] = "total"
    vary: Literal["numjobs", "iodepth", "rate_iops"] = "numjobs"
    min: int = Field(default=1, ge=1)
    max: int = Field(default=64, ge=1)
    tolerance: float = Field(default=0.05, gt=0, lt=1)
    # extra probes to confirm the answer under noise (analysis/slo_confirm.py); 0: one
    # probe per setting, as the search alone
    confirm: int = Field(default=4, ge=0, le=32)

    @model_validator(mode="after")
    def _bounds(self):
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        if self.vary in ("numjobs", "iodepth") and getattr(self, self.vary) is not None:
            raise ValueError(f"{self.vary} is what the search varies: set min and max instead")
        return self

JOB_FILE = "job.fio"


class ProbeFailed(Exception):
    def __init__(self, outcome: StepOutcome):
        super().__init__(outcome.error)
        self.outcome = outcome


def probe_spec(spec: SloStep, setting: int) -> SloStep:
    """The workload with the searched setting applied. An offered rate is split across the
    jobs (fio's rate_iops is per job)."""
    if spec.vary == "rate_iops":
        jobs = spec.numjobs or 1
        return spec.model_copy(update={"options": {
            **spec.options, "rate_iops": max(1, math.ceil(setting / jobs))}})
    return spec.model_copy(update={spec.vary: setting})


def probe_latency(records: list[IoRecord], key: str, latency: str) -> tuple[float, float]:
    """(IOPS, the percentile) of one probe: all directions' IOPS; the worse direction's
    percentile (a mixed workload meets the limit only if both its reads and writes do)."""
    (group,) = summarise_io(records)
    dirs = [d for d in (group.read, group.write, group.trim) if d is not None]
    pcts = [(d.lat_ns if latency == "total" and d.lat_ns else d.clat_ns).get(key) for d in dirs]
    if not dirs or any(v is None for v in pcts):
        raise ValueError(f"fio reported no {key} for this probe")
    return sum(d.iops for d in dirs), max(pcts)


class SloRunner:
    def prepare(self, ctx: StepContext) -> None:
        ctx.work_dir.mkdir(parents=True, exist_ok=True)

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: SloStep = ctx.step.spec
        key = percentile_key(spec.percentile)
        limit_ns = spec.limit.seconds * 1e9
        records: list = []
        env = ctx.ceph.env() if ctx.ceph is not None and spec.target == "rbd" else None

        def measure(setting: int) -> Probe:
            n = sum(1 for r in records if isinstance(r, IoRecord)) + 1
            sub = ctx.child(f"probe-{n}")
            engine = FioRunner._rbd_engine(ctx) if spec.target == "rbd" else None
            job = build_job(f"{ctx.step.name}-probe{n}", probe_spec(spec, setting),
                            **job_place(ctx.step, str(ctx.work_dir), engine), engine=engine,
                            direct_io=ctx.target.direct_io or ctx.step.ceph is not None)
            (sub.step_dir / JOB_FILE).write_text(job, encoding="utf-8")
            outcome = run_fio_job(sub, sub.step_dir / JOB_FILE, env)
            if outcome.status != "ok":
                records.extend(outcome.records)
                raise ProbeFailed(outcome)
            for rec in outcome.records:
                rec.groupid = n  # probes ran one after another: one table row each
                rec.job = f"probe {n}: {spec.vary}={setting}"
            iops, lat = probe_latency(outcome.records, key, spec.latency)
            records.extend(outcome.records)
            return Probe(setting, iops, lat, seconds=ctx.commands[-1].duration_s)

        try:
            result = search(measure, spec.min, spec.max, limit_ns, tolerance=spec.tolerance)
            confirm(result, measure, tolerance=spec.tolerance, budget=spec.confirm)
        except ProbeFailed as exc:
            return StepOutcome(exc.outcome.status, records, exc.outcome.error)
        except ValueError as exc:
            return StepOutcome("failed", records, f"slo: {exc}")
        records.append(slo_record(result, spec, ctx.transport.host))
        return StepOutcome("ok", records, notes=[answer_sentence(result, spec)])

    def cleanup(self, ctx: StepContext) -> None:
        remove_work_dir(ctx)


def slo_record(result: SloResult, spec: SloStep, host: str) -> SloRecord:
    answer = result.answer
    return SloRecord(
        percentile=spec.percentile,
        latency=spec.latency,
        limit_ns=result.limit_ns,
        vary=spec.vary,
        answer=None if answer is None else {"setting": answer.setting, "iops": answer.iops,
                                            "latency_ns": answer.latency_ns,
                                            "uncertainty": result.uncertainty,
                                            "repeats": result.repeats},
        probes=[{"setting": q.setting, "iops": q.iops, "latency_ns": q.latency_ns,
                 "seconds": q.seconds, "passed": result.passes(q)} for q in result.probes],
        device_seconds=round(result.device_seconds, 1),
        reason=result.reason,
        host=host,
    )


def answer_sentence(result: SloResult, spec: SloStep) -> str:
    """'max 9.4k IOPS ± 3.0% at numjobs=16, p99 8.7 ms <= 10 ms (2 probes at it; ...)'."""
    pct = f"p{spec.percentile:g}"
    a = result.answer
    if a is None:
        lowest = min(result.probes, key=lambda q: q.latency_ns)
        return (f"no setting meets {pct} <= {fmt_ns(result.limit_ns)}: the lowest was "
                f"{fmt_ns(lowest.latency_ns)} at {spec.vary}={lowest.setting}")
    spread = f" ± {result.uncertainty:.1%}" if result.uncertainty is not None else ""
    return (f"max {fmt_iops(a.iops)} IOPS{spread} at {spec.vary}={a.setting}, {pct} "
            f"{fmt_ns(a.latency_ns)} <= {fmt_ns(result.limit_ns)} ({result.repeats} "
            f"probe{'s' if result.repeats != 1 else ''} at it; {len(result.probes)} probes, "
            f"{result.device_seconds:.0f} s of load; {result.reason})")


def slo_answer(step: StepResult) -> tuple[SloRecord | None, str | None]:
    """The step's slo record and the io group label of its answering probe."""
    rec = next((r for r in step.records if isinstance(r, SloRecord)), None)
    if rec is None or rec.answer is None:
        return rec, None
    return rec, f"{rec.vary}={rec.answer['setting']}"


OWN_FIELDS = ("percentile", "limit", "latency", "vary", "min", "max", "tolerance", "confirm")


class Slo(Kind):
    name = "slo"
    spec = SloStep
    layer = "disk"  # on an RBD image or the CephFS: 'client'
    family = "fio"
    tools = (FIO, CEPH, RBD, CEPH_FUSE)  # Ceph's on `target: rbd|cephfs`
    records = (IoRecord, SloRecord)
    duration_fields = ("runtime", "ramp_time", "time_based")
    tool_defaults = FIO_DEFAULTS
    probe_groups = True

    def expand(self, spec, defaults, base_dir):
        return expand_fio(spec, defaults)

    def params(self, spec):
        return fio_params(spec, OWN_FIELDS)

    def title(self, spec: SloStep, name):
        return (f"{spec.bs or ''} {spec.rw or ''}: max IOPS with "
                f"p{spec.percentile:g} {spec.latency} latency <= {spec.limit}").strip()

    def target_text(self, spec: SloStep):
        return TARGET_TEXT.get(spec.target or "local")

    def layer_of(self, spec):
        return fio_layer(spec, self.layer)

    def headline(self, spec):
        return "iops"

    def estimate_s(self, spec: SloStep, hosts):
        widest = spec if spec.vary == "rate_iops" else spec.model_copy(update={spec.vary: spec.max})
        return _probes(spec) * fio_seconds(widest)

    def data_bytes(self, spec: SloStep):
        jobs = spec.max if spec.vary == "numjobs" else (spec.numjobs or 1)
        return size_bytes(spec) * jobs

    def needs(self, spec: SloStep):
        return ("fio", *target_needs(spec.target))

    def ceph(self, spec):
        return fio_ceph(spec, self.data_bytes(spec))

    def on_device(self, spec, device):
        return fio_on_device(spec, device)

    def workload_text(self, params):
        return fio_workload(params)

    def runner(self):
        return SloRunner()

    def guard_inputs(self, step, read, hosts):
        return built_job_uses(step)

    def rows(self, step):
        """One row: the answer's probe; the probes are the slo table's."""
        workload = self.workload_text(step.params)
        if step.summary is None:
            return [status_row(step, workload)]
        rec, answer_label = slo_answer(step)
        groups = [g for g in step.summary.io if answer_label and g.label.endswith(answer_label)]
        if not groups:
            reason = rec.reason if rec else "no answer"
            return [status_row(step, workload,
                               step.error or f"no setting meets the limit ({reason})")]
        return io_rows(step, workload, groups) or [status_row(step, workload)]


def _probes(spec: SloStep) -> int:
    """Geometric bracketing (x4) plus a few refinements and the confirming budget: an
    upper estimate, save when the confirmation reopens the bracket (a lost answer far
    above the next passing setting, analysis/slo_confirm.py): its gap can add a probe or
    two past the refinements left unused."""
    ratio = max(1.0, spec.max / spec.min)
    return int(math.ceil(math.log(ratio, 4))) + 4 + spec.confirm


KIND = Slo()
