"""Typed measurement records: what every parser returns and results.json stores.

One record type per kind of figure, told apart by `type`:
- `io`: a block/file workload (fio, later rbd bench, rados bench) with separate read/write/trim
  statistics, latencies in nanoseconds, bandwidth in bytes/s;
- `ops`: a metadata operation (create/stat/delete) in ops/s;
- `membw`: a memory bandwidth figure and the tool that measured it;
- `net`: a network transfer between two endpoints (iperf3);
- `inventory`: what a host is made of (see parsers/inventory.py for its body);
- `osd_bench`: one Ceph OSD's `ceph tell osd.N bench`;
- `ceph_inventory`: a Ceph cluster's health, OSDs, pools and versions;
- `slo`: a latency-bounded maximum IOPS search and its probes;
- `cpu`: a CPU throughput figure (stress-ng bogo ops/s of one stressor);
- `ping`: round-trip latency and loss between two hosts;
- `ior`: one IOR access (write or read) of one IOR test, with its summary and iterations;
- `mdtest`: one mdtest operation row (file creation, directory stat, tree removal, ...);
- `io500`: an IO500 run (or an io500-like one): its phases, the score it reported and the
  score recomputed with the official formula;
- `ceph_review`: one finding of the Ceph configuration review, with its evidence and source;
- `stream`, `hpl`, `hpcc`: the HPC node benchmarks, with their own checks (hpc_records.py);
- `osu`, `perftest`: the fabric's point-to-point benchmarks, a row per message size
  (fabric_records.py); `mpi_pair`: mpi4py's ping-pong between two hosts, likewise;
- `net_soak`, `nic_counters`: the network soak's pairs and its hosts' error counters
  (soak_records.py).
- `link`: a NIC, InfiniBand port or bond of a host as its kernel reports it
  (link_records.py).
- `storage_soak`: a fio or rados bench soak over all its chunks: its bounded per-second
  series, its periods judged one by one, its chunks (storage_soak_records.py).

Latency dicts (`clat_ns`, `lat_ns`, `slat_ns`) are flat: mean/min/max/stddev plus the
percentiles the tool reported, keyed by `percentile_key` ("p50", "p99.9", ...).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field

from stackprobe.schema.bmc_records import BmcRecord
from stackprobe.schema.fabric_records import (
    MpiPairRecord,
    MpiStreamRecord,
    OsuRecord,
    PerftestRecord,
)
from stackprobe.schema.health_records import HealthRecord
from stackprobe.schema.hpc_records import HpccRecord, HplRecord, StreamRecord
from stackprobe.schema.link_records import LinkRecord
from stackprobe.schema.peer_records import (
    ElbenchoLiveRecord,
    ElbenchoPhaseRecord,
    SysbenchRecord,
    VdbenchRecord,
)
from stackprobe.schema.record_base import MODEL, RecordBase
from stackprobe.schema.settings_records import SettingsRecord
from stackprobe.schema.soak_records import NicCountersRecord, SoakPairRecord
from stackprobe.schema.storage_soak_records import StorageSoakRecord


def percentile_key(p: float | str) -> str:
    """'99.900000' or 99.9 -> 'p99.9'; '50.000000' -> 'p50'."""
    value = float(p)
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return f"p{text}"


def percentile_value(key: str) -> float:
    """'p99.9' -> 99.9 (inverse of percentile_key)."""
    return float(key[1:])


class IoStats(BaseModel):
    """One direction (read, write or trim) of an I/O workload."""

    model_config = MODEL

    iops: float = 0.0
    bw_bytes: float = 0.0
    io_bytes: int | None = None
    total_ios: int | None = None
    runtime_ms: float | None = None
    clat_ns: dict[str, float] = Field(default_factory=dict)
    lat_ns: dict[str, float] = Field(default_factory=dict)
    slat_ns: dict[str, float] = Field(default_factory=dict)
    # fio json+ completion-latency histogram {bin value ns: count}; kept in memory for exact
    # merging (analysis/histogram.py) but not written: the raw fio output holds it.
    clat_bins: dict[int, int] | None = Field(default=None, exclude=True)
    lat_bins: dict[int, int] | None = Field(default=None, exclude=True)  # with lat_percentiles=1

    @property
    def active(self) -> bool:
        return bool(self.total_ios or self.io_bytes or self.iops)

    @classmethod
    def from_counts(cls, ops: int, op_bytes: int, runtime_s: float, **extra) -> IoStats:
        """Figures derived from exact counts (ops of a fixed size in a measured time),
        more precise than the rounded rates tools print beside them."""
        return cls(iops=ops / runtime_s, bw_bytes=ops * op_bytes / runtime_s,
                   io_bytes=ops * op_bytes, total_ios=ops, runtime_ms=runtime_s * 1000, **extra)


class SeriesPoint(BaseModel):
    """One interval of a tool's own per-second report (rados bench, rbd bench, fio logs)."""

    model_config = MODEL

    t_s: float  # seconds since the start of the measurement, end of the interval
    iops: float | None = None
    bw_bytes: float | None = None
    lat_mean_ns: float | None = None  # mean latency of the interval, when the tool gives it


