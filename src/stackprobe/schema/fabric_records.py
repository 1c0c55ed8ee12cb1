"""Records of the fabric rung's point-to-point benchmarks: OSU Micro-Benchmarks and perftest.

Why a module of its own: both tools print one table per test, one row per message size,
and a table cut short must stay visibly cut (`complete: False`) with only the rows printed
whole. Figures are in base units, converted once by the parsers from each tool's printed
unit (docs/fabric.md): sizes in bytes, times in nanoseconds, rates in bytes/s and
messages/s.

Their base (schema/record_base.py) is the one every record shares.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stackprobe.schema.record_base import MODEL, RecordBase


class OsuRow(BaseModel):
    """One message size of an OSU test, in the columns that test printed."""

    model_config = MODEL

    size_bytes: int
    latency_ns: float | None = None  # 'Latency (us)' (5.x) or 'Avg Latency(us)' (7.x)
    min_latency_ns: float | None = None  # -f: 'Min Latency(us)'
    max_latency_ns: float | None = None  # -f: 'Max Latency(us)'
    bw_bytes: float | None = None  # bytes/s: OSU's MB/s is 10^6 bytes per second
    messages_per_s: float | None = None  # osu_mbw_mr's 'Messages/s'
    iterations: int | None = None  # -f: 'Iterations'
    validation: str | None = None  # -c: 'Pass' or 'Fail', as printed


class OsuRecord(RecordBase):
    """One OSU test run as printed: its banner, options lines and rows."""

    type: Literal["osu"] = "osu"
    tool: str = "osu-micro-benchmarks"
    benchmark: str | None = None  # osu_latency, osu_bw, osu_bibw, osu_mbw_mr, ...; None: not known
    title: str  # 'OSU MPI Latency Test', from the banner
    tool_version: str | None = None  # '5.6.2', '7.3'
    run: int = 0  # the nth OSU run in the file (0-based)
    datatype: str | None = None  # 7.x: '# Datatype: MPI_CHAR.'
    pairs: int | None = None  # osu_mbw_mr: '# [ pairs: N ] [ window size: W ]'
    window_size: int | None = None
    columns: list[str] = Field(default_factory=list)  # the column header's names, as printed
    rows: list[OsuRow] = Field(default_factory=list)
    # False: the file ends inside this run's table; None: it ends after a whole row below
    # 4 MiB (cut there, or a run with a smaller -m: the file cannot tell)
    complete: bool | None = True
    host: str | None = None


class PerftestRow(BaseModel):
    """One message size of a perftest run: bandwidth columns or latency columns."""

    model_config = MODEL

    size_bytes: int
    iterations: int
    bw_peak_bytes: float | None = None  # bytes/s (MB and MiB: 2^20 B; Gb: 10^9 bit)
    bw_avg_bytes: float | None = None
    messages_per_s: float | None = None  # MsgRate[Mpps] x 10^6
    t_min_ns: float | None = None
    t_max_ns: float | None = None
    t_typical_ns: float | None = None
    t_avg_ns: float | None = None
    t_stdev_ns: float | None = None
    p99_ns: float | None = None
    p99_9_ns: float | None = None
    transactions_per_s: float | None = None  # duration mode (-D) latency: 'tps average'


class PerftestRecord(RecordBase):
    """One perftest test as its client printed it: the settings block and the table."""

    type: Literal["perftest"] = "perftest"
    tool: str = "perftest"
    benchmark: str | None = None  # ib_write_bw, ib_send_lat, ...; None: not known
    title: str  # 'RDMA_Write BW Test', as printed
    run: int = 0  # the nth perftest test in the file (0-based)
    device: str | None = None
    link_type: str | None = None  # 'IB', 'Ethernet'
    transport: str | None = None  # 'IB', ...
    connection: str | None = None  # 'RC', 'UC', 'UD', ...
    mtu_bytes: int | None = None
    qps: int | None = None
    tx_depth: int | None = None
    bw_unit: str | None = None  # the table's printed unit: 'MB/sec', 'MiB/sec' or 'Gb/sec'
    columns: list[str] = Field(default_factory=list)  # the result header's names, as printed
    rows: list[PerftestRow] = Field(default_factory=list)
    complete: bool = True  # False: the file ends before the line that closes the table
    host: str | None = None
    client: str | None = None  # the `rdma` step: the host that ran the client (it sends)
    server: str | None = None  # ... the host whose server it reached; None: ingested
    error: str | None = None  # the `rdma` step: why this pair gave no table


class MpiPingPongRow(BaseModel):
    """One message size of mpi4py's ping-pong: the mean of its timed round trips, halved."""

    model_config = MODEL

    size_bytes: int
    latency_ns: float  # 'Time Mean [s]': half a round trip (one way), in ns
    bw_bytes: float  # 'Bandwidth [MB/s]' (10^6 bytes/s): size over that half round trip
    stdev_ns: float | None = None  # 'StdDev [s]' of the halved round trips; None: --no-stats
    samples: int | None = None  # the timed round trips ('Samples'); None: --no-stats


class MpiStreamRow(BaseModel):
    """One message size of NetPIPE's streaming test: the best of its timed trials."""

    model_config = MODEL

    size_bytes: int
    repeats: int  # messages sent back to back in each timed trial
    time_us: float  # NetPIPE's 'usec': the trial's time over its messages, one message's share
    bw_bytes: float  # the size over that time, bytes/s (NetPIPE's 'Mbps' is 2^20 bits/s)


class MpiStreamRecord(RecordBase):
    """One-way MPI bandwidth from `client` (rank 0, the sender) to `server` (rank 1, the
    receiver): NetPIPE's streaming mode (`NPopenmpi -s`), messages sent in one direction
    only, so a link slow one way shows in one direction; or why it gave none (`error`)."""

    type: Literal["mpi_stream"] = "mpi_stream"
    tool: str = "NetPIPE NPopenmpi -s"
    client: str | None = None  # the sender's host
    server: str | None = None  # the receiver's host
    streaming: bool = True  # NetPIPE said 'Streaming in one direction only.'
    rows: list[MpiStreamRow] = Field(default_factory=list)
    complete: bool = True  # False: the output ends inside a row
    error: str | None = None  # the direction was not measured: the launcher's words
    host: str | None = None


class MpiPairRecord(RecordBase):
    """One ping-pong between two hosts (`python -m mpi4py.bench pingpong`, rank 0 on
    `client`, rank 1 on `server`); or why the pair gave none (`error`)."""

    type: Literal["mpi_pair"] = "mpi_pair"
    tool: str = "mpi4py.bench pingpong"
    client: str | None = None  # rank 0's host
    server: str | None = None  # rank 1's host
    run: int = 0  # the nth ping-pong table in the output (0-based)
    stats: bool = True  # the table had its time columns (not --no-stats)
    rows: list[MpiPingPongRow] = Field(default_factory=list)
    # False: the output ends inside the table; None: after a whole row below the largest
    # size asked for (or, not knowing it, below mpi4py's default 1 GiB)
    complete: bool | None = True
    error: str | None = None  # the pair was not measured: the launcher's or the check's words
    host: str | None = None
