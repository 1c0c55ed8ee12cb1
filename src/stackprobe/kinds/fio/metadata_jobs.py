"""What a metadata step's runs share, here and across a fleet: its fio job file, and its
fio records read as operation rates.

create, stat and delete use fio's filecreate/filestat/filedelete engines, which report
their operations as 'read' I/O; write and read move one block of `file_size` per file. Each
phase's record becomes an OpsRecord (ops/s, op count, latency) so tables say 'creates/s',
not IOPS. io500-like steps read their metadata phases the same way.
"""

from __future__ import annotations

from stackprobe.kinds.fio.fio_job import build_metadata_job
from stackprobe.schema.records import IoRecord, OpsRecord

JOB_FILE = "metadata.fio"
SHORT_PHASE_MS = 100.0  # below this, fio's millisecond runtime makes a rate uncertain by > 1%


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


def job_text(name: str, spec, directory: str, owner: str = "", suffix: str = "",
             operations: list[str] | None = None) -> str:
    """The metadata step's fio job file over `directory` (`spec`: a MetadataStep)."""
    return build_metadata_job(
        name, directory, files=spec.files, numjobs=spec.numjobs,
        file_size=str(spec.file_size), operations=operations or list(spec.operations),
        stat_type=spec.stat_type, layout=spec.layout, owner=owner, job_suffix=suffix)
