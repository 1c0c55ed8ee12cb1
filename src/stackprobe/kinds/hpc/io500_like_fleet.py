"""The io500-like phases from every client host at once (an `io500_like` step with `hosts:`).

IO500 is run from many client nodes on one shared file system; so is this. All clients
work in ONE directory that each of them sees — the run's CephFS mounted by each client
(`target: cephfs`, kinds/ceph/clients.py) or a mount the hosts already share
(`directory:`, e.g. Lustre or NFS) — and each phase is one `fio --client=...` run over all
of them (fio's client/server mode, as metadata fleets: every client is in the same phase
at the same time). What is shared is shared as IO500 shares it: ior-hard's one file
interleaves every process of every client (io500_like_jobs.Client), mdtest-hard's one
directory holds every client's files; ior-easy files and mdtest-easy directories carry the
client's name. The shared file is made at its full size first, so no client's fio extends
(and truncates) it under another's writes.

A phase's figure is counted the way IOR and mdtest count it: all clients' bytes (or
operations) over the longest client's time, never the sum of each client's own rate.
find walks the whole tree once, from the first client.
"""

from __future__ import annotations

from stackprobe.kinds.context import (
    StepContext,
    StepOutcome,
    failure_message,
    start_servers,
    stop_started,
)
from stackprobe.kinds.fio.fio_fleet import (
    FIO_SERVER_PORT,
    merge_clients,
    missing_clients,
    run_clients,
)
from stackprobe.kinds.fio.fio_job import metadata_dirs
from stackprobe.kinds.fio.metadata_fleet import merge_phase
from stackprobe.kinds.fio.metadata_jobs import ops_record
from stackprobe.kinds.hpc.io500_like_jobs import (
    DIRS,
    HARD_TRANSFER,
    PHASES,
    Client,
    find_argv,
    phase_job,
)
from stackprobe.schema.records import IoRecord, OpsRecord
from stackprobe.transport.base import CommandResult
from stackprobe.transport.fleet import HostHandle

GIB = 1024**3


