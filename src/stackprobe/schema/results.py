"""results.json: the versioned document a run leaves behind (see docs/results-schema.md).

It is rewritten atomically after every step, so a crash or Ctrl-C never loses a step
that finished. Raw tool outputs live beside it in steps/<id>/ and are referenced by name.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from stackprobe.schema.health_records import HealthWatch
from stackprobe.schema.records import Record
from stackprobe.schema.verdict import Verdict
from stackprobe.schema.version import SCHEMA_VERSION

StepStatus = Literal["pending", "running", "ok", "partial", "failed", "interrupted", "skipped"]
# partial: a step on several hosts where some hosts failed; the others' results are kept
RunStatus = Literal["running", "ok", "failed", "interrupted"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CommandRecord(_Model):
    """One command a step ran, and where its output is kept."""

    command: str  # shell-quoted, paste-able
    argv: list[str]
    host: str
    cwd: str | None = None
    returncode: int | None
    duration_s: float
    timed_out: bool = False
    interrupted: bool = False
    stdout_file: str | None = None  # relative to the step directory
    stderr_file: str | None = None


class DirectionSummary(_Model):
    """One direction of an I/O step, jobs and groups combined (analysis/io_summary.py)."""

    iops: float
    bw_bytes: float
    lat_mean_ns: float | None = None  # total latency (submission + completion), fio's 'lat'
    clat_mean_ns: float | None = None
    clat_ns: dict[str, float] = Field(default_factory=dict)  # p50, p99, ... exact when merged
    # total-latency percentiles, when fio reported them (lat_percentiles=1, which stackprobe's
    # own job files set); the same quantity as lat_mean_ns
    lat_ns: dict[str, float] = Field(default_factory=dict)


class IoGroupSummary(_Model):
    """A fio group: jobs that ran at the same time, combined (one table row)."""

    label: str
    groupid: int | None = None
    host: str | None = None
    read: DirectionSummary | None = None
    write: DirectionSummary | None = None
    trim: DirectionSummary | None = None


class RepeatStats(_Model):
    """The headline figure over a repeated step's runs."""

    n: int
    values: list[float]
    mean: float
    stddev: float | None = None
    cov: float | None = None  # stddev / mean
    ci95_low: float | None = None  # Student's t, n - 1 degrees of freedom
    ci95_high: float | None = None
    noisy: bool = False  # cov above the step's threshold


class StepSummary(_Model):
    """The figures tables show for a step; derived from its records."""

    io: list[IoGroupSummary] = Field(default_factory=list)
    ops: dict[str, float] = Field(default_factory=dict)  # metadata: operation -> ops/s
    ops_lat_mean_ns: dict[str, float] = Field(default_factory=dict)
    membw: dict[str, float] = Field(default_factory=dict)  # memory: operation -> bytes/s
    tool: str | None = None  # which tool measured (memory: sysbench / mbw / stress-ng)
    headline_value: float | None = None  # for a repeated step: the mean of its runs
    headline_unit: str | None = None  # 'IOPS', 'B/s', 'ns', 'ops/s'
    repeat: RepeatStats | None = None
    # steady state (fio steps with steady_state): steady, reason, reached_at_s,
    # stopped_early, and for a step ended early planned_s, ran_s, saved_s
    steady: dict[str, Any] | None = None


class StepResult(_Model):
    id: str
    index: int
    name: str
    kind: str
    title: str
    layer: str
    params: dict[str, Any]
    swept: dict[str, Any] = Field(default_factory=dict)
    sweep: str | None = None  # steps of one suite step's sweep share this
    headline: str | None = None
    status: StepStatus = "pending"
    started: str | None = None  # ISO 8601 UTC
    ended: str | None = None
    duration_s: float | None = None
    estimate_s: float | None = None
    commands: list[CommandRecord] = Field(default_factory=list)
    artifacts: list[str] = Field(default_factory=list)  # files in the step directory
    records: list[Record] = Field(default_factory=list)
    summary: StepSummary | None = None
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)  # problems and doubts
    notes: list[str] = Field(default_factory=list)  # findings: an slo answer, advice
    hosts: list[str] = Field(default_factory=list)  # the hosts the step ran on (--hosts)
    # tables the report draws: consistency (per-node figures against their median),
    # network (the iperf3/ping pair matrix), disk_scaling (each device alone vs together)
    findings: dict[str, Any] = Field(default_factory=dict)
    # what the hosts did during the step: {host: {file, interval_s, summary}}; the per-second
    # samples are in steps/<id>/<file> (monitor/, docs/results-schema.md)
    monitor: dict[str, Any] = Field(default_factory=dict)
    hints: list[str] = Field(default_factory=list)  # where the limit was: 'vda 98% busy', ...
    # over-time verdict of the tool's per-second series: {cov, dips, stalls, verdict, ...}
    stability: dict[str, Any] | None = None
    # a Ceph step: Ceph's own view of it (per-OSD counter deltas, osd perf, pool rates,
    # health before/during/after; engine/ceph_watch.py, docs/results-schema.md)
    ceph_view: dict[str, Any] | None = None


class RunInfo(_Model):
    id: str
    suite: str
    suite_source: str
    target: str
    host: str
    started: str
    ended: str | None = None
    status: RunStatus = "running"
    stackprobe_version: str
    tool_versions: dict[str, str] = Field(default_factory=dict)
    command_line: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    hosts: list[dict[str, Any]] = Field(default_factory=list)  # --hosts: name, address, roles
    hosts_file: str | None = None  # --hosts: a file (absolute path) or a host list, for `resume`
    pid: int | None = None  # the controller process while it runs (resume refuses a live one)
    resumed: list[str] = Field(default_factory=list)  # UTC times the run was resumed
    # the Ceph cluster and pool the run loaded: conf, client, pool, pool_created
    ceph: dict[str, Any] | None = None
    # run-level commands (Ceph pool/image/mount setup and teardown), kept in steps/ceph-session/
    commands: list[CommandRecord] = Field(default_factory=list)
    # `stackprobe ingest --new/--into`: each file given, {source, format, step, copy} when it
    # became a step, {source, refused} when not; empty for what stackprobe measured itself
    ingested: list[dict[str, Any]] = Field(default_factory=list)


class RunResults(_Model):
    schema_version: int = SCHEMA_VERSION
    run: RunInfo
    steps: list[StepResult]
    verdict: Verdict | None = None  # the checklist the run ended in (schema/verdict.py)
    # health counters before/after the run and what changed (engine/health_watch.py)
    health: HealthWatch | None = None
