"""The `metadata` kind: file create / write / stat / read / delete rates with fio.

layout 'easy' gives each process its own directory, 'hard' puts every process's files in
one directory (the contended case metadata servers fear). With `hosts:` the step is driven
from all of them at once (kinds/fio/metadata_fleet.py). How fio's records become rates:
kinds/fio/metadata_jobs.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from stackprobe.kinds.ceph.common import CEPH, CEPH_FUSE
from stackprobe.kinds.context import StepContext, StepOutcome, remove_work_dir
from stackprobe.kinds.contract import CephNeeds, HostMode, Kind
from stackprobe.kinds.fio.common import FIO, FIO_STARTUP_S, METADATA_OPS_PER_S
from stackprobe.kinds.fio.fio import run_fio_job
from stackprobe.kinds.fio.fio_job import metadata_dirs
from stackprobe.kinds.fio.metadata_fleet import MetadataFleet
from stackprobe.kinds.fio.metadata_jobs import JOB_FILE, job_text, ops_record, short_phases
from stackprobe.kinds.fio.params import TARGET_TEXT, target_needs
from stackprobe.kinds.lustre import Stripe, apply_stripes
from stackprobe.schema.records import OpsRecord
from stackprobe.spec.fields import Counts, Size
from stackprobe.spec.steps import MeasuredSpec


class MetadataStep(MeasuredSpec):
    """File create/stat/read/delete rates with fio's filecreate/filestat/filedelete engines
    (read: one small read per file). layout 'easy' gives every process its own directory,
    'hard' puts every process's files in one shared directory."""

    kind: Literal["metadata"]
    files: Counts = 2000  # per job
    numjobs: Counts = 1
    file_size: Size = Size.of("4k")
    operations: list[Literal["create", "write", "stat", "read", "delete"]] = Field(
        default_factory=lambda: ["create", "stat", "delete"]
    )
    stat_type: Literal["stat", "lstat", "statx"] = "stat"
    layout: Literal["easy", "hard"] | list[Literal["easy", "hard"]] = "easy"
    target: Literal["local", "cephfs"] | list[Literal["local", "cephfs"]] = "local"
    # With hosts: a directory every host sees (a shared mount): the clients' files go to one
    # stackprobe-<run>-<step> directory below it, so 'hard' is one directory for the whole
    # fleet. Unset: each host's scratch directory.
    directory: str | None = Field(default=None, pattern=r"^/")
    stripe: Stripe | None = None  # Lustre: `lfs setstripe` on the step's directory

    @model_validator(mode="after")
    def _where(self):
        targets = self.target if isinstance(self.target, list) else [self.target]
        if self.directory is not None and "cephfs" in targets:
            raise ValueError("target cephfs is the run's CephFS, mounted by each host: "
                             "directory: is for a file system the hosts already see")
        if self.hosts is None and self.directory is not None:
            raise ValueError("directory: is for steps with hosts (a mount they all see); "
                             "on this machine use --target")
        return self


class MetadataRunner:
    def __init__(self) -> None:
        self.fleet = MetadataFleet()
        self._warnings: dict[str, list[str]] = {}

    def prepare(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self.fleet.prepare(ctx)
        spec: MetadataStep = ctx.step.spec
        for d in metadata_dirs(spec.layout, spec.numjobs):
            (ctx.work_dir / d).mkdir(parents=True, exist_ok=True)
        self._warnings[ctx.step.id] = apply_stripes(
            ctx, str(ctx.work_dir), {".": spec.stripe}) if spec.stripe else []
        (ctx.step_dir / JOB_FILE).write_text(job_text(ctx.step.name, spec, str(ctx.work_dir)),
                                             encoding="utf-8")

    def run(self, ctx: StepContext) -> StepOutcome:
        if ctx.fleet is not None:
            return self.fleet.run(ctx)
        spec: MetadataStep = ctx.step.spec
        outcome = run_fio_job(ctx, ctx.step_dir / JOB_FILE)
        outcome.records = [ops_record(r, spec.files, spec.layout) for r in outcome.records]
        outcome.warnings += self._warnings.pop(ctx.step.id, []) + short_phases(outcome.records)
        return outcome

    def cleanup(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self.fleet.cleanup(ctx)
        remove_work_dir(ctx)


class Metadata(Kind):
    name = "metadata"
    spec = MetadataStep
    layer = "disk"  # on the CephFS: 'client'
    family = "fio"
    files_on_target = True
    hosts = HostMode.FLEET
    sweeps = ("files", "numjobs", "layout", "target")
    tools = (FIO, CEPH, CEPH_FUSE)  # Ceph's on `target: cephfs`
    records = (OpsRecord,)
    verdict_fields = ("operations",)  # each operation is a row of its own
    place_fields = ("directory",)
    titled_rows = False

    def title(self, spec: MetadataStep, name):
        where = "a directory per process" if spec.layout == "easy" else "one shared directory"
        return f"File metadata operations ({spec.layout}: {where})"

    def target_text(self, spec: MetadataStep):
        return TARGET_TEXT.get(spec.target)

    def layer_of(self, spec: MetadataStep):
        return "client" if spec.target == "cephfs" else self.layer

    def headline(self, spec):
        return "ops"

    def estimate_s(self, spec: MetadataStep, hosts):
        ops = spec.files * spec.numjobs * len(spec.operations)
        return len(spec.operations) * FIO_STARTUP_S + ops / METADATA_OPS_PER_S

    def data_bytes(self, spec: MetadataStep):
        per_file = max(spec.file_size.bytes, 4096)  # a block per file at least
        return spec.files * spec.numjobs * per_file

    def needs(self, spec: MetadataStep):
        return ("fio", *target_needs(spec.target))

    def controller_needs(self, spec):
        # each phase is one `fio --client` run from here; the run's Ceph session on cephfs
        return ("fio", "ceph") if spec.target == "cephfs" else ("fio",)

    def ceph(self, spec: MetadataStep):
        if spec.target != "cephfs":
            return None
        return CephNeeds(cephfs=True, cephfs_bytes=self.data_bytes(spec))

    def workload_text(self, params):
        jobs = int(params.get("numjobs", 1))
        text = f"{params['files']} files x{jobs} job{'s' if jobs > 1 else ''}"
        return text + (", one shared dir" if params.get("layout") == "hard" else "")

    def runner(self):
        return MetadataRunner()


KIND = Metadata()
