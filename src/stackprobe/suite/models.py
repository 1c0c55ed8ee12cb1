"""Suite models: what a suite YAML may say, validated before anything runs.

A suite is a name, optional `defaults` (fio workload parameters shared by the fio and
metadata steps) and an ordered list of steps told apart by `kind`. Any workload
parameter given as a list is a sweep: the plan expands it into one step per combination.
Unknown keys are errors (a typo must not silently fall back to a default).
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from stackprobe.spec.fields import (
    FIO_RW,  # noqa: F401 - re-exported for users of the models
    Counts,
    Duration,
    Durations,
    Percent,
    Percents,
    RwModes,
    Scalar,
    Size,
    Sizes,
    as_list,
)

LAYERS = ("hardware", "disk", "network", "daemon", "cluster", "client")
Target = Literal["local", "rbd", "cephfs"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FioParams(_Strict):
    """fio workload parameters; every one may be a list (a sweep)."""

    rw: RwModes | None = None
    bs: Sizes | None = None
    iodepth: Counts | None = None
    numjobs: Counts | None = None
    rwmixread: Percents | None = None
    size: Sizes | None = None
    runtime: Durations | None = None
    ramp_time: Durations | None = None
    ioengine: str | list[str] | None = None
    direct: int | list[int] | None = None
    time_based: bool | None = None
    # Where the workload runs: the --target directory ('local'), an RBD image (fio's rbd
    # engine) or a CephFS mount; each is created for the run and removed after it.
    # (Not named 'on': YAML reads that key as the boolean true.)
    target: Target | list[Target] | None = None
    # Any other fio option, passed through as `key=value` in the job file.
    options: dict[str, Scalar | list[Scalar]] = Field(default_factory=dict)

    @field_validator("options")
    @classmethod
    def _options(cls, v):
        for key, value in v.items():
            if key in ("directory", "name"):
                raise ValueError(f"'{key}' is set by stackprobe (the target directory)")
            if key == "filename":
                for item in as_list(value):
                    text = str(item)
                    if text.startswith("/") or ".." in text.split("/"):
                        raise ValueError(
                            "filename must be a relative path inside the target directory"
                        )
        return v


class _StepBase(_Strict):
    name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.{}-]*$")
    title: str | None = None
    layer: Literal["hardware", "disk", "network", "daemon", "cluster", "client"] | None = None
    # Run on the hosts of --hosts FILE: 'all', a role, a host name, or a list of them.
    # Per-node kinds run on each host at once; fio drives them as one fleet (fio's own
    # client/server); network measures every pair among them.
    hosts: str | list[str] | None = None
    # How long the step may take before its tool is stopped (by PID) and the suite goes on;
    # default: twice the estimate plus two minutes (a hung tool still ends).
    timeout: Duration | None = None


class Repeat(_Strict):
    """Run a step several times: `repeat: 5`, or adaptively `repeat: {min: 3, max: 10,
    cov: 0.05}` — repeat while the headline figure's coefficient of variation exceeds cov."""

    min: int = Field(default=3, ge=1, le=100)
    max: int = Field(default=10, ge=1, le=100)
    cov: float = Field(default=0.05, gt=0, lt=1)

    @model_validator(mode="after")
    def _ordered(self):
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        return self


class _Measured(_StepBase):
    """A step that measures (not an inventory): it may repeat."""

    repeat: Annotated[int, Field(ge=1, le=100)] | Repeat | None = None


class InventoryStep(_StepBase):
    """What the machine is: CPU, memory, disks, NICs, kernel, risky settings."""

    kind: Literal["inventory"]


class MemoryStep(_Measured):
    """Memory bandwidth with sysbench, mbw or stress-ng (the result names the tool)."""

    kind: Literal["memory"]
    tool: Literal["auto", "sysbench", "mbw", "stress-ng"] = "auto"
    operations: list[Literal["read", "write"]] = Field(default_factory=lambda: ["read", "write"])
    threads: int | Literal["auto"] = "auto"
    size: Size = "8G"  # sysbench: bytes per operation; mbw: array size
    # sysbench: each thread's buffer; must exceed the CPU caches or caches are measured
    block_size: Size = "256M"
    seconds: float = Field(default=5.0, gt=0)  # cap per operation (stress-ng needs >= 10)


class SteadySpec(_Strict):
    """SNIA PTS steady state over fio's per-interval IOPS: in a window of `window` intervals,
    max - min <= `range` of the window's mean and the least-squares trend's excursion <=
    `slope` of it. stop: end the step once steady (the time saved is recorded);
    otherwise the step is only marked steady / not steady."""

    window: int = Field(default=5, ge=3, le=100)
    range: float = Field(default=0.20, gt=0, lt=1)
    slope: float = Field(default=0.10, gt=0, lt=1)
    interval: int = Field(default=1, ge=1, le=60)  # seconds between fio status reports
    stop: bool = False


