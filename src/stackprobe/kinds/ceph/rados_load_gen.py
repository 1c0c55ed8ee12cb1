"""The `rados_load_gen` kind: `rados load-gen`, a mixed read/write load of random sizes at
a target rate over objects of random sizes (seed 002's third Ceph tool).

Unlike rados bench it does not run flat out: it issues operations to keep up with
`target_throughput` (bytes/s), with at most `max_ops` operations and `max_backlog` bytes in
flight — so the question it answers is whether the cluster sustains that mix. Achieving
less than the target means the cluster (or max_ops / max_backlog) held it back: a warning.
With `hosts:` every client host runs it at once (kinds/ceph/rados_load_gen_fleet.py).

It makes `objects` objects of `object_size_min`..`object_size_max` first, in the default
namespace under names it draws itself (`obj-<random>`), and removes them at the end; a stop
leaves them. So it runs only in the pool stackprobe creates for the run (CephNeeds
own_pool), which is removed afterwards. An object above the OSDs' osd_max_object_size
(128 MiB by default) cannot be written — seed 002's "load-gen bootstrap failed": the step
checks it first and says so. The tool prints no times: the runner keeps when each line
arrived (`load-gen.times`, one number per stdout line) for the run's length and its
per-second series (parsers/ceph/rados_load_gen.py).
"""

from __future__ import annotations

import time
from typing import Literal

from pydantic import model_validator

from stackprobe.kinds.ceph.common import CEPH, CEPH_CLI_S, CLUSTER_BYTES_PER_S, RADOS
from stackprobe.kinds.ceph.rados_load_gen_fleet import run_fleet
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import CephNeeds, HostMode, Kind
from stackprobe.parsers.ceph.rados_load_gen import parse_rados_load_gen
from stackprobe.schema.records import IoRecord
from stackprobe.spec.fields import Count, Duration, Percent, Size, Sizes
from stackprobe.spec.steps import MeasuredSpec
from stackprobe.units import fmt_bw

LABEL = "load-gen"
SHORT_OF_TARGET = 0.9  # achieved below this share of the target: the cluster held it back


class RadosLoadGenStep(MeasuredSpec):
    """`rados load-gen`: random reads and writes of op_size_min..op_size_max at a target
    rate over `objects` objects of object_size_min..object_size_max, for run_length."""

    kind: Literal["rados_load_gen"]
    objects: Count = 50
    object_size_min: Size = Size.of("1M")
    object_size_max: Size = Size.of("4M")
    op_size_min: Size = Size.of("4K")
    op_size_max: Size = Size.of("1M")
    read_percent: Percent | list[Percent] = 80
    target_throughput: Sizes = Size.of("64M")  # bytes per second
    max_ops: Count = 16  # operations in flight at most
    max_backlog: Size | None = None  # bytes in flight at most; unset: twice the target
    run_length: Duration = Duration.of(30)

    @model_validator(mode="after")
    def _ranges(self):
        for low, high in (("object_size_min", "object_size_max"),
                          ("op_size_min", "op_size_max")):
            if getattr(self, low).bytes > getattr(self, high).bytes:
                raise ValueError(f"{low} ({getattr(self, low)}) is above {high} "
                                 f"({getattr(self, high)})")
        return self


def load_gen_argv(cli: list[str], pool: str, spec: RadosLoadGenStep) -> list[str]:
    """Every option in bytes or counts (16.2.15 reads --target-throughput in bytes/s)."""
    backlog = spec.max_backlog.bytes if spec.max_backlog else 2 * spec.target_throughput.bytes
    return ["rados", *cli, "-p", pool, "load-gen",
            "--num-objects", str(spec.objects),
            "--min-object-size", str(spec.object_size_min.bytes),
            "--max-object-size", str(spec.object_size_max.bytes),
            "--min-op-len", str(spec.op_size_min.bytes),
            "--max-op-len", str(spec.op_size_max.bytes),
            "--max-ops", str(spec.max_ops),
            "--max-backlog", str(backlog),
            "--read-percent", str(spec.read_percent),
            "--target-throughput", str(spec.target_throughput.bytes),
            "--run-length", str(max(1, round(spec.run_length.seconds)))]


class LineClock:
    """Fed stdout as it arrives: when each line came, in seconds since the start."""

    def __init__(self, t0: float | None = None) -> None:
        self.t0 = time.monotonic() if t0 is None else t0  # on time.monotonic()
        self.times: list[float] = []
        self._partial = False

    def __call__(self, chunk: str) -> bool:
        now = round(max(0.0, time.monotonic() - self.t0), 4)
        ends = chunk.count("\n")
        self.times += [now] * ends
        self._partial = not chunk.endswith("\n") if chunk else self._partial
        return False  # never ends the command

    def finish(self) -> list[float]:
        """One time per line of the output (a last line without its newline included)."""
        return self.times + ([round(time.monotonic() - self.t0, 4)] if self._partial else [])


class RadosLoadGenRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None, "rados load-gen needs the run's Ceph session"
        spec: RadosLoadGenStep = ctx.step.spec
        too_big = self._too_big(ctx, spec)
        if too_big:
            return StepOutcome("failed", error=too_big)
        if ctx.fleet is not None:
            return run_fleet(ctx, lambda cli, pool: load_gen_argv(cli, pool, spec), LineClock,
                             lambda rec: _short_of_target(rec, spec), spec.target_throughput.bytes)
        clock = LineClock()
        result = ctx.execute(LABEL, load_gen_argv(ctx.ceph.target.cli(), ctx.ceph.pool, spec),
                             on_stdout=clock)
        times = clock.finish()
        ctx.run_dir.write_text(ctx.step_dir / f"{LABEL}.times",
                               "".join(f"{t:.4f}\n" for t in times))
        try:
            record = parse_rados_load_gen(result.stdout, times)
        except ValueError as exc:
            if result.interrupted:
                return StepOutcome.stopped()
            why = failure_message(result, "rados") if not result.ok else f"rados load-gen: {exc}"
            return StepOutcome("failed", error=why)
        record.host = ctx.transport.host
        record.workload.update(target_bytes_per_s=spec.target_throughput.bytes,
                               read_percent=spec.read_percent)
        if result.interrupted:
            return StepOutcome.stopped([record])
        if not result.ok:
            return StepOutcome("failed", [record], failure_message(result, "rados"))
        return StepOutcome("ok", [record], warnings=_short_of_target(record, spec))

    def cleanup(self, ctx: StepContext) -> None:
        pass  # load-gen removes its objects; after a stop, the run's own pool goes with them

    @staticmethod
    def _too_big(ctx: StepContext, spec: RadosLoadGenStep) -> str | None:
        """Objects the OSDs would refuse, said before load-gen fails on them."""
        assert ctx.ceph is not None
        res = ctx.execute("osd-max-object-size", ["ceph", *ctx.ceph.target.cli(), "config",
                                                  "get", "osd", "osd_max_object_size"])
        try:
            limit = int(res.stdout.strip())
        except ValueError:
            return None  # the cluster does not say: load-gen will
        if spec.object_size_max.bytes <= limit:
            return None
        return (f"object_size_max {spec.object_size_max} is above the OSDs' "
                f"osd_max_object_size ({limit} bytes): load-gen could not write its objects "
                "('load-gen bootstrap failed')")


def _short_of_target(rec: IoRecord, spec: RadosLoadGenStep) -> list[str]:
    achieved = sum(s.bw_bytes for _, s in rec.directions())
    target = spec.target_throughput.bytes
    if achieved >= SHORT_OF_TARGET * target:
        return []
    return [f"reached {fmt_bw(achieved)} of its {fmt_bw(target)} target "
            f"({achieved / target:.0%}): the cluster, or max_ops {spec.max_ops} / max_backlog, "
            "held it back"]


class RadosLoadGen(Kind):
    name = "rados_load_gen"
    spec = RadosLoadGenStep
    layer = "cluster"
    family = "ceph"
    hosts = HostMode.FLEET
    sweeps = ("target_throughput", "read_percent")
    tools = (CEPH, RADOS)
    records = (IoRecord,)
    duration_fields = ("run_length",)

    def title(self, spec: RadosLoadGenStep, name):
        return (f"rados load-gen {spec.op_size_min}-{spec.op_size_max}, {spec.read_percent}% "
                f"reads, target {spec.target_throughput}/s")

    def headline(self, spec):
        return "bw"

    def estimate_s(self, spec: RadosLoadGenStep, hosts):
        made = spec.objects * spec.object_size_max.bytes  # laid out before the run
        return 3 * CEPH_CLI_S + made / CLUSTER_BYTES_PER_S + spec.run_length.seconds

    def ceph(self, spec):
        return CephNeeds(own_pool=True)

    def workload_text(self, params):
        return (f"{params['op_size_min']}-{params['op_size_max']} ops, "
                f"{params['read_percent']}% reads, {params['objects']} objects, "
                f"target {params['target_throughput']}/s")

    def runner(self):
        return RadosLoadGenRunner()


KIND = RadosLoadGen()
