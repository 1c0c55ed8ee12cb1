"""The `rbd_bench` kind: librbd's own load generator on the run's (filled) image; with
`hosts:` on every client host at once, each on its own image (rbd_bench_fleet.py)."""

from __future__ import annotations

from typing import Literal

from stackprobe.analysis.live_ceph import RbdLive
from stackprobe.kinds.ceph.common import CEPH, CEPH_CLI_S, CLUSTER_BYTES_PER_S, CLUSTER_IOPS, RBD
from stackprobe.kinds.ceph.rbd_bench_fleet import prepare_fleet, run_fleet
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import CephNeeds, ClusterIo, HostMode, Kind
from stackprobe.kinds.live import stdout_reader
from stackprobe.parsers.ceph.rbd_bench import parse_rbd_bench
from stackprobe.schema.records import IoRecord
from stackprobe.spec.fields import Counts, Percent, Size, Sizes
from stackprobe.spec.steps import MeasuredSpec

IoType = Literal["write", "read", "readwrite"]
IoPattern = Literal["seq", "rand"]


class RbdBenchStep(MeasuredSpec):
    """`rbd bench` on an image stackprobe creates (and fills) for the run."""

    kind: Literal["rbd_bench"]
    io_type: IoType | list[IoType] = "write"
    io_pattern: IoPattern | list[IoPattern] = "rand"
    io_size: Sizes = Size.of("4K")
    io_threads: Counts = 16
    io_total: Size = Size.of("1G")
    rw_mix_read: Percent = 70


def rbd_bench_argv(cli: list[str], image: str, spec: RbdBenchStep) -> list[str]:
    argv = ["rbd", *cli, "bench", "--io-type", spec.io_type,
            "--io-size", str(spec.io_size.bytes), "--io-threads", str(spec.io_threads),
            "--io-total", str(spec.io_total.bytes), "--io-pattern", spec.io_pattern]
    if spec.io_type == "readwrite":
        argv += ["--rw-mix-read", str(spec.rw_mix_read)]
    return argv + [image]


class RbdBenchRunner:
    def prepare(self, ctx: StepContext) -> None:
        assert ctx.ceph is not None, "rbd bench needs the run's Ceph session"
        if ctx.fleet is not None:
            return prepare_fleet(ctx)
        ctx.ceph.rbd_image(ctx.execute)

    def run(self, ctx: StepContext) -> StepOutcome:
        if ctx.fleet is not None:
            return run_fleet(ctx, lambda cli, image: rbd_bench_argv(cli, image, ctx.step.spec))
        assert ctx.ceph is not None and ctx.ceph.image is not None
        argv = rbd_bench_argv(ctx.ceph.target.cli(), ctx.ceph.image, ctx.step.spec)
        result = ctx.execute("rbd-bench", argv,
                             on_stdout=stdout_reader(ctx.live, RbdLive(ctx.host)))
        if result.interrupted:
            return StepOutcome.stopped()
        if not result.ok:
            return StepOutcome("failed", [], failure_message(result, "rbd"))
        try:
            rec = parse_rbd_bench(result.stdout)
        except ValueError as exc:
            return StepOutcome("failed", [], f"rbd bench: {exc}")
        rec.host = ctx.transport.host
        return StepOutcome("ok", [rec])

    def cleanup(self, ctx: StepContext) -> None:
        pass  # the image belongs to the run's Ceph session, removed at the end


class RbdBench(Kind):
    name = "rbd_bench"
    spec = RbdBenchStep
    layer = "cluster"
    family = "ceph"
    hosts = HostMode.FLEET
    sweeps = ("io_type", "io_pattern", "io_size", "io_threads")
    tools = (CEPH, RBD)
    records = (IoRecord,)
    concurrency = ("io_threads",)

    def title(self, spec: RbdBenchStep, name):
        return (f"rbd bench {spec.io_type} {spec.io_pattern} {spec.io_size}, "
                f"{spec.io_threads} threads")

    def headline(self, spec: RbdBenchStep):
        return "bw" if spec.io_size.bytes >= 256 * 1024 else "iops"

    def estimate_s(self, spec: RbdBenchStep, hosts):
        total, size = spec.io_total.bytes, spec.io_size.bytes
        return CEPH_CLI_S + max(total / CLUSTER_BYTES_PER_S, total / size / CLUSTER_IOPS)

    def ceph(self, spec):
        return CephNeeds(image_bytes=0)  # the configured image size

    def needs(self, spec):
        return ("rbd",)

    def controller_needs(self, spec):
        return ("ceph", "rbd")  # the run's pool; the clients' images made and removed

    def workload_text(self, params):
        text = f"{params['io_pattern']} {params['io_size']}, {params['io_threads']} threads"
        return text + f", {params['io_total']} total"

    def runner(self):
        return RbdBenchRunner()

    def cluster_io(self, step):
        return ClusterIo.from_params(step.params, "io_size")


KIND = RbdBench()
