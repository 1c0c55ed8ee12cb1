"""Records of a storage soak: a fio or rados bench step run for hours in chunks (`soak:`).

Why a record of its own beside the step's IoRecord (which holds the whole soak's figures,
merged over every chunk): a day of per-second figures must stay small in results.json and
in the controller's memory. The soak record keeps

- `points`: the per-second series, bounded - every second of the first and the last
  `keep_s` seconds, and in between buckets of `bucket_s` seconds (widened as the soak
  grows so there are never more than a fixed number), each with its mean, slowest and
  fastest second, so a one-second dip or stall stays visible;
- `periods`: the stability rule (analysis/stability.py) applied to each period (an hour
  by default) on its own, and the period's mean, CoV, slowest second and stalls;
- `chunks`: each chunk's figures (its mean rate, latency, status) - a chunk is one run
  of the tool, its raw output kept gzip-compressed under the step's `chunks/`.

Rates are base units like every series of the project: IOPS in ops/s, bandwidth bytes/s.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stackprobe.schema.record_base import MODEL, RecordBase


class SoakSample(BaseModel):
    """One point of the kept series: a second, or a bucket of consecutive seconds."""

    model_config = MODEL

    t_s: float  # the end of its last second, since the soak's start
    seconds: int  # how many per-second intervals it holds (1: a second kept as it was)
    iops: float | None = None  # their mean
    iops_min: float | None = None
    iops_max: float | None = None
    bw_bytes: float | None = None
    bw_min_bytes: float | None = None
    bw_max_bytes: float | None = None


class SoakPeriod(BaseModel):
    """One period of the soak (an hour unless the step says otherwise), judged alone."""

    model_config = MODEL

    index: int  # 0: the first period
    start_s: float
    end_s: float  # the last second measured in it
    seconds: int  # per-second intervals measured in it
    metric: str  # iops or bw_bytes: what the rule judged
    mean: float
    median: float
    min: float  # the slowest second
    max: float
    cov: float | None = None
    dip_seconds: int = 0  # seconds below dip_fraction x the period's median
    stall_seconds: int = 0  # seconds with no I/O
    verdict: str  # stable | fluctuating | stalled (analysis/stability.py)
    sentence: str = ""


class SoakChunk(BaseModel):
    """One run of the tool inside the soak."""

    model_config = MODEL

    index: int  # 0: the first chunk
    start_s: float  # when it started, since the soak's start
    seconds: float  # how long it ran (wall time of the command)
    status: str  # ok | failed | interrupted
    iops: float | None = None  # every direction together
    bw_bytes: float | None = None
    lat_mean_ns: float | None = None
    lat_p99_ns: float | None = None
    raw: str | None = None  # the gzip-compressed output, relative to the step's directory
    error: str | None = None


class StorageSoakRecord(RecordBase):
    """A storage soak over all its chunks: bounded series, periods, chunks, verdict."""

    type: Literal["storage_soak"] = "storage_soak"
    tool: str  # fio | rados
    job: str  # the workload's name (fio's job, 'rand' for rados bench reads)
    host: str | None = None
    data_bytes: int | None = None  # the bounded data set every chunk works over
    chunks_planned: int = 0
    chunks_run: int = 0
    chunks_failed: int = 0
    seconds: int = 0  # per-second intervals measured over every chunk
    metric: str = "iops"  # what the verdicts judged: iops or bw_bytes
    mean: float | None = None  # of `metric` over every second measured
    min: float | None = None
    max: float | None = None
    cov: float | None = None  # over every second measured
    period_s: float = 3600.0
    keep_s: float = 0.0  # per-second points kept at each end
    bucket_s: float = 60.0  # the width of the middle buckets, as it ended
    verdict: str = "failed"  # stable | fluctuating | stalled | failed: the worst period's
    flags: list[str] = Field(default_factory=list)  # period drift, chunk errors
    notes: list[str] = Field(default_factory=list)
    periods: list[SoakPeriod] = Field(default_factory=list)
    chunks: list[SoakChunk] = Field(default_factory=list)
    points: list[SoakSample] = Field(default_factory=list)
    error: str | None = None
