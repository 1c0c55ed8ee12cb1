"""`rbd bench` from every client host at once (an `rbd_bench` step with `hosts:`).

Each client benches its own image (`<run tag>-<host>-img`, created by the run's user and
filled by the client: kinds/ceph/clients.py), all started together (kinds/ceph/fleet.py).
rbd bench runs until it has moved `io_total`, so clients end at different times: the
all-clients figures are taken over the window in which all of them were still running,
from rbd bench's per-second lines (which carry no latency: rbd bench prints none).
"""

from __future__ import annotations

from stackprobe.kinds.ceph.fleet import all_clients, findings_of, parsed, run_together
from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.parsers.ceph.rbd_bench import parse_rbd_bench


def prepare_fleet(ctx: StepContext) -> None:
    """Every client's image, made and filled on all clients at once."""
    assert ctx.ceph is not None and ctx.fleet is not None
    size = ctx.ceph.image_bytes
    ctx.fleet.each(lambda h: ctx.ceph.clients.image(ctx.ceph.clients.of(h), size, ctx.execute),
                   list(ctx.step.hosts))


def run_fleet(ctx: StepContext, argv_of) -> StepOutcome:
    """argv_of(cli, image) is the single-client command line for one client's image."""
    spec = ctx.step.spec
    results = run_together(ctx, "rbd-bench", lambda c: argv_of(c.cli(), c.image))
    clients, failed = parsed(results, lambda _, out: parse_rbd_bench(out), "rbd", "rbd bench")
    records = [rec for rec, _ in clients]
    if any(r.result.interrupted for r in results.values()):
        return StepOutcome.stopped(records)
    if failed:
        return StepOutcome("failed", records, "; ".join(failed))
    directions = {"read": ("read",), "write": ("write",)}.get(spec.io_type, ("read", "write"))
    phase = all_clients(directions, f"rbd bench {spec.io_type}", clients, None)
    return StepOutcome("ok", phase.records, None, phase.warnings,
                       findings=findings_of({spec.io_type: phase}))
