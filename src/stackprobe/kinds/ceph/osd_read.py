"""The `osd_read` kind: each OSD's device read in place, read-only (seed 002's per-OSD dd).

`ceph tell osd.N bench` only writes, so the ladder's read rungs had no OSD term. This step
finds every OSD's device and host in `ceph osd metadata`, reaches that host (this machine
for an OSD here — the lab —, or the hosts-file entry whose name or address is the OSD's
hostname), and reads the device there with fio `--readonly --direct=1`, one OSD at a time,
bounded by `size` and `runtime`. A file-backed OSD's block file is read over its longest
allocated range (osd_read_job.py says why). The run-time target guard
(`safety.guard.check_reads`) allows exactly that read and refuses anything else. OSD data
is never written: fio refuses writes itself under `--readonly`. docs/ceph-osd-read.md.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from stackprobe.errors import UserError
from stackprobe.kinds.ceph.common import ASSUMED_OSDS, CEPH, CEPH_CLI_S
from stackprobe.kinds.ceph.osd_read_job import ReadRange, device_range, file_range, read_job
from stackprobe.kinds.ceph.osd_read_table import judged, osd_read_table
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import CephNeeds, HostMode, Kind, Tool
from stackprobe.parsers.ceph.osd_metadata import OsdDevice, parse_osd_metadata
from stackprobe.parsers.fio.fio_json import FioJsonError, parse_fio_json
from stackprobe.parsers.host.filefrag import parse_filefrag
from stackprobe.safety.guard import check_reads, resolve
from stackprobe.schema.records import IoRecord
from stackprobe.spec.fields import Duration, Size
from stackprobe.spec.steps import MeasuredSpec
from stackprobe.tables.rows import fio_workload, record_rows
from stackprobe.transport.base import Transport
from stackprobe.units import fmt_bw

FIO = Tool("fio", "fio", ("fio", "--version"), "disk/file workloads (here: OSD devices, read-only)")
FILEFRAG = Tool("filefrag", "e2fsprogs", ("filefrag", "-V"),
                "a file's extents on disk (file-backed OSDs: read only what is written)")


class OsdReadStep(MeasuredSpec):
    """Each OSD's device read in place with fio --readonly; flags OSDs slower than their
    class's median."""

    kind: Literal["osd_read"]
    rw: Literal["read", "randread"] = "read"
    bs: Size = Size.of("1M")
    iodepth: int = Field(default=16, ge=1, le=1024)
    size: Size = Size.of("256M")  # at most this much of each OSD's device
    runtime: Duration = Duration.of(2)  # and at most this long per OSD
    threshold_pct: float = Field(default=20.0, gt=0, lt=100)


PER_OSD_S = 1.5  # the guard's probes, filefrag and fio's start, per OSD (1.3 s on the lab)
def _same_host(a: str, b: str) -> bool:
    """'vm' is 'vm.example.org': Ceph reports the short or the full name."""
    return a == b or a.split(".")[0] == b.split(".")[0]


def reach(ctx: StepContext, hostname: str | None) -> tuple[Transport, str] | None:
    """The transport of the OSD's host: a host of the step whose name or address is the
    OSD's hostname, else this machine when it is that host; None: not reachable."""
    if hostname is None:
        return None
    if ctx.fleet is not None:
        for h in ctx.fleet.select(ctx.step.hosts):
            if h.transport is not None and (_same_host(h.name, hostname)
                                            or h.host.address == hostname):
                return h.transport, h.name
    if _same_host(ctx.transport.host, hostname):
        return ctx.transport, hostname
    return None


class OsdReadRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None, "osd read needs the run's Ceph session"
        spec: OsdReadStep = ctx.step.spec
        meta = ctx.execute("osd-metadata", ["ceph", *ctx.ceph.target.cli(), "osd", "metadata",
                                            "-f", "json"])
        if meta.interrupted:
            return StepOutcome.stopped()
        try:
            if not meta.ok:
                raise ValueError(failure_message(meta, "ceph"))
            devices = parse_osd_metadata(meta.stdout)
        except ValueError as exc:
            return StepOutcome("failed", [], f"ceph osd metadata: {exc}")
        records: list[IoRecord] = []
        warnings: list[str] = []
        rows: list[dict] = []
        unreachable = 0
        for dev in devices:
            got = self._one(ctx, spec, dev, warnings)
            if got == "interrupted":
                return StepOutcome.stopped(records, warnings)
            if got == "unreachable":
                unreachable += 1
            elif got is not None:
                rec, rng = got
                records.append(rec)
                rows.append(_finding(dev, rec, rng))
        if not records and devices and unreachable == len(devices):
            # not a failure of the cluster: the run cannot reach the OSDs' machines
            return StepOutcome("skipped", [], "no OSD is on this machine or on a host of the "
                               "step: give `hosts:` the OSDs' hosts (--hosts)", warnings)
        if not records:
            return StepOutcome("failed", [], "no OSD could be read", warnings)
        for v in judged(rows, spec.threshold_pct):
            if v.slow:
                warnings.append(f"osd.{v.osd} ({v.device_class}) read {fmt_bw(v.bw_bytes)}, "
                                f"{-v.deviation_pct:.0f}% below the median of its class "
                                f"({fmt_bw(v.class_median)})")
        missing = len(devices) - len(records)
        findings = {"osd_read": {"rw": spec.rw, "bs": spec.bs.bytes, "osds": rows,
                                 "threshold_pct": spec.threshold_pct, "not_read": missing}}
        return StepOutcome("ok", records, None, warnings, findings=findings)

    def _one(self, ctx: StepContext, spec: OsdReadStep, dev: OsdDevice, warnings: list[str]):
        """(record, range) of one OSD, 'interrupted', 'unreachable' (its host), or None, the
        reason in warnings."""
        name = f"osd.{dev.osd}"
        if dev.path is None:
            warnings.append(f"{name}: not read: {dev.reason}")
            return None
        where = reach(ctx, dev.hostname)
        if where is None:
            warnings.append(f"{name}: not read: its host {dev.hostname or '(unknown)'} is not "
                            "this machine nor a host of the step (hosts: with its name or address)")
            return "unreachable"
        transport, host = where
        rng = self._range(ctx, spec, dev, transport, warnings)
        if rng is None:
            return None
        job = read_job(dev.osd, dev.path, rng, spec.rw, spec.bs.bytes, spec.iodepth,
                       spec.runtime.seconds)
        try:
            check_reads(job.fio_jobs(), transport)
        except UserError as exc:
            warnings.append(f"{name}: not read: {exc}")
            return None
        result = ctx.execute(f"fio-{name}", job.argv(), on=transport)
        if result.interrupted:
            return "interrupted"
        try:
            recs = parse_fio_json(result.stdout)
        except FioJsonError:
            recs = []
        if not result.ok or len(recs) != 1 or recs[0].error:
            warnings.append(f"{name}: fio failed: {failure_message(result, 'fio')}")
            return None
        rec = recs[0]
        rec.job, rec.host, rec.groupid = name, host, dev.osd
        rec.workload.update(osd=dev.osd, target=dev.path, target_type=dev.kind,
                            offset=rng.offset, range_bytes=rng.length,
                            upper_bound=rng.upper_bound)
        if rng.upper_bound:
            warnings.append(f"{name}: {rng.note}")
        return rec, rng

    @staticmethod
    def _range(ctx: StepContext, spec: OsdReadStep, dev: OsdDevice, transport: Transport,
               warnings: list[str]) -> ReadRange | None:
        kind = dev.kind
        if kind == "unknown":  # metadata without the access mode: ask the host what it is
            kind = {"block": "device", "file": "file"}.get(resolve(transport, dev.path)[0], kind)
        if kind != "file":
            return device_range(dev, spec.size.bytes)
        frag = ctx.execute(f"filefrag-osd.{dev.osd}", ["filefrag", "-v", "--", dev.path],
                           on=transport)
        try:
            if not frag.ok:
                raise ValueError(failure_message(frag, "filefrag"))
            rng = file_range(parse_filefrag(frag.stdout), spec.size.bytes)
        except ValueError as exc:
            rng = file_range(None, spec.size.bytes, str(exc))
        if rng is None:
            warnings.append(f"osd.{dev.osd}: not read: {dev.path} holds no data on disk")
        return rng

    def cleanup(self, ctx: StepContext) -> None:
        pass  # nothing was written


def _finding(dev: OsdDevice, rec: IoRecord, rng: ReadRange) -> dict:
    stats = rec.read
    return {"osd": dev.osd, "host": rec.host, "device_class": dev.device_class,
            "path": dev.path, "target_type": dev.kind, "offset": rng.offset,
            "range_bytes": rng.length, "allocated_bytes": rng.allocated_bytes,
            "upper_bound": rng.upper_bound, "bw_bytes": stats.bw_bytes, "iops": stats.iops,
            "note": rng.note}


class OsdRead(Kind):
    name = "osd_read"
    spec = OsdReadStep
    layer = "disk"
    family = "ceph"
    hosts = HostMode.FLEET
    tools = (CEPH, FIO, FILEFRAG)
    records = (IoRecord,)
    duration_fields = ("runtime",)
    verdict_fields = ("threshold_pct",)
    titled_rows = False

    def title(self, spec: OsdReadStep, name):
        return f"OSD read: {spec.bs} {spec.rw} of each OSD's device, read-only"

    def headline(self, spec):
        return "iops" if spec.rw == "randread" else "bw"

    def estimate_s(self, spec: OsdReadStep, hosts):
        return CEPH_CLI_S + ASSUMED_OSDS * (spec.runtime.seconds + PER_OSD_S)

    def needs(self, spec):
        return ("fio", "filefrag") if spec.hosts else ("ceph", "fio", "filefrag")

    def controller_needs(self, spec):
        return ("ceph",)

    def ceph(self, spec):
        return CephNeeds()

    def workload_text(self, params):
        return fio_workload(params)

    def runner(self):
        return OsdReadRunner()

    def rows(self, step):
        how = f"{step.params.get('bs', '')} {step.params.get('rw', 'read')}".strip()
        return record_rows(step, self.workload_text(step.params),
                           lambda group: f"{group.label} {how} ({group.host})")

    def tables(self, steps):
        table = osd_read_table([s for s in steps if s.findings.get("osd_read")])
        return [table] if table.rows else []


KIND = OsdRead()