class AdviceSpec(_Strict):
    """For a sweep: advise the best setting whose latency percentile meets a limit."""

    limit: Duration
    percentile: float = Field(default=99.0, gt=0, lt=100)


class FioStep(_Measured, FioParams):
    """One fio workload from parameters, or the user's own job file run unchanged."""

    kind: Literal["fio"]
    job_file: str | None = None
    headline: Literal["auto", "iops", "bw", "lat"] = "auto"
    steady_state: SteadySpec | None = None
    advice: AdviceSpec | None = None

    @model_validator(mode="after")
    def _job_file_alone(self):
        if self.job_file is not None:
            given = [k for k in FioParams.model_fields if getattr(self, k) not in (None, {})]
            if given:
                raise ValueError(
                    f"job_file runs unchanged: remove {', '.join(given)} (set them in the file)"
                )
        return self


class SloStep(_Measured, FioParams):
    """The highest IOPS with a latency percentile within a limit (seed 000's search, done
    adaptively). The fio parameters describe the workload; `vary` is what the search
    raises: numjobs (iodepth fixed), iodepth (numjobs fixed) or rate_iops (the offered
    load in IOPS, with the workload's numjobs and iodepth). `runtime` is per probe."""

    kind: Literal["slo"]
    percentile: float = Field(default=99.9, gt=0, lt=100)
    limit: Duration
    latency: Literal["total", "completion"] = "total"
    vary: Literal["numjobs", "iodepth", "rate_iops"] = "numjobs"
    min: int = Field(default=1, ge=1)
    max: int = Field(default=64, ge=1)
    tolerance: float = Field(default=0.05, gt=0, lt=1)

    @model_validator(mode="after")
    def _bounds(self):
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        if self.vary in ("numjobs", "iodepth") and getattr(self, self.vary) is not None:
            raise ValueError(f"{self.vary} is what the search varies: set min and max instead")
        return self


class CpuStep(_Measured):
    """CPU throughput: stress-ng's matrix (or another) stressor on every CPU of the host."""

    kind: Literal["cpu"]
    stressor: Literal["matrix", "cpu", "fft", "float"] = "matrix"
    seconds: int = Field(default=10, ge=1, le=3600)
    workers: int | Literal["auto"] = "auto"


class DiskBaselineStep(_Measured):
    """Each declared device or directory of a host alone, then all of them at once; a host
    whose aggregate is below `min_aggregate` of the sum of its singles is flagged (a shared
    HBA, backplane or PCIe link caps them: seed 001's 36 disks at 2 GB/s)."""

    kind: Literal["disk_baseline"]
    rw: Literal["read", "randread", "write", "randwrite"] = "read"
    bs: Size = "1M"
    iodepth: int = Field(default=16, ge=1)
    size: Size = "1G"  # per directory: the file laid out and read; devices are read in place
    runtime: Duration = 10
    min_aggregate: float = Field(default=0.70, gt=0, le=1)


class NetworkStep(_StepBase):
    """iperf3 between every ordered pair of the hosts (or `pairs` random ones), with ping
    latency; slow, asymmetric and failed pairs are flagged."""

    kind: Literal["network"]
    seconds: int = Field(default=5, ge=1, le=600)
    streams: int = Field(default=1, ge=1, le=128)
    reverse: bool = False
    pairs: Literal["all"] | Annotated[int, Field(ge=1)] = "all"
    slow_fraction: float = Field(default=0.7, gt=0, le=1)  # of the expected link speed
    asymmetry: float = Field(default=1.5, gt=1)  # A->B over B->A that is flagged
    port: int = Field(default=5201, ge=1024, le=65535)


class CephInventoryStep(_StepBase):
    """The cluster as it is: ceph -s, osd tree, df, pool details, versions."""

    kind: Literal["ceph_inventory"]


class OsdBenchStep(_Measured):
    """`ceph tell osd.N bench` on every OSD; flags OSDs slower than their class's median."""

    kind: Literal["osd_bench"]
    bytes: Size = "1G"
    block_size: Size = "4M"
    threshold_pct: float = Field(default=20.0, gt=0, lt=100)


class RadosBenchStep(_Measured):
    """`rados bench`: a write that leaves its objects, then seq and rand reads of them."""

    kind: Literal["rados_bench"]
    block_size: Sizes = "4M"
    threads: Counts = 16
    seconds: float = Field(default=10.0, gt=0)
    modes: list[Literal["write", "seq", "rand"]] = Field(
        default_factory=lambda: ["write", "seq", "rand"], min_length=1
    )


class RbdBenchStep(_Measured):
    """`rbd bench` on an image stackprobe creates (and fills) for the run."""

    kind: Literal["rbd_bench"]
    io_type: Literal["write", "read", "readwrite"] | list[Literal["write", "read", "readwrite"]] = "write"
    io_pattern: Literal["seq", "rand"] | list[Literal["seq", "rand"]] = "rand"
    io_size: Sizes = "4K"
    io_threads: Counts = 16
    io_total: Size = "1G"
    rw_mix_read: Percent = 70


