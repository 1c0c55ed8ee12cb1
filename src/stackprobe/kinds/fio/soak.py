"""fio for hours: a fio step with `soak:` (e.g. `soak: {duration: 24h, chunk: 10m}`).

The step's workload runs time-based, chunk after chunk (kinds/chunked.py), over the same
bounded files: the job's name, directory and `size` do not change between chunks, so fio
lays the files out once (the first chunk) and every later chunk overwrites or rereads
them - hours of writes never take more than size x numjobs of the target. On `target:
rbd` the data set is the run's image of `size`, bounded by construction.

One job file serves every chunk: its `runtime=${STACKPROBE_CHUNK_S}` is fio's own
environment expansion, set per chunk (the last one may be shorter). Each chunk's json+
output and per-second logs are read at once, folded into the soak's bounded figures
(kinds/storage_soak.py) and kept gzip-compressed under `chunks/`; the logs are removed
from the work directory so the next chunk starts them afresh. Ctrl-C stops the running
chunk (fio still reports what it did) and keeps every chunk before it.
"""

from __future__ import annotations

from pathlib import Path

from stackprobe.kinds.chunked import run_chunks
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.fio.common import FIO_STARTUP_S, LAYOUT_BYTES_PER_S, size_bytes
from stackprobe.kinds.fio.fio_job import build_job
from stackprobe.kinds.storage_soak import ChunkOutcome, SoakFold, keep_chunk_command, keep_gz
from stackprobe.parsers.fio.fio_json import FioJsonError, parse_fio_json
from stackprobe.parsers.fio.fio_log import series_from_logs
from stackprobe.transport.base import CommandResult

CHUNK_ENV = "STACKPROBE_CHUNK_S"
CHUNK_GRACE_S = 120.0  # beyond a chunk's length (after the first, which lays files out)
LOG_GLOB = "*_iops.*.log", "*_bw.*.log"


def soak_problem(spec) -> str | None:
    """Why a fio step's `soak:` cannot run as written (None: it can)."""
    soak = spec.soak
    if soak is None:
        return None
    if spec.job_file is not None:
        return "soak: needs a workload from parameters, not a job_file"
    if spec.steady_state is not None:
        return "soak: and steady_state exclude each other (a soak runs its whole duration)"
    if spec.runtime is not None or spec.time_based is not None:
        return "soak: sets the time (its duration and chunk): remove runtime/time_based"
    if spec.hosts is not None:
        return "soak: runs on the controller's target; remove hosts"
    if spec.size is None and (spec.target or "local") != "rbd":
        return "soak: needs a size (the bounded data set every chunk works over)"
    return soak.problem()


def soak_job(name: str, spec, *, directory: str | None, engine: dict[str, str] | None = None,
             direct_io: bool = True, log_name: str | None = None,
             filename: str | None = None) -> str:
    """The job every chunk runs: the step's workload, time-based, its runtime from the
    environment (build_job's arguments)."""
    timed = spec.model_copy(update={"time_based": True, "runtime": None, "options": {
        **spec.options, "runtime": "${" + CHUNK_ENV + "}"}})
    return build_job(name, timed, directory=directory, engine=engine, direct_io=direct_io,
                     log_name=log_name, filename=filename)


def soak_seconds(spec) -> float:
    """The soak's length, fio's start per chunk and the first layout."""
    data = size_bytes(spec) * (spec.numjobs or 1)
    return (spec.soak.duration.seconds + len(spec.soak.lengths()) * FIO_STARTUP_S
            + data / LAYOUT_BYTES_PER_S)


def run_soak(ctx: StepContext, job: Path, env: dict[str, str] | None) -> StepOutcome:
    spec = ctx.step.spec
    fold = SoakFold(ctx, spec.soak, "fio", size_bytes(spec) * (spec.numjobs or 1))

    def one(index: int, seconds: float) -> ChunkOutcome:
        start = fold.clock()
        result = ctx.transport.run(
            ["fio", "--output-format=json+", str(job)], cwd=str(ctx.work_dir),
            env={"STACKPROBE_DIR": str(ctx.work_dir), CHUNK_ENV: str(int(seconds)),
                 **(env or {})},
            timeout=ctx.timeout_s if index == 0 else seconds + CHUNK_GRACE_S)
        return fold.add(index, start, result.duration_s, read_chunk(ctx, index, result))

    run = run_chunks(ctx.step.spec.soak.lengths(), one, stopped=fold.should_end)
    by_user = run.stopped and not (fold.chunks and fold.chunks[-1].status == "failed")
    return fold.outcome(by_user)


def read_chunk(ctx: StepContext, index: int, result: CommandResult) -> ChunkOutcome:
    """The chunk's record and seconds; its output and logs compressed under chunks/."""
    raw = keep_gz(ctx, index, "json", result.stdout)
    keep_chunk_command(ctx, index, result, raw)
    logs: dict[str, list[str]] = {"iops": [], "bw": []}
    for pattern in LOG_GLOB:
        for f in sorted(ctx.work_dir.glob(pattern)):
            text = f.read_text(encoding="utf-8", errors="replace")
            logs["iops" if "_iops." in f.name else "bw"].append(text)
            keep_gz(ctx, index, f.name.split("_", 1)[-1], text)
            f.unlink()
    got = ChunkOutcome("ok", raw=raw)
    try:
        got.records = parse_fio_json(result.stdout)
    except FioJsonError:
        got.records = []
    for rec in got.records:
        rec.host = rec.host or ctx.transport.host
    try:
        got.points = series_from_logs(logs["iops"], logs["bw"])
    except ValueError as exc:
        got.error = f"per-second fio logs unreadable: {exc}"
    failed = [r for r in got.records if r.error]
    if result.interrupted:
        got.status = "interrupted"
    elif not result.ok:
        got.status, got.error = "failed", failure_message(result, "fio")
    elif failed:
        got.status, got.error = "failed", f"fio: job {failed[0].job} failed with err={failed[0].error}"
    elif not got.records:
        got.status, got.error = "failed", "fio printed no JSON result"
    return got