class Cpu(BaseModel):
    model_config = MODEL

    usr_pct: float
    sys_pct: float


class IoRecord(RecordBase):
    """A fio job (or group, or client) result."""

    type: Literal["io"] = "io"
    tool: str = "fio"
    tool_version: str | None = None
    source_format: str | None = None  # json, json+, normal, terse, client-json ...
    job: str
    host: str | None = None
    groupid: int | None = None
    jobs: int | None = None  # jobs merged into this record (group_reporting, numjobs)
    workload: dict[str, Any] = Field(default_factory=dict)
    read: IoStats = Field(default_factory=IoStats)
    write: IoStats = Field(default_factory=IoStats)
    trim: IoStats | None = None
    cpu: Cpu | None = None
    error: int = 0
    error_message: str | None = None
    series: list[SeriesPoint] | None = None  # the tool's per-second figures, when it prints them

    def directions(self) -> list[tuple[str, IoStats]]:
        """The directions that did I/O, in read/write/trim order."""
        out = [(n, s) for n, s in (("read", self.read), ("write", self.write)) if s.active]
        if self.trim is not None and self.trim.active:
            out.append(("trim", self.trim))
        return out


class OpsRecord(RecordBase):
    """A metadata operation rate, e.g. file creates per second."""

    type: Literal["ops"] = "ops"
    tool: str = "fio"
    tool_version: str | None = None
    operation: str  # create, stat, delete, ...
    ops_per_s: float
    total_ops: int | None = None
    runtime_ms: float | None = None
    jobs: int | None = None
    files_per_job: int | None = None
    layout: str | None = None  # easy (a directory per process) or hard (one shared directory)
    lat_ns: dict[str, float] = Field(default_factory=dict)
    host: str | None = None
    error: int = 0
    error_message: str | None = None


class MemBwRecord(RecordBase):
    """Memory bandwidth of one operation, as measured by the named tool."""

    type: Literal["membw"] = "membw"
    tool: str  # sysbench, mbw, stress-ng
    tool_version: str | None = None
    operation: str  # read, write, copy, triad, ...
    bw_bytes: float
    threads: int | None = None
    block_bytes: int | None = None
    total_bytes: int | None = None
    host: str | None = None
    fallback: str | None = None  # what it stands in for: 'STREAM: hpcc or mpirun not found on h2'


class NetRecord(RecordBase):
    """A network transfer between two endpoints."""

    type: Literal["net"] = "net"
    tool: str = "iperf3"
    tool_version: str | None = None
    client: str | None = None
    server: str | None = None
    protocol: str | None = None
    streams: int | None = None
    reverse: bool | None = None
    duration_s: float | None = None
    sent_bps: float | None = None  # bits/s, as network people quote them
    received_bps: float | None = None
    retransmits: int | None = None
    error: str | None = None


class PingRecord(RecordBase):
    """`ping` from one host to another: loss and round-trip times (nanoseconds)."""

    type: Literal["ping"] = "ping"
    tool: str = "ping"
    tool_version: str | None = None
    client: str | None = None  # the host that pinged
    server: str | None = None  # the address (or host) it pinged
    transmitted: int = 0
    received: int = 0
    errors: int = 0  # ICMP errors that came back instead of replies
    loss_pct: float = 0.0
    rtt_ns: dict[str, float] = Field(default_factory=dict)  # min/avg/max/mdev; empty: no reply
    error: str | None = None


class CpuRecord(RecordBase):
    """CPU throughput of one stress-ng stressor: bogo operations per second.

    Bogo ops are only comparable between runs of the same stressor, stress-ng version and
    worker count — which is what node-to-node consistency needs."""

    type: Literal["cpu"] = "cpu"
    tool: str = "stress-ng"
    tool_version: str | None = None
    stressor: str  # matrix, cpu, fft, ...
    workers: int | None = None
    bogo_ops: int
    seconds: float  # real time of the run
    bogo_ops_per_s: float  # per real second, all workers together
    bogo_ops_per_cpu_s: float | None = None  # per second of usr+sys CPU time
    host: str | None = None
    fallback: str | None = None  # what it stands in for: 'HPL: hpcc or mpirun not found on h2'


