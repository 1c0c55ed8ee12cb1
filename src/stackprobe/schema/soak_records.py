"""Records of the network soak (`net_soak`): every chosen pair loaded at once for a long time.

Why a module of its own: a soak's record is not one transfer but a long series per pair,
kept bounded (at most a few hundred points however long the soak, each point a bucket's
mean with its slowest and fastest second), with the per-pair stability verdict and the NIC
and InfiniBand error counters of the hosts read before and after. Rates are bytes/s like
every series of the project (SeriesPoint), the pair's whole-run figures bits/s like
NetRecord's, as iperf3 and network people quote them.

Their base (schema/record_base.py) is the one every record shares.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stackprobe.schema.record_base import MODEL, RecordBase
from stackprobe.schema.storage_soak_records import SoakPeriod


class SoakPoint(BaseModel):
    """One bucket of a pair's per-second series: consecutive seconds merged when the soak
    has more seconds than the record keeps points."""

    model_config = MODEL

    t_s: float  # the end of the bucket's last second, since the soak's start
    seconds: int  # how many per-second intervals it merges
    bw_bytes: float  # their mean, bytes/s
    bw_min_bytes: float  # the slowest second in it
    bw_max_bytes: float  # the fastest second in it


class SoakPairRecord(RecordBase):
    """One ordered pair of a soak (data from `client` to `server`) over all its chunks."""

    type: Literal["net_soak"] = "net_soak"
    tool: str = "iperf3"
    tool_version: str | None = None
    client: str  # the sending host
    server: str  # the receiving host
    port: int | None = None  # the iperf3 server's port on `server`
    streams: int | None = None
    chunks: int = 0  # chunks that gave figures
    chunks_failed: int = 0  # chunks whose iperf3 reported an error or nothing readable
    seconds: int = 0  # per-second intervals measured, over all chunks
    mean_bps: float | None = None  # bits/s over every second measured
    min_bps: float | None = None  # the slowest second
    max_bps: float | None = None
    retransmits: int | None = None  # summed over the chunks (TCP, sender side)
    cov: float | None = None  # coefficient of variation of the per-second rates
    stability: str | None = None  # analysis/stability.py: stable | fluctuating | stalled
    verdict: str = "failed"  # stable | unstable | failed (analysis/soak.py)
    flags: list[str] = Field(default_factory=list)  # slow, counters, chunk errors
    notes: list[str] = Field(default_factory=list)  # one sentence per flag, same order
    points: list[SoakPoint] = Field(default_factory=list)  # bounded, see SoakPoint
    period_s: float | None = None  # the length of the periods judged alone
    periods: list[SoakPeriod] = Field(default_factory=list)  # each judged alone, in order
    error: str | None = None  # the last chunk error, or why the pair gave nothing


class NicCountersRecord(RecordBase):
    """A host's error and drop counters over the soak: what grew between the reads before
    and after (NIC statistics and, where present, InfiniBand port counters)."""

    type: Literal["nic_counters"] = "nic_counters"
    tool: str = "sysfs"
    host: str
    nics: list[str] = Field(default_factory=list)  # the interfaces and IB ports read
    # counter -> growth, only counters that grew ('eth0 rx_dropped', 'mlx5_0/1 symbol_error')
    deltas: dict[str, int] = Field(default_factory=dict)
    counters: int = 0  # counters read at both ends of the soak
    error: str | None = None  # a read failed: the deltas are not known
