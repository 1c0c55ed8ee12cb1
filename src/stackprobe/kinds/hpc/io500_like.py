"""The io500-like runner: IO500's twelve phases from fio and find, scored with IO500's formula.

For systems without IOR and mdtest (or without MPI): the same access patterns, the same
order, the same score formula (analysis/io500_score.py) — and always the label
"io500-like, not an official IO500 score": fio is not IOR, sizes are not the 300-second
stonewalled runs the rules demand, and nobody may put this figure on a list.

Each phase keeps its fio record (bandwidth phases as io records, metadata phases as ops
records named after the phase) beside one io500 record with every phase's figure in
IO500's units (GiB/s, kIOPS) and the score. A phase that fails ends the step (later
phases need its files); the phases measured so far are kept.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from stackprobe.analysis.io500_score import IO500_LIKE_LABEL, score
from stackprobe.kinds.ceph.common import CEPH, CEPH_FUSE
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message, remove_work_dir
from stackprobe.kinds.contract import CephNeeds, HostMode, Kind, Tool
from stackprobe.kinds.fio.common import FIO, FIO_STARTUP_S, METADATA_OPS_PER_S, UNTIMED_BYTES_PER_S
from stackprobe.kinds.fio.fio import run_fio_job
from stackprobe.kinds.fio.fio_job import metadata_dirs
from stackprobe.kinds.fio.metadata_jobs import ops_record, short_phase
from stackprobe.kinds.fio.params import TARGET_TEXT, target_needs
from stackprobe.kinds.hpc.io500_like_fleet import Io500LikeFleet
from stackprobe.kinds.hpc.io500_like_jobs import (
    DIRS,
    HARD_TRANSFER,
    PHASES,
    find_argv,
    phase_job,
)
from stackprobe.kinds.hpc.rows import io500_rows
from stackprobe.kinds.lustre import Stripe, apply_stripes
from stackprobe.schema.records import Io500Phase, Io500Record, IoRecord, OpsRecord
from stackprobe.schema.sentinels import FLEET_HOST
from stackprobe.spec.fields import Size
from stackprobe.spec.steps import MeasuredSpec


class Io500LikeStep(MeasuredSpec):
    """The IO500 phases from stackprobe's own steps (fio, find) on a directory, scored with
    the IO500 formula and always labelled 'io500-like, not an official IO500 score'.

    Sizes are per process: easy (large sequential files, one per process), hard (47008-byte
    transfers interleaved into one shared file), metadata easy (a directory per process) and
    hard (one shared directory, 3901-byte files), then a parallel find."""

    kind: Literal["io500_like"]
    target: Literal["local", "cephfs"] = "local"
    numjobs: int = Field(default=2, ge=1, le=256)
    easy_size: Size = Size.of("256m")  # bytes each process writes in ior-easy
    easy_bs: Size = Size.of("1m")
    hard_transfers: int = Field(default=2000, ge=1)  # 47008-byte writes per process
    md_easy_files: int = Field(default=5000, ge=1)  # per process
    md_hard_files: int = Field(default=2000, ge=1)  # per process
    direct: bool = False
    stripe: dict[str, Stripe] = Field(default_factory=dict)  # phase directory -> striping
    # With hosts: a directory every host sees (a shared mount: Lustre, NFS); all clients
    # work in one stackprobe-<run>-<step> directory below it. With target cephfs, each
    # client mounts the run's CephFS itself instead.
    directory: str | None = Field(default=None, pattern=r"^/")

    @model_validator(mode="after")
    def _where(self):
        if self.hosts is None:
            if self.directory is not None:
                raise ValueError("directory: is for steps with hosts (a mount they all see); "
                                 "on this machine use --target")
            return self
        if (self.target == "cephfs") == (self.directory is not None):
            raise ValueError("with hosts, the clients need one file system they all see: "
                             "target: cephfs, or directory: a mount every host has")
        if self.stripe:
            raise ValueError("stripe: is applied on this machine's target only; with hosts, "
                             "set the shared directory's layout with lfs setstripe beforehand")
        return self

GIB = 1024**3
TIMESTAMP = "timestamp"  # touched after mdtest-easy-write: find looks for newer files


def phase_value(phase: str, rec: IoRecord | OpsRecord) -> tuple[float, int, float | None]:
    """(figure in IO500 units, operations, seconds) of a phase's record: GiB/s or kIOPS."""
    if isinstance(rec, OpsRecord):
        return rec.ops_per_s / 1000, rec.total_ops or 0, _seconds(rec.runtime_ms)
    stats = rec.write if phase.endswith("write") else rec.read
    return stats.bw_bytes / GIB, stats.total_ios or 0, _seconds(stats.runtime_ms)