class OsdBenchRecord(RecordBase):
    """`ceph tell osd.N bench`: one OSD writing through its own object store."""

    type: Literal["osd_bench"] = "osd_bench"
    tool: str = "ceph tell osd bench"
    osd: int
    bytes_written: int
    block_bytes: int
    elapsed_s: float
    bw_bytes: float
    iops: float
    host: str | None = None  # the OSD's host in the CRUSH map, when known
    device_class: str | None = None


class CephInventoryRecord(RecordBase):
    """What a Ceph cluster is: health, OSDs, pools used, versions (parsers/ceph_inventory.py)."""

    type: Literal["ceph_inventory"] = "ceph_inventory"
    fsid: str | None = None
    health: str | None = None
    checks: dict[str, str] = Field(default_factory=dict)  # health check code -> message
    osds: list[dict[str, Any]] = Field(default_factory=list)  # id, host, device_class, up, in, weight
    hosts: list[str] = Field(default_factory=list)
    device_classes: dict[str, int] = Field(default_factory=dict)  # class -> OSD count
    pools: list[dict[str, Any]] = Field(default_factory=list)  # name, size, min_size, pg_num, ec ...
    raw_bytes: int | None = None
    raw_used_bytes: int | None = None
    versions: dict[str, dict[str, int]] = Field(default_factory=dict)  # daemon type -> version -> n
    mds_active: int | None = None


class SloRecord(RecordBase):
    """A latency-bounded maximum: the highest IOPS whose percentile met the limit, and every
    probe of the search (the knee curve). Probes' fio results are io records beside it."""

    type: Literal["slo"] = "slo"
    percentile: float  # e.g. 99.9
    latency: str  # "total" (fio lat) or "completion" (fio clat)
    limit_ns: float
    vary: str  # numjobs, iodepth or rate_iops
    answer: dict[str, Any] | None = None  # {setting, iops, latency_ns}; None: nothing met it
    probes: list[dict[str, Any]] = Field(default_factory=list)  # setting, iops, latency_ns, seconds, passed
    device_seconds: float = 0.0
    reason: str = ""
    host: str | None = None


class InventoryRecord(RecordBase):
    """What a host is made of; the body is documented in parsers/inventory.py."""

    type: Literal["inventory"] = "inventory"
    host: str | None = None
    cpu: dict[str, Any] = Field(default_factory=dict)
    memory: dict[str, Any] = Field(default_factory=dict)
    block_devices: list[dict[str, Any]] = Field(default_factory=list)
    nics: list[dict[str, Any]] = Field(default_factory=list)
    kernel: str | None = None
    os: str | None = None
    flags: list[str] = Field(default_factory=list)  # settings the seeds warn about
    # dmidecode's memory arrays and every slot, empty ones too (parsers/host/
    # dmidecode_memory.py): {"arrays": [...], "slots": [...]}; None: dmidecode not read
    dmi_memory: dict[str, Any] | None = None


class SummaryStat(BaseModel):
    """Max/min/mean/stddev over iterations, as IOR and mdtest print their summaries."""

    model_config = MODEL

    max: float | None = None
    min: float | None = None
    mean: float | None = None
    stddev: float | None = None


class IorRecord(RecordBase):
    """One access (write or read) of one IOR test (parsers/hpc/ior_text.py, ior_json.py).

    Bandwidths are bytes/s (IOR prints MiB/s = 2**20 bytes/s); `ops` are IOR's OPs/s
    (transfers per second). `iterations` holds IOR's per-iteration result rows."""

    type: Literal["ior"] = "ior"
    tool: str = "ior"
    tool_version: str | None = None
    source_format: str | None = None  # text, json; rank_csv: bw_bytes are per rank, over the ranks
    test: int | None = None  # the nth IOR test in the file (0-based), several runs in one file
    operation: str  # write, read
    api: str | None = None
    tasks: int | None = None
    nodes: int | None = None
    tasks_per_node: int | None = None
    repetitions: int | None = None
    file_per_process: bool | None = None
    transfer_bytes: int | None = None
    block_bytes: int | None = None
    segments: int | None = None
    aggregate_bytes: int | None = None  # what IOR moved (or expected to) over all tasks
    bw_bytes: SummaryStat = Field(default_factory=SummaryStat)
    ops: SummaryStat = Field(default_factory=SummaryStat)
    mean_time_s: float | None = None
    iterations: list[dict[str, float]] = Field(default_factory=list)  # bw_bytes, iops, latency_s, open_s, wrrd_s, close_s, total_s, iter
    stonewall: dict[str, float] = Field(default_factory=dict)  # time_s, pairs_min/max, task_bw_bytes ...
    warnings: list[str] = Field(default_factory=list)
    command: str | None = None
    path: str | None = None


