"""The metadata runner: file create / stat / delete rates with fio's file engines.

fio reports these engines' operations as 'read' I/O; the runner turns each phase's
record into an OpsRecord (ops/s, op count, latency) so tables say 'creates/s', not IOPS.
"""

from __future__ import annotations

from stackprobe.parsers.fio_json import FioJsonError, parse_fio_json
from stackprobe.parsers.records import IoRecord, OpsRecord
from stackprobe.runners.base import StepContext, StepOutcome, failure_message, remove_work_dir
from stackprobe.runners.fio_job import build_metadata_job

JOB_FILE = "metadata.fio"


def ops_record(rec: IoRecord, files_per_job: int) -> OpsRecord:
    """An fio file-engine phase as an ops/s record."""
    stats = rec.read
    lat = {k: v for k, v in stats.clat_ns.items()} or dict(stats.lat_ns)
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
        result = ctx.execute(
            "fio", ["fio", "--output-format=json+", str(ctx.step_dir / JOB_FILE)], cwd=ctx.work_dir
        )
        try:
            records = [ops_record(r, int(ctx.step.params["files"]))
                       for r in parse_fio_json(result.stdout)]
        except FioJsonError:
            records = []
        for rec in records:
            rec.host = rec.host or ctx.transport.host
        if result.interrupted:
            return StepOutcome("interrupted", list(records), "stopped by the user")
        failed = [r for r in records if r.error]
        if not result.ok or failed or not records:
            message = failure_message(result, "fio")
            if failed and result.ok:
                message = f"fio: {failed[0].operation} failed with err={failed[0].error}"
            return StepOutcome("failed", list(records), message)
        return StepOutcome("ok", list(records))

    def cleanup(self, ctx: StepContext) -> None:
        remove_work_dir(ctx)
