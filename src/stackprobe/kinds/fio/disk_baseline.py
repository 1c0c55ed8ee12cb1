"""The `disk_baseline` kind: every declared device or directory of a host alone, then all at once.

Seed 001 found 36 disks behind one backplane reaching 2 GB/s together although each alone
did far more: only running them together shows a shared link (HBA, expander, PCIe lanes)
capping them. So fio runs direct I/O on each target by itself, then one fio with a job per
target at the same time; the host is flagged when the aggregate is below `min_aggregate`
of the sum of its singles.

Targets are the host's `devices` (read in place; write workloads never touch a device) and
`directories` (a file of `size` laid out in stackprobe's own sub-directory). Without hosts,
the run's scratch directory is the one target. fio takes its options on the command line
here, so nothing has to be copied to the host; the same job names in both phases make the
all-at-once run reuse the files the singles laid out.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Literal

from pydantic import Field

from stackprobe.kinds.compare import ComparesNodes
from stackprobe.kinds.context import STOPPED, StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import HostMode, Kind
from stackprobe.kinds.fio.common import FIO
from stackprobe.kinds.fio.disk_checks import NoFlaggedDiskSet
from stackprobe.parsers.fio.fio_json import FioJsonError, parse_fio_json
from stackprobe.safety.job_paths import READ_MODES
from stackprobe.schema.records import IoRecord
from stackprobe.spec.fields import Duration, Size
from stackprobe.spec.steps import MeasuredSpec
from stackprobe.tables.rows import fio_workload, record_rows
from stackprobe.units import fmt_bw

WRITES = ("write", "randwrite")


class DiskBaselineStep(MeasuredSpec, ComparesNodes):
    """Each declared device or directory of a host alone, then all of them at once; a host
    whose aggregate is below `min_aggregate` of the sum of its singles is flagged (a shared
    HBA, backplane or PCIe link caps them: seed 001's 36 disks at 2 GB/s)."""

    kind: Literal["disk_baseline"]
    rw: Literal["read", "randread", "write", "randwrite"] = "read"
    bs: Size = Size.of("1M")
    iodepth: int = Field(default=16, ge=1)
    size: Size = Size.of("1G")  # per directory: the file laid out and read; devices are read in place
    runtime: Duration = Duration.of(10)
    min_aggregate: float = Field(default=0.70, gt=0, le=1)


def targets(ctx: StepContext) -> tuple[list[tuple[str, str]], list[str]]:
    """[(kind 'device'|'directory', path where fio works)], and warnings."""
    spec: DiskBaselineStep = ctx.step.spec
    if ctx.fleet is None or ctx.host is None:
        return [("directory", str(ctx.work_dir))], []
    handle = ctx.fleet[ctx.host]
    host = handle.host
    out, warnings = [], []
    for dev in host.devices:
        if spec.rw in WRITES:
            warnings.append(f"{dev}: skipped, a {spec.rw} baseline never writes to a device")
        else:
            out.append(("device", dev))
    tag = PurePosixPath(handle.scratch).name
    for d in host.directories or [str(PurePosixPath(handle.scratch).parent)]:
        out.append(("directory", f"{d.rstrip('/')}/{tag}/{ctx.step.id}"))
    return out, warnings


def fio_argv(spec: DiskBaselineStep, jobs: list[tuple[str, str, str]]) -> list[str]:
    """fio with the common options global (before the first --name), one job per target."""
    argv = ["fio", "--output-format=json", "--ioengine=libaio", "--direct=1",
            f"--rw={spec.rw}", f"--bs={spec.bs.bytes}", f"--iodepth={spec.iodepth}",
            f"--runtime={int(spec.runtime.seconds)}", "--time_based"]
    for name, kind, path in jobs:
        argv.append(f"--name={name}")
        if kind == "device":
            argv.append(f"--filename={path}")
        else:
            argv += [f"--directory={path}", f"--size={spec.size.bytes}"]
    return argv


def _bw(rec: IoRecord) -> float:
    return sum(s.bw_bytes for _, s in rec.directions())


class DiskBaselineRunner:
    def prepare(self, ctx: StepContext) -> None:
        dirs = [path for kind, path in targets(ctx)[0] if kind == "directory"]
        if dirs:
            ctx.execute("mkdir", ["mkdir", "-p", "--", *dirs])

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: DiskBaselineStep = ctx.step.spec
        found, warnings = targets(ctx)
        if not found:
            return StepOutcome("failed", error="no device or directory to test", warnings=warnings)
        jobs = [(f"t{i}", kind, path) for i, (kind, path) in enumerate(found, start=1)]
        records: list[IoRecord] = []
        singles: dict[str, float] = {}
        for job in jobs:
            got, error = self._fio(ctx, f"fio-single-{job[0]}", spec, [job], "single")
            records += got
            if error:
                return StepOutcome(error[0], records, error[1], warnings)
            singles[job[2]] = sum(_bw(r) for r in got)
        findings: dict = {}
        if len(jobs) > 1:
            got, error = self._fio(ctx, "fio-all", spec, jobs, "all")
            records += got
            if error:
                return StepOutcome(error[0], records, error[1], warnings)
            aggregate = sum(_bw(r) for r in got)
            total = sum(singles.values())
            ratio = aggregate / total if total else 0.0
            flagged = ratio < spec.min_aggregate
            findings["disk_scaling"] = {"singles": singles, "sum_bw": total,
                                        "aggregate_bw": aggregate, "ratio": round(ratio, 4),
                                        "min_aggregate": spec.min_aggregate, "flagged": flagged}
            if flagged:
                warnings.append(
                    f"all {len(jobs)} targets together {fmt_bw(aggregate)} = {ratio:.2f}x the "
                    f"sum of each alone ({fmt_bw(total)}): a shared link (HBA, backplane, "
                    f"PCIe) caps them")
        return StepOutcome("ok", records, None, warnings, findings=findings)

    @staticmethod
    def _fio(ctx: StepContext, label: str, spec: DiskBaselineStep, jobs, mode: str):
        result = ctx.execute(label, fio_argv(spec, jobs))
        try:
            records = parse_fio_json(result.stdout)
        except FioJsonError:
            records = []
        paths = {name: path for name, _kind, path in jobs}
        for rec in records:
            # each target alone is its own row; the targets together are one summed group
            rec.groupid = int(rec.job[1:]) if mode == "single" and rec.job[1:].isdigit() else 0
            rec.host = ctx.transport.host
            rec.workload.update(baseline=mode, target=paths.get(rec.job, rec.job))
            rec.job = f"{mode}:{paths.get(rec.job, rec.job)}"
        if result.interrupted:
            return records, ("interrupted", STOPPED)
        if not result.ok or not records or any(r.error for r in records):
            return records, ("failed", failure_message(result, "fio") if not result.ok
                             else "fio reported a job error or no result")
        return records, None

    def cleanup(self, ctx: StepContext) -> None:
        """Remove the files laid out: the step's directory under each declared directory,
        and the run's directory there when it is not the host's scratch (the fleet's)."""
        dirs = [path for kind, path in targets(ctx)[0] if kind == "directory"]
        if not dirs:
            return
        remove = []
        for d in dirs:
            step_dir = PurePosixPath(d)
            run_dir = step_dir.parent
            if ctx.fleet is not None and ctx.host is not None and \
                    str(run_dir) != ctx.fleet[ctx.host].scratch:
                remove.append(str(run_dir))
            else:
                remove.append(str(step_dir))
        ctx.execute("cleanup", ["rm", "-rf", "--", *remove])


# what the run adds below a declared directory: its own stackprobe-<run id>-<host>/<step id>
_RUN_SUFFIX = re.compile(r"/stackprobe-[^/]+/\d+-[^/]+$")


def baseline_label(host: str | None, label: str) -> str:
    """'Disk h1 /srv/a alone', 'Disk h1: 3 targets together': a directory as the hosts
    file declares it (without the run's own directory below it, so runs pair in compare)."""
    where = f"Disk {host}" if host else "Disk"
    found = [_RUN_SUFFIX.sub("", t.split(":", 1)[1]) for t in label.split(", ") if ":" in t]
    if label.startswith("single:") and len(found) == 1:
        return f"{where} {found[0]} alone"
    return f"{where}: {len(found)} targets together"


class DiskBaseline(Kind):
    name = "disk_baseline"
    spec = DiskBaselineStep
    layer = "disk"
    family = "fio"
    files_on_target = True
    checks = (NoFlaggedDiskSet(),)
    hosts = HostMode.EACH
    tools = (FIO,)
    records = (IoRecord,)
    duration_fields = ("runtime",)
    verdict_fields = ("min_aggregate",)
    titled_rows = False

    def title(self, spec: DiskBaselineStep, name):
        return f"Disk baseline: {spec.bs} {spec.rw}, each alone then all together"

    def headline(self, spec):
        return "bw"

    def estimate_s(self, spec: DiskBaselineStep, hosts):  # two targets assumed: each, then both
        return 3 * (spec.runtime.seconds + 2.0)

    def workload_text(self, params):
        return fio_workload(params)

    def runner(self):
        return DiskBaselineRunner()

    def guard_inputs(self, step, read, hosts):
        """Declared devices are read in place and skipped for write/randwrite; any other
        writing rw (only possible in a hand-made plan) would write them: refused."""
        spec: DiskBaselineStep = step.spec
        if hosts is None or spec.rw in WRITES or spec.rw in READ_MODES:
            return [], []
        devices = [d for h in hosts.hosts if h.name in step.hosts for d in h.devices]
        if not devices:
            return [], []
        return [], [f"step {step.id}: disk_baseline rw={spec.rw} would write "
                    f"{', '.join(devices)} — baselines only read devices"]

    def rows(self, step):
        return record_rows(step, self.workload_text(step.params),
                           lambda group: baseline_label(group.host, group.label))


KIND = DiskBaseline()