class MdtestRecord(RecordBase):
    """One mdtest operation row of one summary (parsers/mdtest_text.py).

    `operation` is normalised ("file_create", "dir_stat", "tree_remove", ...); `label` is
    the row as mdtest printed it. Rates are ops/s; the time table, where printed, holds
    seconds per phase (mdtest 4.x heads it 'in ms/op' but prints seconds: rate × time gives
    the file count)."""

    type: Literal["mdtest"] = "mdtest"
    tool: str = "mdtest"
    tool_version: str | None = None
    test: int | None = None  # the nth mdtest run in the file (0-based)
    operation: str
    label: str
    rate: SummaryStat = Field(default_factory=SummaryStat)
    time_s: SummaryStat | None = None  # seconds per phase
    iterations: int | None = None
    tasks: int | None = None
    nodes: int | None = None
    items: int | None = None  # files (or directories) the run was set to create, all tasks
    stonewall: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    command: str | None = None
    path: str | None = None


class Io500Phase(BaseModel):
    """One phase of an IO500 run: a bandwidth phase (ior-*) or a metadata phase (mdtest-*,
    find). `value` is in `unit` as the file states it (GiB/s, GB/s, MB/s, kIOPS, IOPS)."""

    model_config = MODEL

    name: str  # normalised: ior-easy-write, mdtest-hard-stat, find, ...
    kind: Literal["bw", "md", "other"]
    value: float
    unit: str
    time_s: float | None = None
    scored: bool = True  # counted in the score (extra phases such as ior-rnd4K are not)
    details: dict[str, Any] = Field(default_factory=dict)  # command, stonewall figures, ...


class Io500Score(BaseModel):
    model_config = MODEL

    bw: float
    md: float
    total: float
    bw_unit: str
    md_unit: str
    # bw/md/total as the file printed them ("2.93392"): their last digit bounds the rounding
    # a recomputation may differ by (analysis/io500_score.py); None for a computed score
    printed: dict[str, str] | None = None


class Io500Record(RecordBase):
    """An IO500 run as its result files tell it, with the score recomputed.

    `official` is False for stackprobe's io500-like suite, whose label always says it is
    not an official IO500 score."""

    type: Literal["io500"] = "io500"
    tool: str = "io500"
    version: str | None = None  # io500-isc25_v1, io500.sh 2018, prototype 2017 ...
    source_format: str | None = None  # result_summary, result_ini, prototype, stackprobe
    official: bool = True
    label: str | None = None
    mode: str | None = None  # standard, extended ...
    procs: int | None = None
    valid: bool | None = None  # False: the tool marked the run [INVALID]; None: it never says
    phases: list[Io500Phase] = Field(default_factory=list)
    score_reported: Io500Score | None = None
    score_computed: Io500Score | None = None
    formula: str | None = None
    mismatches: list[str] = Field(default_factory=list)  # reported vs recomputed
    host: str | None = None


class CephReviewRecord(RecordBase):
    """One finding of the Ceph configuration review (analysis/ceph_review/): the rule, how
    bad, about what, the values behind it (command, field, value) and the docs section."""

    type: Literal["ceph_review"] = "ceph_review"
    rule: str
    severity: Literal["fail", "warn", "info"]
    subject: str
    message: str
    evidence: list[dict[str, str]] = Field(default_factory=list)
    doc_title: str
    doc_url: str


Record = Annotated[
    Union[IoRecord, OpsRecord, MemBwRecord, NetRecord, InventoryRecord, OsdBenchRecord,
          CephInventoryRecord, SloRecord, CpuRecord, PingRecord, IorRecord, MdtestRecord,
          Io500Record, CephReviewRecord, StreamRecord, HplRecord, HpccRecord, OsuRecord,
          PerftestRecord, MpiPairRecord, MpiStreamRecord, SoakPairRecord, NicCountersRecord,
          BmcRecord, LinkRecord, HealthRecord, SettingsRecord, ElbenchoPhaseRecord,
          ElbenchoLiveRecord, VdbenchRecord, SysbenchRecord, StorageSoakRecord],
    Field(discriminator="type"),
]
