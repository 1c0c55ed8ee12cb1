"""The metadata runner: file create / write / stat / read / delete rates with fio.

create, stat and delete use fio's filecreate/filestat/filedelete engines, which report
their operations as 'read' I/O; write and read move one block of `file_size` per file. The
runner turns each phase's record into an OpsRecord (ops/s, op count, latency) so tables
say 'creates/s', not IOPS. layout 'easy' gives each process its own directory, 'hard'
puts every process's files in one directory (the contended case metadata servers fear).
With `hosts:` the step is driven from all of them at once (runners/metadata_fleet.py).
"""

from __future__ import annotations

from stackprobe.schema.records import IoRecord, OpsRecord
from stackprobe.kinds.context import StepContext, StepOutcome, remove_work_dir
from stackprobe.kinds.fio.fio import run_fio_job
from stackprobe.kinds.fio.fio_job import build_metadata_job, metadata_dirs
from stackprobe.kinds.fio.metadata_fleet import MetadataFleet

JOB_FILE = "metadata.fio"


def operation_of(job: str) -> str:
    """'create@host1' -> 'create'."""
    return job.split("@", 1)[0]


def ops_record(rec: IoRecord, files_per_job: int, layout: str | None = None) -> OpsRecord:
    """An fio metadata phase as an ops/s record (a write phase's figures are its writes;
    fio's file engines count their operations as reads)."""
    operation = operation_of(rec.job)
    stats = rec.write if rec.write.active else rec.read
    lat = dict(stats.clat_ns) or dict(stats.lat_ns)
    return OpsRecord(
        tool="fio",
        tool_version=rec.tool_version,
        operation=operation,
        ops_per_s=stats.iops,
        total_ops=stats.total_ios,
        runtime_ms=stats.runtime_ms,
        jobs=rec.jobs,
        files_per_job=files_per_job,
        layout=layout,
        lat_ns=lat,
        host=rec.host,
        error=rec.error,
        error_message=rec.error_message,
    )


SHORT_PHASE_MS = 100.0  # below this, fio's millisecond runtime makes a rate uncertain by > 1%


def short_phase(name: str, runtime_ms: float | None, hint: str) -> str | None:
    """A warning for a phase too short for fio's whole-millisecond runtime to time within
    1% (io500-like phases use it too); None when it ran long enough."""
    ms = runtime_ms or 0.0
    if ms >= SHORT_PHASE_MS:
        return None
    if not ms:
        return f"{name} ran under 1 ms: fio's millisecond clock cannot time it; {hint}"
    return (f"{name} ran {ms:.0f} ms: fio times phases in whole milliseconds, so its rate is "
            f"uncertain by ~{100 / ms:.0f}%; {hint}")


def short_phases(records: list[OpsRecord]) -> list[str]:
    found = (short_phase(r.operation, r.runtime_ms, "give it more files") for r in records)
    return [w for w in found if w]


def job_text(ctx: StepContext, directory: str, owner: str = "", suffix: str = "",
             operations: list[str] | None = None) -> str:
    p = ctx.step.params
    return build_metadata_job(
        ctx.step.name, directory, files=int(p["files"]), numjobs=int(p["numjobs"]),
        file_size=str(p["file_size"]), operations=operations or list(p["operations"]),
        stat_type=p.get("stat_type", "stat"), layout=p.get("layout", "easy"), owner=owner,
        job_suffix=suffix)


class MetadataRunner:
    kind = "metadata"

    def __init__(self) -> None:
        self.fleet = MetadataFleet()
        self._warnings: dict[str, list[str]] = {}

    def prepare(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self.fleet.prepare(ctx)
        p = ctx.step.params
        for d in metadata_dirs(p.get("layout", "easy"), int(p["numjobs"])):
            (ctx.work_dir / d).mkdir(parents=True, exist_ok=True)
        stripe = ctx.step.params.get("stripe")
        from stackprobe.kinds.hpc.lustre import apply_stripes  # noqa: PLC0415

        self._warnings[ctx.step.id] = apply_stripes(
            ctx, str(ctx.work_dir), {".": stripe}) if stripe else []
        (ctx.step_dir / JOB_FILE).write_text(job_text(ctx, str(ctx.work_dir)),
                                             encoding="utf-8")

    def run(self, ctx: StepContext) -> StepOutcome:
        if ctx.fleet is not None:
            return self.fleet.run(ctx)
        outcome = run_fio_job(ctx, ctx.step_dir / JOB_FILE)
        p = ctx.step.params
        outcome.records = [ops_record(r, int(p["files"]), p.get("layout"))
                           for r in outcome.records]
        outcome.warnings += self._warnings.pop(ctx.step.id, []) + short_phases(outcome.records)
        return outcome

    def cleanup(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self.fleet.cleanup(ctx)
        remove_work_dir(ctx)
