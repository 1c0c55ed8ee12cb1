"""fio on RBD or CephFS from every client host at once (`target: rbd|cephfs` with `hosts:`).

Unlike a fleet on local disks (fio_fleet.py: fio's client/server mode), each client runs
fio on its own, started at one agreed time (kinds/ceph/fleet.py), because fio's client mode
says nothing of when each client started — and the all-clients figures must be taken over
the window in which every client ran. Each client:

- works on its own image (`target: rbd`, librbd through fio's rbd engine with its own cephx
  user; the image made by the run's user and filled by the client) or in its own CephFS
  directory under a ceph-fuse mount it makes itself (`target: cephfs`), whose files are laid
  out before the start (`--create_only`), so that every client's I/O starts at the start;
- gets its job on the command line (no file to copy to the host; the job file is kept in
  the step directory as `job-<host>.fio`), writes fio's per-second logs on the host, which
  are read back after the run (kept as the commands' output).

Records: each client's (json+, its histograms), and the all-clients one: IOPS and
bandwidth over the common window from the per-second logs, latency percentiles from the
clients' histograms summed bin by bin (the whole runs: fio's logs carry no histograms).
"""

from __future__ import annotations

from stackprobe.kinds.ceph.clients import CephClient
from stackprobe.kinds.ceph.fleet import all_clients, findings_of, run_together
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.fio.fio_fleet import job_name, merge_clients
from stackprobe.kinds.fio.fio_job import build_job
from stackprobe.parsers.fio.fio_json import FioJsonError, parse_fio_json
from stackprobe.parsers.fio.fio_log import series_from_logs
from stackprobe.transport.fleet import HostHandle

LOG_NAME = "persec"


def job_args(job: str) -> list[str]:
    """A single-job file as fio command-line options: globals first, then --name=JOB."""
    args = []
    for line in job.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or line == "[global]":
            continue
        if line.startswith("[") and line.endswith("]"):
            args.append(f"--name={line[1:-1]}")
        else:
            args.append(f"--{line}")
    return args


class FioCephFleet:
    """prepare / run / cleanup of a fio step on Ceph from client hosts."""

    def __init__(self) -> None:
        self._jobs: dict[tuple[str, str], str] = {}  # (step id, host) -> job text

    @staticmethod
    def _logs(ctx: StepContext, h: HostHandle) -> str:
        return f"{h.scratch}/{ctx.step.id}"

    def prepare(self, ctx: StepContext) -> None:
        assert ctx.ceph is not None and ctx.fleet is not None
        spec = ctx.step.spec

        def ready(h: HostHandle) -> None:
            c = ctx.ceph.clients.of(h)
            logs = self._logs(ctx, h)
            ctx.execute(f"{h.name}-mkdir", ["mkdir", "-p", "--", logs], on=h.transport)
            engine, directory = None, None
            if spec.target == "rbd":
                pool, image = ctx.ceph.clients.image(c, ctx.ceph.image_bytes, ctx.execute).split("/", 1)
                engine = {"ioengine": "rbd", "clientname": c.target.client, "pool": pool,
                          "rbdname": image}
            else:
                directory = f"{ctx.ceph.clients.cephfs_dir(c, ctx.execute)}/{ctx.step.id}"
                ctx.execute(f"{h.name}-mkdir-work", ["mkdir", "-p", "--", directory],
                            on=h.transport)
            job = build_job(job_name(ctx.step.name, h.name), spec, directory=directory,
                            engine=engine, direct_io=True, log_name=f"{logs}/{LOG_NAME}")
            self._jobs[(ctx.step.id, h.name)] = job
            (ctx.step_dir / f"job-{h.name}.fio").write_text(job, encoding="utf-8")
            if directory is not None:  # lay the files out now: every client's I/O starts at T
                res = ctx.execute(f"{h.name}-fio-layout", ["fio", "--create_only=1",
                                                           *job_args(job)], on=h.transport)
                if not res.ok:
                    raise RuntimeError(f"{h.name}: fio could not lay out its files: "
                                       f"{failure_message(res, 'fio')}")

        ctx.fleet.each(ready, list(ctx.step.hosts))

    def run(self, ctx: StepContext) -> StepOutcome:
        spec = ctx.step.spec

        def argv(c: CephClient) -> list[str]:
            return ["fio", "--output-format=json+", *job_args(self._jobs[(ctx.step.id, c.name)])]

        env_of = (lambda c: c.env()) if spec.target == "rbd" else None
        results = run_together(ctx, "fio", argv, env_of=env_of)
        clients, failed, warnings = [], [], []
        for name, r in results.items():
            try:
                parsed = [rec for rec in parse_fio_json(r.result.stdout) if not rec.error]
            except FioJsonError:
                parsed = []
            if not r.result.ok or len(parsed) != 1:
                failed.append(f"{name}: {failure_message(r.result, 'fio')}")
                continue
            rec = parsed[0]
            rec.host = name
            rec.series = self._series(ctx, r.client, warnings) or None
            clients.append((rec, r.start))
        records = [rec for rec, _ in clients]
        if any(r.result.interrupted for r in results.values()):
            return StepOutcome.stopped(records, warnings)
        if failed:
            return StepOutcome("failed", records, "; ".join(failed), warnings)
        directions = tuple(d for d, _ in records[0].directions())
        phase = all_clients(directions, f"fio {spec.rw}", clients, None)
        merged, exact = phase.records[-1], merge_clients(records, merged_label(ctx, records))
        merged.job = exact.job
        for d in directions:  # latency from the summed histograms, rates from the window
            ours, hist = getattr(merged, d), getattr(exact, d)
            ours.clat_ns, ours.lat_ns = hist.clat_ns, hist.lat_ns
            ours.clat_bins, ours.lat_bins = hist.clat_bins, hist.lat_bins
        return StepOutcome("ok", phase.records, None, warnings + phase.warnings,
                           findings=findings_of({spec.rw: phase}))

    def _series(self, ctx: StepContext, c: CephClient, warnings: list[str]):
        logs = self._logs(ctx, c.handle)
        texts = {}
        for kind in ("iops", "bw"):
            res = ctx.execute(f"{c.name}-fio-log-{kind}",
                              ["sh", "-c", f'cat "$1"/{LOG_NAME}_{kind}.*.log', "sh", logs],
                              on=c.handle.transport)
            texts[kind] = res.stdout if res.ok else ""
        try:
            return series_from_logs([texts["iops"]], [texts["bw"]])
        except ValueError as exc:
            warnings.append(f"{c.name}: per-second fio logs unreadable: {exc}")
            return []

    def cleanup(self, ctx: StepContext) -> None:
        """Each host's logs and its step directory in the CephFS (the image and the mount
        belong to the run's Ceph session, removed at its end)."""
        assert ctx.fleet is not None and ctx.ceph is not None

        def clean(h: HostHandle) -> None:
            paths = [self._logs(ctx, h)]
            c = ctx.ceph.clients.of(h)
            if c.mount_dir is not None:
                paths.append(f"{c.mount_dir}/{ctx.ceph.run_tag}/{h.name}/{ctx.step.id}")
            ctx.execute(f"{h.name}-cleanup", ["rm", "-rf", "--", *paths], on=h.transport)

        ctx.fleet.each(clean, list(ctx.step.hosts))


def merged_label(ctx: StepContext, records) -> str:
    return f"{ctx.step.name} ({len(records)} clients)"
