"""The metadata runner: file create / stat / delete rates with fio's file engines.

fio reports these engines' operations as 'read' I/O; the runner turns each phase's
record into an OpsRecord (ops/s, op count, latency) so tables say 'creates/s', not IOPS.
"""

from __future__ import annotations

from stackprobe.parsers.records import IoRecord, OpsRecord
from stackprobe.runners.base import StepContext, StepOutcome, remove_work_dir
from stackprobe.runners.fio import run_fio_job
from stackprobe.runners.fio_job import build_metadata_job

JOB_FILE = "metadata.fio"


def ops_record(rec: IoRecord, files_per_job: int) -> OpsRecord:
    """An fio file-engine phase as an ops/s record."""
    stats = rec.read
    lat = dict(stats.clat_ns) or dict(stats.lat_ns)
    return OpsRecord(
        tool="fio",
        tool_version=rec.tool_version,
        operation=rec.job,
        ops_per_s=stats.iops,
        total_ops=stats.total_ios,
        runtime_ms=stats.runtime_ms,
        jobs=rec.jobs,
        files_per_job=files_per_job,
        lat_ns=lat,
        host=rec.host,
        error=rec.error,
        error_message=rec.error_message,
    )


class MetadataRunner:
    kind = "metadata"

    def prepare(self, ctx: StepContext) -> None:
        ctx.work_dir.mkdir(parents=True, exist_ok=True)
        p = ctx.step.params
        job = build_metadata_job(
            ctx.step.name,
            str(ctx.work_dir),
            files=int(p["files"]),
            numjobs=int(p["numjobs"]),
            file_size=str(p["file_size"]),
            operations=list(p["operations"]),
            stat_type=p.get("stat_type", "stat"),
        )
        (ctx.step_dir / JOB_FILE).write_text(job, encoding="utf-8")

    def run(self, ctx: StepContext) -> StepOutcome:
        outcome = run_fio_job(ctx, ctx.step_dir / JOB_FILE)
        files = int(ctx.step.params["files"])
        outcome.records = [ops_record(r, files) for r in outcome.records]
        return outcome

    def cleanup(self, ctx: StepContext) -> None:
        remove_work_dir(ctx)
