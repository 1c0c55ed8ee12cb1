"""The rbd bench runner: librbd's own load generator on the run's (filled) image."""

from __future__ import annotations

from stackprobe.parsers.ceph.rbd_bench import parse_rbd_bench
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.units import parse_size


def rbd_bench_argv(cli: list[str], image: str, p: dict) -> list[str]:
    argv = ["rbd", *cli, "bench", "--io-type", p["io_type"],
            "--io-size", str(parse_size(p["io_size"])), "--io-threads", str(p["io_threads"]),
            "--io-total", str(parse_size(p["io_total"])), "--io-pattern", p["io_pattern"]]
    if p["io_type"] == "readwrite":
        argv += ["--rw-mix-read", str(p["rw_mix_read"])]
    return argv + [image]


class RbdBenchRunner:
    kind = "rbd_bench"

    def prepare(self, ctx: StepContext) -> None:
        assert ctx.ceph is not None, "rbd bench needs the run's Ceph session"
        ctx.ceph.rbd_image(ctx.execute)

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None and ctx.ceph.image is not None
        argv = rbd_bench_argv(ctx.ceph.target.cli(), ctx.ceph.image, ctx.step.params)
        result = ctx.execute("rbd-bench", argv)
        if result.interrupted:
            return StepOutcome("interrupted", [], "stopped by the user")
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
