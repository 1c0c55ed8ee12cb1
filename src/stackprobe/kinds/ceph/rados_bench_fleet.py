"""`rados bench` from every client host at once (a `rados_bench` step with `hosts:`).

Each client writes under a run name of its own (`<run tag>-<step>-<host>`), so its seq and
rand reads read exactly its own objects and cleanup removes exactly them; each mode starts
on all clients together (kinds/ceph/fleet.py). The write's object cap (half of what the pool
can still take) is shared among the clients. Records: each client's per mode, and the
all-clients one over the window every client ran in, latency the I/O-weighted mean and its
max the clients' max.
"""

from __future__ import annotations

from stackprobe.kinds.ceph.clients import CephClient
from stackprobe.kinds.ceph.fleet import Phase, all_clients, findings_of, parsed, run_together
from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench


def client_run_name(ctx: StepContext, host: str) -> str:
    assert ctx.ceph is not None
    return f"{ctx.ceph.run_tag}-{ctx.step.name}-{host}"


def run_fleet(ctx: StepContext, modes: list[str], max_objects: int | None) -> StepOutcome:
    assert ctx.ceph is not None and ctx.fleet is not None
    spec = ctx.step.spec
    n = len(ctx.step.hosts)
    per_client = None if max_objects is None else max(1, max_objects // n)
    records, warnings, phases = [], [], {}

    for groupid, mode in enumerate(modes):
        def argv(c: CephClient, mode=mode) -> list[str]:
            out = ["rados", *c.cli(), "-p", ctx.ceph.pool, "bench", str(max(1, round(spec.seconds))),
                   mode, "-t", str(spec.threads), "--run-name", client_run_name(ctx, c.name),
                   "--format", "json"]
            if mode == "write":
                out += ["-b", str(spec.block_size.bytes), "--no-cleanup"]
                if per_client is not None:
                    out += ["--max-objects", str(per_client)]
            return out

        results = run_together(ctx, f"rados-bench-{mode}", argv)
        clients, failed = parsed(results, lambda _, out, mode=mode: parse_rados_bench(out, mode),
                                 "rados", f"rados bench {mode}")
        for rec, _ in clients:
            rec.groupid = groupid
            if mode == "write" and "write" not in spec.modes:
                rec.job = "write (objects for the reads)"
        if any(r.result.interrupted for r in results.values()):
            records += [rec for rec, _ in clients]
            return StepOutcome.stopped(records, warnings)
        if failed:
            records += [rec for rec, _ in clients]
            return StepOutcome("failed", records, "; ".join(failed), warnings)
        direction = "write" if mode == "write" else "read"
        phase: Phase = all_clients((direction,), f"rados bench {mode}", clients, groupid)
        phase.records[-1].workload["mode"] = mode
        records += phase.records
        warnings += phase.warnings
        phases[mode] = phase
    return StepOutcome("ok", records, None, warnings, findings=findings_of(phases))


def cleanup_fleet(ctx: StepContext) -> None:
    """Every client's objects, by its run name, with the run's own user."""
    assert ctx.ceph is not None
    for host in ctx.step.hosts:
        ctx.execute(f"rados-cleanup-{host}",
                    ["rados", *ctx.ceph.target.cli_bounded(), "-p", ctx.ceph.pool, "cleanup",
                     "--run-name", client_run_name(ctx, host)])
