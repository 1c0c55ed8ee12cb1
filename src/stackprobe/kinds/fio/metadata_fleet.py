"""A metadata step driven from all its hosts at once (fio client/server, like fio fleets).

Each phase (create, stat, ...) is one `fio --client=...` run over every client, so the
clients are in the same phase at the same time — a create rate measured while another
client is already deleting would mean nothing. The fio servers stay up across the phases.

Where the files go: with the step's `directory` (a mount every host sees) all clients work
in one `stackprobe-<run>-<step>` directory below it — 'hard' is then a single directory for
the whole fleet, the case that loads a metadata server most; 'easy' gives each process of
each client its own directory. Without it, each host uses its own scratch directory. With
`target: cephfs` each client mounts the run's CephFS itself (kinds/ceph/clients.py) and all
clients work in one `stackprobe-<run>/<step>` directory there, each through its own mount.
Each phase gives one record per client and one summed record ('all clients').
"""

from __future__ import annotations

from stackprobe.kinds.context import (
    StepContext,
    StepOutcome,
    failure_message,
    start_servers,
)
from stackprobe.kinds.fio.fio_fleet import (
    FIO_SERVER_PORT,
    missing_clients,
    run_clients,
    stop_and_remove,
)
from stackprobe.kinds.fio.fio_job import metadata_dirs
from stackprobe.kinds.fio.metadata_jobs import job_text, ops_record
from stackprobe.schema.records import OpsRecord
from stackprobe.schema.sentinels import FLEET_HOST
from stackprobe.transport.fleet import HostHandle


def merge_phase(records: list[OpsRecord], operation: str) -> OpsRecord:
    """The fleet's figure for one phase: rates and counts summed, latency means weighted by
    operation count (no percentiles: fio's file engines give none to merge)."""
    ops = sum(r.total_ops or 0 for r in records)
    mean = None
    if ops and all("mean" in r.lat_ns for r in records):
        mean = sum(r.lat_ns["mean"] * (r.total_ops or 0) for r in records) / ops
    first = records[0]
    return OpsRecord(
        tool=first.tool, tool_version=first.tool_version, operation=operation,
        ops_per_s=sum(r.ops_per_s for r in records), total_ops=ops,
        runtime_ms=max((r.runtime_ms or 0.0) for r in records),
        jobs=sum(r.jobs or 1 for r in records), files_per_job=first.files_per_job,
        layout=first.layout, lat_ns={"mean": mean} if mean is not None else {},
        host=FLEET_HOST)


class MetadataFleet:
    """prepare / run / cleanup of a metadata step on hosts (called by the metadata runner)."""

    def prepare(self, ctx: StepContext) -> None:
        assert ctx.fleet is not None
        handles = ctx.fleet.select(ctx.step.hosts)
        spec = ctx.step.spec
        if spec.target == "cephfs":  # every client's own mount first (all at once)
            assert ctx.ceph is not None
            ctx.fleet.each(lambda h: ctx.ceph.clients.cephfs_dir(ctx.ceph.clients.of(h),
                                                                 ctx.execute), list(ctx.step.hosts))
        for h in handles:
            work = self.work(ctx, h)
            dirs = metadata_dirs(spec.layout, spec.numjobs, f"{h.name}.")
            ctx.execute(f"{h.name}-mkdir", ["mkdir", "-p", "--", *(f"{work}/{d}" for d in dirs)],
                        on=h.transport)
        for op in spec.operations:
            for h in handles:
                (ctx.step_dir / f"{op}-{h.name}.fio").write_text(job_text(
                    ctx.step.name, spec, self.work(ctx, h), owner=f"{h.name}.",
                    suffix=f"@{h.name}", operations=[op]), encoding="utf-8")

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.fleet is not None
        handles = ctx.fleet.select(ctx.step.hosts)
        names = [h.name for h in handles]
        problem = start_servers(ctx, "fio", FIO_SERVER_PORT, lambda h: [
            "fio", f"--server=ip:{h.host.address},{FIO_SERVER_PORT}"])
        if problem:
            return StepOutcome("failed", error=problem)
        spec = ctx.step.spec
        records: list[OpsRecord] = []
        for op in spec.operations:
            result, own = run_clients(ctx, f"fio-{op}", handles,
                                      lambda h, op=op: ctx.step_dir / f"{op}-{h.name}.fio")
            phase = [ops_record(rec, spec.files, spec.layout) for rec in own]
            records += phase
            if result.interrupted:
                return StepOutcome.stopped(records)
            if not result.ok:
                return StepOutcome("failed", records, failure_message(result, "fio"))
            missing = missing_clients(names, phase)
            if missing:
                return StepOutcome("failed", records, f"{op}: {missing}")
            failed = [r for r in phase if r.error]
            if failed:
                return StepOutcome("failed", records, f"{op}: fio on {failed[0].host} "
                                   f"failed with err={failed[0].error}")
            records.append(merge_phase(phase, op))
        return StepOutcome("ok", records)

    def cleanup(self, ctx: StepContext) -> None:
        stop_and_remove(ctx, lambda h: self.work(ctx, h))

    @staticmethod
    def work(ctx: StepContext, h: HostHandle) -> str:
        """The clients' directory: one below the shared `directory` or in the CephFS,
        else per host."""
        if ctx.step.spec.target == "cephfs":
            assert ctx.ceph is not None
            mount = ctx.ceph.clients.of(h).mount_dir
            if mount is not None:  # (None: it never mounted; nothing of it to remove there)
                return f"{mount}/{ctx.ceph.run_tag}/{ctx.step.id}"
        shared = ctx.step.spec.directory
        if shared:
            return f"{shared.rstrip('/')}/stackprobe-{ctx.run_dir.run_id}-{ctx.step.id}"
        return f"{h.scratch}/{ctx.step.id}"