def _seconds(ms: float | None) -> float | None:
    return ms / 1000 if ms else None


class Io500LikeRunner:
    def __init__(self) -> None:
        self._warnings: dict[str, list[str]] = {}
        self.fleet = Io500LikeFleet()

    def prepare(self, ctx: StepContext) -> None:
        spec: Io500LikeStep = ctx.step.spec
        if ctx.fleet is not None:
            return self.fleet.prepare(ctx)
        work = ctx.work_dir
        jobs = spec.numjobs
        dirs = [*DIRS.values(), *(f"{DIRS['mdtest-easy']}/{d}" for d in metadata_dirs("easy", jobs)),
                f"{DIRS['mdtest-hard']}/hard"]
        for d in dirs:
            (work / d).mkdir(parents=True, exist_ok=True)
        self._warnings[ctx.step.id] = apply_stripes(ctx, str(work), spec.stripe)
        for phase, _kind in PHASES:
            if phase != "find":
                (ctx.step_dir / f"{phase}.fio").write_text(
                    phase_job(phase, spec, str(work)), encoding="utf-8")

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: Io500LikeStep = ctx.step.spec
        records: list = []
        phases: list[Io500Phase] = []
        created = 0  # files in the tree when find walks it
        warnings = self._warnings.pop(ctx.step.id, [])
        if ctx.fleet is not None and (problem := self.fleet.start(ctx)):
            return StepOutcome("failed", error=problem)
        for phase, kind in PHASES:
            if phase == "find":
                outcome = self._find(ctx, created)
                if isinstance(outcome, StepOutcome):
                    return self._ended(outcome, records, phases, warnings)
                phases.append(outcome)
                continue
            outcome, figure = self._phase(ctx, phase, kind)
            records += outcome.records
            if outcome.status != "ok" or figure is None:
                return self._ended(outcome, records, phases, warnings, phase)
            value, ops, seconds = figure
            if phase in ("mdtest-easy-write", "mdtest-hard-write"):
                created += ops
            if phase == "mdtest-easy-write":  # what find will look for is newer than this
                self._touch(ctx, TIMESTAMP)
            unit = "GiB/s" if kind == "bw" else "kIOPS"
            phases.append(Io500Phase(name=phase, kind=kind, value=value, unit=unit,
                                     time_s=seconds))
        warnings += [w for ph in phases if ph.name != "find"  # find is timed by the clock
                     if (w := short_phase(ph.name, (ph.time_s or 0) * 1000, "raise its size"))]
        clients = len(ctx.step.hosts) if ctx.fleet is not None else 1
        result = Io500Record(version="stackprobe io500-like", source_format="stackprobe",
                             official=False, label=IO500_LIKE_LABEL,
                             procs=spec.numjobs * clients, phases=phases,
                             score_computed=score(phases),
                             formula="sqrt(geomean(bw GiB/s) x geomean(md kIOPS))",
                             host=FLEET_HOST if ctx.fleet is not None else ctx.transport.host)
        return StepOutcome("ok", [*records, result], warnings=warnings,
                           notes=[_score_note(result)])

    def cleanup(self, ctx: StepContext) -> None:
        if ctx.fleet is not None:
            return self.fleet.cleanup(ctx)
        remove_work_dir(ctx)

    # ---------------------------------------------------------------- parts
    def _phase(self, ctx: StepContext, phase: str, kind: str,
               ) -> tuple[StepOutcome, tuple[float, int, float | None] | None]:
        """One phase: (its outcome and records, its figure or None when it did not end)."""
        if ctx.fleet is not None:
            return self.fleet.phase(ctx, phase, kind)
        outcome = run_fio_job(ctx.child(phase), ctx.step_dir / f"{phase}.fio")
        recs = outcome.records
        if kind == "md":
            recs = [ops_record(r, 0, phase.split("-")[1]) for r in recs]
            for r in recs:
                r.operation, r.files_per_job = phase, None
        outcome.records = recs
        return outcome, (phase_value(phase, recs[0]) if recs else None)

    def _touch(self, ctx: StepContext, name: str) -> None:
        if ctx.fleet is not None:
            return self.fleet.touch(ctx, name)
        ctx.execute("timestamp", ["touch", "--", str(ctx.work_dir / name)])

    def _find(self, ctx: StepContext, files: int) -> Io500Phase | StepOutcome:
        """IO500's find: walk the whole tree in parallel; the rate is files walked per
        second (the files the create phases made), as IO500 counts it."""
        if ctx.fleet is not None:
            result = self.fleet.find(ctx, TIMESTAMP)
        else:
            work = str(ctx.work_dir)
            result = ctx.execute("find", find_argv(work, ctx.step.spec.numjobs,
                                                   f"{work}/{TIMESTAMP}"))
        if not result.ok:
            return StepOutcome("interrupted" if result.interrupted else "failed",
                               error=failure_message(result, "find"))
        found = sum(1 for ln in result.stdout.splitlines() if ln.strip())
        seconds = max(result.duration_s, 1e-6)
        return Io500Phase(name="find", kind="md", value=files / seconds / 1000, unit="kIOPS",
                          time_s=seconds, details={"found": found, "total_files": files})

    @staticmethod
    def _ended(outcome: StepOutcome, records: list, phases: list[Io500Phase],
               warnings: list[str], phase: str = "find") -> StepOutcome:
        status = outcome.status if outcome.status != "ok" else "failed"
        error = outcome.error or f"{phase}: no result"
        return StepOutcome(status, records, f"{phase}: {error}", warnings + outcome.warnings)


