"""The rados bench runner: write (leaving its objects), then seq and rand reads of them.

The write carries a run-specific --run-name, so the reads find exactly its objects and
`rados cleanup --run-name` removes exactly them afterwards, even in a user's pool. Output
is rados bench's --format json (per-second series included).

A timed write fills a cluster at its full speed: on a small cluster 60 s is enough to
reach the full ratio, and BlueStore aborts OSDs on ENOSPC before clients see the full flag.
So the write is capped (--max-objects) at half of what the pool can still take.
"""

from __future__ import annotations

from stackprobe.parsers.ceph.rados_bench import parse_rados_bench
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.units import parse_size


FILL_FRACTION = 0.5  # of the pool's max_avail a write may use


def run_name(ctx: StepContext) -> str:
    assert ctx.ceph is not None
    return f"{ctx.ceph.run_tag}-{ctx.step.name}"


class RadosBenchRunner:
    kind = "rados_bench"

    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None, "rados bench needs the run's Ceph session"
        p = ctx.step.params
        reads = [m for m in p["modes"] if m != "write"]
        modes = ["write", *reads]  # reads need the objects a write leaves
        records, warnings = [], []
        bs = parse_size(p["block_size"])
        max_objects = self._max_objects(ctx, bs)
        base = ["rados", *ctx.ceph.target.cli(), "-p", ctx.ceph.pool, "bench",
                str(max(1, round(float(p["seconds"]))))]
        for groupid, mode in enumerate(modes):
            argv = base + [mode, "-t", str(p["threads"]), "--run-name", run_name(ctx),
                           "--format", "json"]
            if mode == "write":
                argv += ["-b", str(bs), "--no-cleanup"]
                if max_objects is not None:
                    argv += ["--max-objects", str(max_objects)]
            result = ctx.execute(f"rados-bench-{mode}", argv)
            if result.interrupted:
                return StepOutcome("interrupted", records, "stopped by the user", warnings)
            if not result.ok:
                return StepOutcome("failed", records, failure_message(result, "rados"), warnings)
            try:
                rec = parse_rados_bench(result.stdout, mode)
            except ValueError as exc:
                return StepOutcome("failed", records, f"rados bench {mode}: {exc}", warnings)
            if mode == "write" and max_objects is not None and rec.write.total_ios == max_objects:
                warnings.append(f"write stopped at {max_objects} objects (half of the pool's "
                                f"free space) before its {p['seconds']:g} s")
            rec.groupid = groupid  # the modes ran one after another: never add them up
            rec.host = ctx.transport.host
            if mode == "write" and "write" not in p["modes"]:
                rec.job = "write (objects for the reads)"
            records.append(rec)
        return StepOutcome("ok", records, None, warnings)

    @staticmethod
    def _max_objects(ctx: StepContext, block_bytes: int) -> int | None:
        assert ctx.ceph is not None
        avail = ctx.ceph.pool_max_avail(ctx.execute)
        if avail is None:
            return None
        return max(1, int(avail * FILL_FRACTION) // block_bytes)

    def cleanup(self, ctx: StepContext) -> None:
        assert ctx.ceph is not None
        ctx.execute("rados-cleanup", ["rados", *ctx.ceph.target.cli_bounded(), "-p",
                                      ctx.ceph.pool, "cleanup", "--run-name", run_name(ctx)])
