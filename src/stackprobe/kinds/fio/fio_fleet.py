"""A fio step driven from all its hosts at once, with fio's own client/server mode.

Each host runs `fio --server` bound to its address (started over SSH, its PID kept, stopped
after the step whatever happened); this machine runs one `fio --client=HOST job-HOST.fio ...`
with a job file per client. One job file per `--client` matters: given several clients
and a single job file at the end, fio 3.33 runs only the last client and still exits 0 —
so the step also checks that every host reported, and fails naming the ones that did not.

Each client's job is named `<step>@<host>`, which tells whose result is whose even when
hosts share a hostname. The clients' latency histograms (json+) are summed bin by bin into
one record for the whole fleet (host "all clients"): exact fleet percentiles, not an
average of percentiles. fio's own "All clients" aggregate has summed rates and merged means
but no percentiles at all (fio 3.33); its figures are kept beside ours as a cross-check.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from stackprobe.analysis.histogram import merge_bins, percentiles
from stackprobe.analysis.io_summary import weighted_mean
from stackprobe.kinds.context import (
    StepContext,
    StepOutcome,
    failure_message,
    start_servers,
    stop_started,
)
from stackprobe.kinds.fio.fio_job import build_job
from stackprobe.parsers.fio.fio_json import FioJsonError, parse_fio_json
from stackprobe.schema.records import IoRecord, IoStats
from stackprobe.schema.sentinels import FIO_ALL_CLIENTS, FIO_ALL_KEPT, FLEET_HOST
from stackprobe.transport.base import CommandResult
from stackprobe.transport.fleet import HostHandle

FIO_SERVER_PORT = 8765
_DIRECTIONS = ("read", "write", "trim")


def client_args(clients: list[tuple[str, Path]], port: int = FIO_SERVER_PORT) -> list[str]:
    """`--client=ip:ADDR,PORT JOBFILE` for each client: each with its own job file."""
    out = []
    for address, job in clients:
        out += [f"--client=ip:{address},{port}", str(job)]
    return out


def job_name(step_name: str, host: str) -> str:
    return f"{step_name}@{host}"


def run_clients(ctx: StepContext, label: str, handles: list[HostHandle],
                job_of: Callable[[HostHandle], Path]) -> tuple[CommandResult, list[IoRecord]]:
    """One `fio --client=...` run over `handles`, each with its job file job_of(host): the
    command's result and each client's record named by its host (fio's own All clients
    aggregate left out; none when fio printed no result)."""
    argv = ["fio", "--output-format=json",
            *client_args([(h.host.address, job_of(h)) for h in handles])]
    result = ctx.execute(label, argv)
    try:
        own = [r for r in parse_fio_json(result.stdout) if r.host != FIO_ALL_CLIENTS]
    except FioJsonError:
        own = []
    names = [h.name for h in handles]
    for rec in own:
        rec.host = host_of_job(rec.job, names) or rec.host
    return result, own


def host_of_job(job: str, hosts: list[str]) -> str | None:
    name, sep, host = job.rpartition("@")
    return host if sep and host in hosts else None


def missing_clients(names: list[str], records: list) -> str | None:
    """'fio ran on 1 of 3 clients; no result from h1, h2', or None when all reported
    (fio exits 0 when it silently ran fewer clients than given)."""
    missing = [n for n in names if n not in {r.host for r in records}]
    if not missing:
        return None
    return (f"fio ran on {len(names) - len(missing)} of {len(names)} clients; "
            f"no result from {', '.join(missing)}")


def merge_clients(records: list[IoRecord], label: str) -> IoRecord:
    """One record for the fleet: rates summed, means weighted by I/O count, percentiles
    from the summed histograms (exact; none unless every client had a histogram)."""
    merged = IoRecord(job=label, host=FLEET_HOST, tool_version=records[0].tool_version,
                      source_format="merged", jobs=sum(r.jobs or 1 for r in records),
                      workload=dict(records[0].workload))
    for d in _DIRECTIONS:
        stats = [s for r in records if (s := getattr(r, d)) is not None and s.active]
        if not stats:
            continue
        out = IoStats(iops=sum(s.iops for s in stats), bw_bytes=sum(s.bw_bytes for s in stats),
                      io_bytes=sum(s.io_bytes or 0 for s in stats),
                      total_ios=sum(s.total_ios or 0 for s in stats),
                      runtime_ms=max((s.runtime_ms or 0) for s in stats))
        for field in ("clat", "lat"):
            bins = [getattr(s, f"{field}_bins") for s in stats]
            figures: dict[str, float] = {}
            if all(bins):
                figures.update(percentiles(merge_bins(bins)))
                setattr(out, f"{field}_bins", merge_bins(bins))
            mean = weighted_mean(stats, f"{field}_ns")
            if mean is not None:
                figures["mean"] = mean
            setattr(out, f"{field}_ns", figures)
        setattr(merged, d, out)
    return merged


class FioFleet:
    """prepare / run / cleanup of a fio step on hosts (called by the fio runner)."""

    def __init__(self) -> None:
        self._no_direct: dict[str, list[str]] = {}  # step id -> hosts without O_DIRECT

    def prepare(self, ctx: StepContext) -> None:
        assert ctx.fleet is not None
        handles = ctx.fleet.select(ctx.step.hosts)

        def ready(h: HostHandle) -> bool:
            work = self._work(ctx, h)
            ctx.execute(f"{h.name}-mkdir", ["mkdir", "-p", "--", work], on=h.transport)
            probe = ctx.execute(f"{h.name}-direct-probe",
                                ["dd", "if=/dev/zero", f"of={work}/.direct-probe", "bs=4096",
                                 "count=1", "oflag=direct"], on=h.transport)
            ctx.execute(f"{h.name}-direct-probe-rm", ["rm", "-f", "--", f"{work}/.direct-probe"],
                        on=h.transport)
            return probe.ok

        direct = ctx.fleet.each(ready, [h.name for h in handles])
        for h in handles:
            (ctx.step_dir / f"job-{h.name}.fio").write_text(
                self._job(ctx, h, direct[h.name]), encoding="utf-8")
        self._no_direct[ctx.step.id] = [n for n, ok in direct.items() if not ok]

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.fleet is not None
        handles = ctx.fleet.select(ctx.step.hosts)
        warnings = [f"{n}: O_DIRECT not supported in its directory: ran buffered"
                    for n in self._no_direct.get(ctx.step.id, [])
                    if ctx.step.spec.direct]
        problem = start_servers(ctx, "fio", FIO_SERVER_PORT, lambda h: [
            "fio", f"--server=ip:{h.host.address},{FIO_SERVER_PORT}"])
        if problem:
            return StepOutcome("failed", error=problem, warnings=warnings)
        argv = ["fio", "--output-format=json+", *client_args(
            [(h.host.address, ctx.step_dir / f"job-{h.name}.fio") for h in handles])]
        result = ctx.execute("fio", argv)
        try:
            parsed = parse_fio_json(result.stdout)
        except FioJsonError:
            parsed = []
        names = [h.name for h in handles]
        by_address = {h.host.address: h.name for h in handles}  # fio names clients so
        clients, fio_all = [], None
        for rec in parsed:
            if rec.host == FIO_ALL_CLIENTS:
                fio_all = rec
                rec.host = FIO_ALL_KEPT
                continue
            rec.host = host_of_job(rec.job, names) or by_address.get(rec.host or "", rec.host)
            clients.append(rec)
        if result.interrupted:
            return StepOutcome.stopped(clients, warnings)
        if not result.ok:
            return StepOutcome("failed", clients, failure_message(result, "fio"), warnings)
        missing = missing_clients(names, clients)
        if missing:
            return StepOutcome("failed", clients, missing, warnings)
        failed = [r for r in clients if r.error]
        if failed:
            return StepOutcome("failed", clients, f"fio: job {failed[0].job} failed with "
                               f"err={failed[0].error}", warnings)
        merged = merge_clients(clients, f"{ctx.step.name} ({len(clients)} clients)")
        findings = {"fleet": _compare(merged, fio_all, names)}
        return StepOutcome("ok", [*clients, merged], None, warnings, findings=findings)

    def cleanup(self, ctx: StepContext) -> None:
        stop_and_remove(ctx, lambda h: self._work(ctx, h))

    # ---------------------------------------------------------------- parts
    @staticmethod
    def _work(ctx: StepContext, h: HostHandle) -> str:
        return f"{h.scratch}/{ctx.step.id}"

    def _job(self, ctx: StepContext, h: HostHandle, direct_ok: bool) -> str:
        spec = ctx.step.spec
        work = self._work(ctx, h)
        if spec.job_file is not None:  # the user's file, its ${STACKPROBE_DIR} made this host's
            return Path(spec.job_file).read_text(encoding="utf-8").replace(
                "${STACKPROBE_DIR}", work)
        return build_job(job_name(ctx.step.name, h.name), spec, directory=work,
                         direct_io=direct_ok)


def stop_and_remove(ctx: StepContext, work: Callable[[HostHandle], str]) -> None:
    """A fleet step's cleanup: the servers it started stopped by PID, then each host's
    `work(host)` directory removed — also when stopping failed, which is raised after."""
    problems = stop_started(ctx)
    if ctx.fleet is not None:
        ctx.fleet.each(lambda h: ctx.execute(f"{h.name}-cleanup", ["rm", "-rf", "--", work(h)],
                                             on=h.transport), ctx.step.hosts)
    if problems:
        raise RuntimeError("; ".join(problems))


def _compare(merged: IoRecord, fio_all: IoRecord | None, names: list[str]) -> dict:
    """The fleet's merged figures beside fio's own All clients aggregate (which has rates
    and means but no percentiles: fio does not merge the clients' histograms)."""
    out: dict = {"clients": names, "merged": {}, "fio_all_clients": {}}
    for d in _DIRECTIONS:
        m = getattr(merged, d)
        if m is None or not m.active:
            continue
        out["merged"][d] = _figures(m)
        f = getattr(fio_all, d) if fio_all is not None else None
        if f is not None and f.active:
            out["fio_all_clients"][d] = _figures(f)
    return out


def _figures(s: IoStats) -> dict:
    return {"iops": s.iops, "bw_bytes": s.bw_bytes, "lat_mean_ns": s.lat_ns.get("mean"),
            "clat_mean_ns": s.clat_ns.get("mean"), "clat_p99_ns": s.clat_ns.get("p99"),
            "lat_p99_ns": s.lat_ns.get("p99")}
