"""The slo runner: the highest IOPS whose latency percentile stays within a limit.

Each probe is one fio run of the step's workload at one setting of `vary` (numjobs,
iodepth, or an offered rate via fio's rate_iops), in its own probe-N/ directory, on the
same test files; analysis/slo_search.py decides which setting to probe next. The probes'
fio records are kept (one fio group each) beside an slo record with the answer and the
knee curve.
"""

from __future__ import annotations

import math

from stackprobe.analysis.io_summary import summarise_io
from stackprobe.analysis.slo_search import Probe, SloResult, search
from stackprobe.schema.records import IoRecord, SloRecord, percentile_key
from stackprobe.kinds.context import StepContext, StepOutcome, remove_work_dir
from stackprobe.kinds.fio.fio import FioRunner, run_fio_job
from stackprobe.kinds.fio.fio_job import build_job
from stackprobe.units import fmt_iops, fmt_ns, parse_duration_s

JOB_FILE = "job.fio"


class ProbeFailed(Exception):
    def __init__(self, outcome: StepOutcome):
        super().__init__(outcome.error)
        self.outcome = outcome


def probe_params(params: dict, vary: str, setting: int) -> dict:
    """The workload with the searched setting applied. An offered rate is split across the
    jobs (fio's rate_iops is per job)."""
    p = dict(params)
    if vary == "rate_iops":
        jobs = int(p.get("numjobs", 1))
        p["options"] = {**p.get("options", {}), "rate_iops": max(1, math.ceil(setting / jobs))}
    else:
        p[vary] = setting
    return p


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
    kind = "slo"

    def prepare(self, ctx: StepContext) -> None:
        ctx.work_dir.mkdir(parents=True, exist_ok=True)

    def run(self, ctx: StepContext) -> StepOutcome:
        p = ctx.step.params
        key = percentile_key(p["percentile"])
        limit_ns = parse_duration_s(p["limit"]) * 1e9
        records: list = []
        env = ctx.ceph.env() if ctx.ceph is not None and p.get("target") == "rbd" else None

        def measure(setting: int) -> Probe:
            n = sum(1 for r in records if isinstance(r, IoRecord)) + 1
            sub = ctx.child(f"probe-{n}")
            engine = FioRunner._rbd_engine(ctx) if p.get("target") == "rbd" else None
            job = build_job(f"{ctx.step.name}-probe{n}", probe_params(p, p["vary"], setting),
                            directory=None if engine else str(ctx.work_dir), engine=engine,
                            direct_io=ctx.target.direct_io or p.get("target", "local") != "local")
            (sub.step_dir / JOB_FILE).write_text(job, encoding="utf-8")
            outcome = run_fio_job(sub, sub.step_dir / JOB_FILE, env)
            if outcome.status != "ok":
                records.extend(outcome.records)
                raise ProbeFailed(outcome)
            for rec in outcome.records:
                rec.groupid = n  # probes ran one after another: one table row each
                rec.job = f"probe {n}: {p['vary']}={setting}"
            iops, lat = probe_latency(outcome.records, key, p.get("latency", "total"))
            records.extend(outcome.records)
            return Probe(setting, iops, lat, seconds=ctx.commands[-1].duration_s)

        try:
            result = search(measure, int(p["min"]), int(p["max"]), limit_ns,
                            tolerance=float(p.get("tolerance", 0.05)))
        except ProbeFailed as exc:
            return StepOutcome(exc.outcome.status, records, exc.outcome.error)
        except ValueError as exc:
            return StepOutcome("failed", records, f"slo: {exc}")
        records.append(slo_record(result, p, ctx.transport.host))
        return StepOutcome("ok", records, notes=[answer_sentence(result, p)])

    def cleanup(self, ctx: StepContext) -> None:
        remove_work_dir(ctx)


def slo_record(result: SloResult, p: dict, host: str) -> SloRecord:
    answer = result.answer
    return SloRecord(
        percentile=float(p["percentile"]),
        latency=p.get("latency", "total"),
        limit_ns=result.limit_ns,
        vary=p["vary"],
        answer=None if answer is None else {"setting": answer.setting, "iops": answer.iops,
                                            "latency_ns": answer.latency_ns},
        probes=[{"setting": q.setting, "iops": q.iops, "latency_ns": q.latency_ns,
                 "seconds": q.seconds, "passed": result.passes(q)} for q in result.probes],
        device_seconds=round(result.device_seconds, 1),
        reason=result.reason,
        host=host,
    )


def answer_sentence(result: SloResult, p: dict) -> str:
    limit = f"p{float(p['percentile']):g} <= {fmt_ns(result.limit_ns)}"
    a = result.answer
    if a is None:
        lowest = min(result.probes, key=lambda q: q.latency_ns)
        return (f"no setting meets {limit}: the lowest was {fmt_ns(lowest.latency_ns)} "
                f"at {p['vary']}={lowest.setting}")
    return (f"max {fmt_iops(a.iops)} IOPS with {limit} at {p['vary']}={a.setting} "
            f"(p{float(p['percentile']):g} {fmt_ns(a.latency_ns)}; {len(result.probes)} probes, "
            f"{result.device_seconds:.0f} s of load; {result.reason})")