class Io500LikeFleet:
    """prepare / phase / find / cleanup of an io500-like step on client hosts."""

    def prepare(self, ctx: StepContext) -> None:
        assert ctx.fleet is not None
        spec = ctx.step.spec
        handles = ctx.fleet.select(ctx.step.hosts)
        if spec.target == "cephfs":  # every client's own mount first (all at once)
            assert ctx.ceph is not None
            ctx.fleet.each(lambda h: ctx.ceph.clients.cephfs_dir(ctx.ceph.clients.of(h),
                                                                 ctx.execute), list(ctx.step.hosts))
        first = handles[0]
        work = self.work(ctx, first)
        shared = [*DIRS.values(), f"{DIRS['mdtest-hard']}/hard"]
        ctx.execute("mkdir", ["mkdir", "-p", "--", *(f"{work}/{d}" for d in shared)],
                    on=first.transport)
        procs = len(handles) * spec.numjobs
        ctx.execute("ior-hard-file", ["truncate", "-s", str(spec.hard_transfers * procs
                                                             * HARD_TRANSFER),
                                      f"{work}/{DIRS['ior-hard']}/file"], on=first.transport)
        for i, h in enumerate(handles):
            mine = Client(f"{h.name}.", i * spec.numjobs, procs, f"@{h.name}")
            own = [f"{DIRS['mdtest-easy']}/{d}"
                   for d in metadata_dirs("easy", spec.numjobs, mine.owner)]
            ctx.execute(f"{h.name}-mkdir", ["mkdir", "-p", "--", *(f"{self.work(ctx, h)}/{d}"
                                                                  for d in own)], on=h.transport)
            for phase, _ in PHASES:
                if phase != "find":
                    (ctx.step_dir / f"{phase}-{h.name}.fio").write_text(
                        phase_job(phase, spec, self.work(ctx, h), mine), encoding="utf-8")

    def start(self, ctx: StepContext) -> str | None:
        """fio's server on every client, kept for the phases; why not, in one line."""
        return start_servers(ctx, "fio", FIO_SERVER_PORT, lambda h: [
            "fio", f"--server=ip:{h.host.address},{FIO_SERVER_PORT}"])

    def phase(self, ctx: StepContext, phase: str, kind: str,
              ) -> tuple[StepOutcome, tuple[float, int, float | None] | None]:
        """One phase on all clients: (outcome with each client's record and the merged one,
        (figure in IO500 units, operations, seconds) or None when it did not complete)."""
        assert ctx.fleet is not None
        handles = ctx.fleet.select(ctx.step.hosts)
        names = [h.name for h in handles]
        result, own = run_clients(ctx, f"fio-{phase}", handles,
                                  lambda h: ctx.step_dir / f"{phase}-{h.name}.fio")
        records: list = ([_named(ops_record(r, 0, phase.split("-")[1]), phase) for r in own]
                         if kind == "md" else own)
        if result.interrupted:
            return StepOutcome.stopped(records), None
        if not result.ok:
            return StepOutcome("failed", records, failure_message(result, "fio")), None
        problem = missing_clients(names, records) or next(
            (f"fio on {r.host} failed with err={r.error}" for r in own if r.error), None)
        if problem:
            return StepOutcome("failed", records, problem), None
        merged = (_named(merge_phase(records, phase), phase) if kind == "md"
                  else merge_clients(records, f"{phase} ({len(records)} clients)"))
        return StepOutcome("ok", [*records, merged]), _figure(phase, records)

    def find(self, ctx: StepContext, timestamp: str) -> CommandResult:
        """find over the whole shared tree, from the first client."""
        assert ctx.fleet is not None
        first = ctx.fleet.select(ctx.step.hosts)[0]
        work = self.work(ctx, first)
        procs = len(ctx.step.hosts) * ctx.step.spec.numjobs
        return ctx.execute("find", find_argv(work, procs, f"{work}/{timestamp}"),
                           on=first.transport)

    def touch(self, ctx: StepContext, name: str) -> None:
        assert ctx.fleet is not None
        first = ctx.fleet.select(ctx.step.hosts)[0]
        ctx.execute("timestamp", ["touch", "--", f"{self.work(ctx, first)}/{name}"],
                    on=first.transport)

    def cleanup(self, ctx: StepContext) -> None:
        """The servers stopped by PID; the shared directory removed once, by the first
        client (several hosts removing one tree at once trip over each other)."""
        problems = stop_started(ctx)
        if ctx.fleet is not None:
            first = ctx.fleet.select(ctx.step.hosts)[0]
            ctx.execute("cleanup", ["rm", "-rf", "--", self.work(ctx, first)], on=first.transport)
        if problems:
            raise RuntimeError("; ".join(problems))

    @staticmethod
    def work(ctx: StepContext, h: HostHandle) -> str:
        """The clients' one directory, as `h` sees it: in the run's CephFS through its own
        mount, or below the shared `directory`."""
        spec = ctx.step.spec
        if spec.target == "cephfs":
            assert ctx.ceph is not None
            mount = ctx.ceph.clients.of(h).mount_dir
            return f"{mount}/{ctx.ceph.run_tag}/{ctx.step.id}"
        return f"{spec.directory.rstrip('/')}/stackprobe-{ctx.run_dir.run_id}-{ctx.step.id}"


def _named(rec: OpsRecord, phase: str) -> OpsRecord:
    rec.operation, rec.files_per_job = phase, None
    return rec


def _figure(phase: str, records: list) -> tuple[float, int, float | None]:
    """(figure, operations, seconds): every client's work over the longest client's time."""
    if isinstance(records[0], OpsRecord):
        ops = sum(r.total_ops or 0 for r in records)
        seconds = max((r.runtime_ms or 0.0) for r in records) / 1000
        return (ops / seconds / 1000 if seconds else 0.0), ops, seconds or None
    stats = [r.write if phase.endswith("write") else r.read for r in records
             if isinstance(r, IoRecord)]
    done = sum(s.io_bytes or 0 for s in stats)
    seconds = max((s.runtime_ms or 0.0) for s in stats) / 1000
    return (done / seconds / GIB if seconds else 0.0), sum(s.total_ios or 0 for s in stats), \
        seconds or None
