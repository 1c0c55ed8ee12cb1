"""The `rados_bench` kind: write (leaving its objects), then seq and rand reads of them.

The write carries a run-specific --run-name, so the reads find exactly its objects and
`rados cleanup --run-name` removes exactly them afterwards, even in a user's pool. Output
is rados bench's --format json (per-second series included).

A timed write fills a cluster at its full speed: on a small cluster 60 s is enough to
reach the full ratio, and BlueStore aborts OSDs on ENOSPC before clients see the full flag.
So the write is capped (--max-objects) at half of what the pool can still take.

With `hosts:` every client host runs it at once (kinds/ceph/rados_bench_fleet.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field, model_validator

from stackprobe.analysis.live_ceph import RadosLive
from stackprobe.kinds.ceph.common import CEPH, CEPH_CLI_S, RADOS
from stackprobe.kinds.ceph.rados_bench_fleet import cleanup_fleet, run_fleet
from stackprobe.kinds.ceph.rados_soak import RadosSoakSpec, objects_for, run_rados_soak, soak_problem
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import CephNeeds, ClusterIo, HostMode, Kind
from stackprobe.kinds.live import stdout_reader
from stackprobe.kinds.storage_soak import SoakMonitoring
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench
from stackprobe.schema.records import IoRecord
from stackprobe.schema.results import StepResult
from stackprobe.schema.storage_soak_records import StorageSoakRecord
from stackprobe.spec.fields import Counts, Size, Sizes
from stackprobe.spec.steps import MeasuredSpec
from stackprobe.tables.rows import record_rows
from stackprobe.tables.storage_soak import soak_tables
from stackprobe.tables.sweeps import SweepSeries, mode_series
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns, parse_size


class RadosBenchStep(MeasuredSpec):
    """`rados bench`: a write that leaves its objects, then seq and rand reads of them."""

    kind: Literal["rados_bench"]
    block_size: Sizes = Size.of("4M")
    threads: Counts = 16
    seconds: float = Field(default=10.0, gt=0)
    modes: list[Literal["write", "seq", "rand"]] = Field(
        default_factory=lambda: ["write", "seq", "rand"], min_length=1
    )
    soak: RadosSoakSpec | None = None  # hours of rand reads over one object set (rados_soak.py)

    @model_validator(mode="after")
    def _soak(self):
        problem = soak_problem(self)
        if problem:
            raise ValueError(problem)
        return self


FILL_FRACTION = 0.5  # of the pool's max_avail a write may use


def run_name(ctx: StepContext) -> str:
    assert ctx.ceph is not None
    return f"{ctx.ceph.run_tag}-{ctx.step.name}"


class RadosBenchRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None, "rados bench needs the run's Ceph session"
        spec: RadosBenchStep = ctx.step.spec
        reads = [m for m in spec.modes if m != "write"]
        modes = ["write", *reads]  # reads need the objects a write leaves
        records, warnings = [], []
        bs = spec.block_size.bytes
        max_objects = self._max_objects(ctx, bs)
        if ctx.fleet is not None:
            return run_fleet(ctx, modes, max_objects)
        if spec.soak is not None:
            return run_rados_soak(ctx, ["rados", *ctx.ceph.target.cli(), "-p", ctx.ceph.pool,
                                        "bench"], run_name(ctx), objects_for(spec, max_objects))
        base = ["rados", *ctx.ceph.target.cli(), "-p", ctx.ceph.pool, "bench",
                str(max(1, round(spec.seconds)))]
        for groupid, mode in enumerate(modes):
            argv = base + [mode, "-t", str(spec.threads), "--run-name", run_name(ctx),
                           "--format", "json"]
            if mode == "write":
                argv += ["-b", str(bs), "--no-cleanup"]
                if max_objects is not None:
                    argv += ["--max-objects", str(max_objects)]
            feeder = RadosLive(ctx.host, "write" if mode == "write" else "read", bs)
            result = ctx.execute(f"rados-bench-{mode}", argv,
                                 on_stdout=stdout_reader(ctx.live, feeder))
            if result.interrupted:
                return StepOutcome.stopped(records, warnings)
            if not result.ok:
                return StepOutcome("failed", records, failure_message(result, "rados"), warnings)
            try:
                rec = parse_rados_bench(result.stdout, mode)
            except ValueError as exc:
                return StepOutcome("failed", records, f"rados bench {mode}: {exc}", warnings)
            if mode == "write" and max_objects is not None and rec.write.total_ios == max_objects:
                warnings.append(f"write stopped at {max_objects} objects (half of the pool's "
                                f"free space) before its {spec.seconds:g} s")
            rec.groupid = groupid  # the modes ran one after another: never add them up
            rec.host = ctx.transport.host
            if mode == "write" and "write" not in spec.modes:
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
        if ctx.fleet is not None:
            return cleanup_fleet(ctx)
        ctx.execute("rados-cleanup", ["rados", *ctx.ceph.target.cli_bounded(), "-p",
                                      ctx.ceph.pool, "cleanup", "--run-name", run_name(ctx)])


MODES = ("write", "seq", "rand")


def rados_matrix(steps: Sequence[StepResult]) -> TextTable:
    """Block size x concurrency rows (seed 001), write / seq / rand columns."""
    headers = ["Block size", "Threads"]
    for m in MODES:
        headers += [f"{m} bandwidth", f"{m} IOPS", f"{m} mean lat"]
    table = TextTable("rados bench: block size x concurrency", headers, layer="cluster")
    for step in steps:
        if not step.records:
            continue
        by_mode = {}
        for r in step.records:
            if isinstance(r, IoRecord):
                mode = r.workload.get("mode") or r.job.split()[0]
                by_mode[mode] = r.write if mode == "write" else r.read
        row = [str(step.params.get("block_size")), str(step.params.get("threads"))]
        for m in MODES:
            s = by_mode.get(m)
            row += ([fmt_bw(s.bw_bytes), fmt_iops(s.iops), fmt_ns(s.lat_ns.get("mean"))]
                    if s is not None else ["-", "-", "-"])
        table.rows.append(row)
    table.rows.sort(key=lambda r: (parse_size(r[0]), int(r[1])))
    return table


class RadosBench(SoakMonitoring, Kind):
    name = "rados_bench"
    spec = RadosBenchStep
    layer = "cluster"
    family = "ceph"
    hosts = HostMode.FLEET
    sweeps = ("block_size", "threads")
    tools = (CEPH, RADOS)
    records = (IoRecord, StorageSoakRecord)
    concurrency = ("threads",)
    duration_fields = ("seconds", "soak")
    verdict_fields = ("modes",)  # each mode is a row of its own

    def title(self, spec: RadosBenchStep, name):
        return f"rados bench {spec.block_size}, {spec.threads} threads"

    def headline(self, spec):
        return "bw"

    def estimate_s(self, spec: RadosBenchStep, hosts):
        if spec.soak is not None:  # the object set's write at ~100 MB/s, then the reads
            chunks = len(spec.soak.lengths())
            return (spec.soak.size.bytes / 100e6 + spec.soak.duration.seconds
                    + (chunks + 2) * CEPH_CLI_S)
        runs = len(set(spec.modes) | {"write"})  # reads need the objects a write leaves
        return runs * (spec.seconds + CEPH_CLI_S) + CEPH_CLI_S  # + cleanup

    def ceph(self, spec):
        return CephNeeds()

    def needs(self, spec):
        return ("rados",)

    def controller_needs(self, spec):
        return ("ceph", "rados")  # the run's pool, and cleanup of every client's objects

    def workload_text(self, params):
        soak = params.get("soak")
        if soak:
            return (f"{params['block_size']} objects, {params['threads']} threads, rand reads "
                    f"of {soak.get('size', '1G')} for {soak['duration']}")
        return (f"{params['block_size']} objects, {params['threads']} threads, "
                f"{params['seconds']:g} s")

    def runner(self):
        return RadosBenchRunner()

    def rows(self, step):
        """A row per mode, named by its mode even when the step ran one: a write-only step
        (or an ingested rados bench write) pairs in `compare` with the write row of a step
        that ran write, seq and rand. A step from several clients names its rows by
        client, as every fleet step does."""
        if step.hosts:
            return super().rows(step)
        return record_rows(step, self.workload_text(step.params),
                           io_label=lambda group: f"{step.title}: {group.label}")

    def tables(self, steps):
        table = rados_matrix(steps)
        return ([table] if table.rows else []) + soak_tables(steps)

    def sweep_series(self, steps, others) -> list[SweepSeries]:
        return [mode_series(steps, others, "rados bench", mode, self.concurrency)
                for mode in MODES]

    def cluster_io(self, step):
        return ClusterIo.from_params(step.params, "block_size", label_by_job=True)


KIND = RadosBench()