class Stripe(_Strict):
    """Lustre striping for a directory (`lfs setstripe -c COUNT -S SIZE [-p POOL]`), applied
    when `lfs` exists on the host; elsewhere the step says it was not applied."""

    count: int = Field(default=1, ge=-1)  # -1: every OST
    size: Size | None = None  # stripe size, e.g. 1M
    pool: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+$")


class MetadataStep(_Measured):
    """File create/stat/read/delete rates with fio's filecreate/filestat/filedelete engines
    (read: one small read per file). layout 'easy' gives every process its own directory,
    'hard' puts every process's files in one shared directory."""

    kind: Literal["metadata"]
    files: Counts = 2000  # per job
    numjobs: Counts = 1
    file_size: Size = "4k"
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
        if self.hosts is not None and "cephfs" in targets:
            raise ValueError("target cephfs is this machine's ceph-fuse mount; for many "
                             "clients mount the file system on each host and give directory:")
        if self.hosts is None and self.directory is not None:
            raise ValueError("directory: is for steps with hosts (a mount they all see); "
                             "on this machine use --target")
        return self


class Io500Step(_Measured):
    """The real IO500 (or IOR, or mdtest) binaries under the user's MPI launcher.

    tool io500: a config.ini is generated (datadir, resultdir, stonewall time, and any
    `settings` per section), run as `LAUNCHER io500 config.ini`, and its result files are
    ingested with the score recomputed. tool ior / mdtest: `LAUNCHER ior ARGS...` and its
    output parsed. Not packaged for Debian: the binaries must be installed by the user."""

    kind: Literal["io500"]
    tool: Literal["io500", "ior", "mdtest"] = "io500"
    binary: str | None = None  # path of the binary; default: the tool's name on PATH
    launcher: list[str] = Field(default_factory=lambda: ["mpirun", "-np", "2"])
    directory: str | None = None  # data directory; default: the step's scratch directory
    stonewall: Duration = "300s"  # io500 [global] stonewall time (300 s for a valid run)
    settings: dict[str, dict[str, Scalar]] = Field(default_factory=dict)  # ini section -> key -> value
    args: list[str] = Field(default_factory=list)  # ior / mdtest arguments
    stripe: dict[str, Stripe] = Field(default_factory=dict)  # data subdirectory -> striping


class Io500LikeStep(_Measured):
    """The IO500 phases from stackprobe's own steps (fio, find) on a directory, scored with
    the IO500 formula and always labelled 'io500-like, not an official IO500 score'.

    Sizes are per process: easy (large sequential files, one per process), hard (47008-byte
    transfers interleaved into one shared file), metadata easy (a directory per process) and
    hard (one shared directory, 3901-byte files), then a parallel find."""

    kind: Literal["io500_like"]
    target: Literal["local", "cephfs"] = "local"
    numjobs: int = Field(default=2, ge=1, le=256)
    easy_size: Size = "256m"  # bytes each process writes in ior-easy
    easy_bs: Size = "1m"
    hard_transfers: int = Field(default=2000, ge=1)  # 47008-byte writes per process
    md_easy_files: int = Field(default=5000, ge=1)  # per process
    md_hard_files: int = Field(default=2000, ge=1)  # per process
    direct: bool = False
    stripe: dict[str, Stripe] = Field(default_factory=dict)  # phase directory -> striping


Step = Annotated[
    Union[InventoryStep, MemoryStep, FioStep, MetadataStep, CephInventoryStep, OsdBenchStep,
          RadosBenchStep, RbdBenchStep, SloStep, CpuStep, DiskBaselineStep, NetworkStep,
          Io500Step, Io500LikeStep],
    Field(discriminator="kind"),
]

CEPH_KINDS = ("ceph_inventory", "osd_bench", "rados_bench", "rbd_bench")


class CephSettings(_Strict):
    """Which Ceph cluster to test and where stackprobe may write in it.

    conf: unset means --ceph-conf, else the lab cluster in .stackprobe/lab/ceph, else
    /etc/ceph/ceph.conf. pool: 'create' makes a pool for the run (removed afterwards);
    a name uses that existing pool, where stackprobe only adds (and then removes) its own
    objects and images.
    """

    conf: str | None = None
    keyring: str | None = None
    client: str = Field(default="admin", pattern=r"^[A-Za-z0-9_.-]+$")
    pool: str = Field(default="create", pattern=r"^[A-Za-z0-9_.-]+$")
    pg_num: int = Field(default=32, ge=1)
    pool_size: int | None = Field(default=None, ge=1, le=10)
    image_size: Size = "2G"  # the RBD image for rbd_bench and fio on rbd
    fs_name: str | None = None  # which CephFS to mount when the cluster has several


class Suite(_Strict):
    """A named, ordered list of steps."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    description: str | None = None
    defaults: FioParams = Field(default_factory=FioParams)
    ceph: CephSettings | None = None
    steps: list[Step] = Field(min_length=1)
