"""rados bench for hours: a rados_bench step with `soak:` reads a fixed object set.

Why reads: `rados bench write` cannot overwrite a bounded set for a given time. Each
second of a write makes new objects (`benchmark_data_<host>_<pid>_object<N>`, N counting
up); `--max-objects` ends the write when N reaches the cap rather than starting over, and
`--reuse-bench` writes the previous run's names from the first again, also only up to the
cap (obj_bencher.cc, write_bench). A timed write therefore either fills the cluster or
stops early. `rados bench rand`, though, reads objects of the set at random until its time
is up - time-based over a bounded set by construction. So the soak writes its object set
once (`soak.size` worth of `block_size` objects, at most half of what the pool can still
take, `--no-cleanup`), then reads it with `rand`, chunk after chunk
(kinds/storage_soak.py); the step's cleanup removes the set by its run name.

A write soak on Ceph is fio's rbd engine over the run's image (`kind: fio, target: rbd,
size: ..., soak: ...`): the image's size bounds it, and fio overwrites it for as long as
asked (docs/soak.md).
"""

from __future__ import annotations

from stackprobe.kinds.chunked import run_chunks
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.storage_soak import ChunkOutcome, SoakFold, SoakSpec, keep_chunk_command, keep_gz
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench
from stackprobe.spec.fields import Size
from stackprobe.transport.base import CommandResult

WRITE_LIMIT_S = 3600  # the object set's write: ends at its object count, long before this
CHUNK_GRACE_S = 120.0


class RadosSoakSpec(SoakSpec):
    """The soak block of rados_bench: `size` is the object set the reads go over."""

    size: Size = Size.of("1G")


def soak_problem(spec) -> str | None:
    if spec.soak is None:
        return None
    if "modes" in spec.model_fields_set and list(spec.modes) not in (["rand"], ["write", "rand"]):
        return "soak: reads its object set with rand: leave modes out (or [rand])"
    if spec.hosts is not None:
        return "soak: runs from the controller; remove hosts"
    return spec.soak.problem()


def objects_for(spec, pool_cap: int | None) -> int:
    """The set's object count: soak.size in block_size objects, within the pool's cap."""
    count = max(1, spec.soak.size.bytes // spec.block_size.bytes)
    return min(count, pool_cap) if pool_cap is not None else count


def run_rados_soak(ctx: StepContext, base: list[str], name: str, objects: int) -> StepOutcome:
    """`base`: `rados <conn> -p <pool> bench` without seconds; `name`: the run name."""
    spec = ctx.step.spec
    write = ctx.execute("rados-bench-soak-set", base + [
        str(WRITE_LIMIT_S), "write", "-t", str(spec.threads), "-b", str(spec.block_size.bytes),
        "--max-objects", str(objects), "--no-cleanup", "--run-name", name, "--format", "json"])
    if write.interrupted:
        return StepOutcome.stopped()
    if not write.ok:
        return StepOutcome("failed", error=f"the soak's object set: {failure_message(write, 'rados')}")
    try:
        made = parse_rados_bench(write.stdout, "write")
    except ValueError as exc:
        return StepOutcome("failed", error=f"the soak's object set: rados bench write: {exc}")
    made.job, made.host, made.groupid, made.series = ("write (the soak's object set)",
                                                      ctx.transport.host, 0, None)
    fold = SoakFold(ctx, spec.soak, "rados", objects * spec.block_size.bytes)

    def one(index: int, seconds: float) -> ChunkOutcome:
        start = fold.clock()
        result = ctx.transport.run(base + [str(int(seconds)), "rand", "-t", str(spec.threads),
                                           "--run-name", name, "--format", "json"],
                                   timeout=seconds + CHUNK_GRACE_S)
        return fold.add(index, start, result.duration_s, read_chunk(ctx, index, result))

    run = run_chunks(spec.soak.lengths(), one, stopped=fold.should_end)
    by_user = run.stopped and not (fold.chunks and fold.chunks[-1].status == "failed")
    out = fold.outcome(by_user)
    for rec in out.records:
        if hasattr(rec, "groupid"):
            rec.groupid = 1  # after the set's write, never added to it
    out.records.insert(0, made)
    return out


def read_chunk(ctx: StepContext, index: int, result: CommandResult) -> ChunkOutcome:
    raw = keep_gz(ctx, index, "json", result.stdout)
    keep_chunk_command(ctx, index, result, raw)
    got = ChunkOutcome("ok", raw=raw)
    try:
        rec = parse_rados_bench(result.stdout, "rand")
    except ValueError as exc:
        rec = None
        got.error = f"rados bench rand: {exc}"
    if rec is not None:
        rec.host = ctx.transport.host
        got.points, rec.series = list(rec.series or []), None
        got.records = [rec]
    if result.interrupted:
        got.status = "interrupted"
    elif not result.ok:
        got.status, got.error = "failed", failure_message(result, "rados")
    elif rec is None:
        got.status = "failed"
    return got