def _score_note(rec: Io500Record) -> str:
    s = rec.score_computed
    if s is None:
        return f"{rec.label}: no score (a phase has no figure)"
    return (f"{rec.label}: score {s.total:.4f} (bandwidth {s.bw:.4f} {s.bw_unit}, "
            f"metadata {s.md:.4f} {s.md_unit})")


FIND = Tool("find", "findutils", ("find", "--version"), "io500-like find phase (directory walk)")


def io500_like_bytes(spec: Io500LikeStep) -> int:
    """Data an io500-like step leaves on its target before the deletes."""
    return spec.numjobs * (spec.easy_size.bytes + spec.hard_transfers * HARD_TRANSFER
                           + spec.md_easy_files * 4096 + spec.md_hard_files * 4096)


class Io500Like(Kind):
    name = "io500_like"
    spec = Io500LikeStep
    layer = "client"
    family = "hpc"
    files_on_target = True
    hosts = HostMode.FLEET
    tools = (FIO, FIND, CEPH, CEPH_FUSE)  # Ceph's on `target: cephfs`
    records = (IoRecord, OpsRecord, Io500Record)

    def title(self, spec, name):
        return "io500-like phases (not an official IO500 score)"

    def target_text(self, spec: Io500LikeStep):
        return TARGET_TEXT.get(spec.target)

    def estimate_s(self, spec: Io500LikeStep, hosts):
        data = io500_like_bytes(spec)
        ops = spec.numjobs * (3 * spec.md_easy_files + 4 * spec.md_hard_files)
        return 12 * FIO_STARTUP_S + 2 * data / UNTIMED_BYTES_PER_S + 2 * ops / METADATA_OPS_PER_S

    def data_bytes(self, spec: Io500LikeStep):
        return io500_like_bytes(spec)

    def needs(self, spec: Io500LikeStep):
        return ("fio", "find", *target_needs(spec.target))

    def ceph(self, spec: Io500LikeStep):
        if spec.target != "cephfs":
            return None
        return CephNeeds(cephfs=True, cephfs_bytes=self.data_bytes(spec))

    def runner(self):
        return Io500LikeRunner()

    def rows(self, step):
        return io500_rows(step, self.workload_text(step.params))


KIND = Io500Like()
