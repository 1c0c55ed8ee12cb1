"""Records of the peers' benchmark tools that `stackprobe ingest` reads: elbencho, vdbench,
sysbench (cpu, fileio).

Why records of their own: these tools print figures in their own terms (elbencho's "first
done" and "last done" columns, vdbench's run definitions and its `avg_` line, sysbench's
events and latency in ms), and forcing them into fio's IoRecord would lose what the file
says or invent what it does not. Each record keeps the figures under the label the tool
printed, so the terminal shows what the file shows; the few figures a reader quotes have
named fields too.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stackprobe.schema.record_base import MODEL, RecordBase

Param = str | int | float


class ElbenchoPhaseRecord(RecordBase):
    """One phase (WRITE, READ, MKDIRS, RMFILES, SYNC, ...) of an elbencho result table or
    one row of its --csvfile.

    `first` and `last` hold the "FIRST DONE" and "LAST DONE" columns by the label printed
    ('Elapsed ms', 'IOPS', 'Throughput MiB/s', 'Files/s', 'Total MiB'; in a CSV file the
    column name without its '[first]'/'[last]': 'time ms', 'MiB/s', 'entries/s').
    """

    type: Literal["elbencho_phase"] = "elbencho_phase"
    tool: str = "elbencho"
    tool_version: str | None = None
    source_format: str  # 'result table' (stdout, --resfile) or 'csv' (--csvfile)
    block: int  # the table's place in the file (1, 2, ...): a service-mode log holds many
    phase: str
    date: str | None = None  # elbencho's ISO date, as printed
    first: dict[str, float] = Field(default_factory=dict)
    last: dict[str, float] = Field(default_factory=dict)
    latency_us: dict[str, float] = Field(default_factory=dict)  # 'IO lat avg', 'IO latency max'
    params: dict[str, Param] = Field(default_factory=dict)  # threads, hosts, block size, ...
    command: str | None = None


class ElbenchoLivePoint(BaseModel):
    """One line of elbencho's --livecsv: the figures of one interval."""

    model_config = MODEL

    runtime_ms: float
    done_pct: float | None = None
    done_bytes: float | None = None
    mib_s: float | None = None
    iops: float | None = None
    entries: float | None = None
    entries_s: float | None = None
    active: float | None = None  # threads still working
    cpu_pct: float | None = None


class ElbenchoLiveRecord(RecordBase):
    """elbencho's --livecsv: the time series of one phase for one rank ('Total' or a host)."""

    type: Literal["elbencho_live"] = "elbencho_live"
    tool: str = "elbencho"
    phase: str
    rank: str
    label: str | None = None
    points: list[ElbenchoLivePoint] = Field(default_factory=list)


class VdbenchLine(BaseModel):
    """One line of vdbench's report: an interval, or its `avg_`, `std_` or `max_` line.

    `columns` holds every column by the name the file gives it (flatfile's header names,
    or the two header lines of summary.html joined: 'i/o rate', 'resp max'); a column
    printed 'n/a' or left blank is absent. Response times are in ms, MB/sec in MiB/s
    (vdbench's MB is 1024*1024), as vdbench prints them.
    """

    model_config = MODEL

    label: str  # '1', '2', ... or 'avg_2-60', 'std_2-60', 'max_2-60'
    time: str | None = None  # vdbench's time of day
    iops: float | None = None
    mib_s: float | None = None
    bytes_per_io: float | None = None
    read_pct: float | None = None
    resp_ms: float | None = None
    resp_max_ms: float | None = None
    resp_std_ms: float | None = None
    queue_depth: float | None = None
    columns: dict[str, float] = Field(default_factory=dict)


class VdbenchRecord(RecordBase):
    """One vdbench run definition (RD) of a summary.html, totals.html or flatfile.html."""

    type: Literal["vdbench_run"] = "vdbench_run"
    tool: str = "vdbench"
    tool_version: str | None = None
    source_format: str  # 'summary', 'totals', 'flatfile'
    rd: str
    description: str | None = None  # the 'Starting RD=...' line
    intervals: list[VdbenchLine] = Field(default_factory=list)
    totals: list[VdbenchLine] = Field(default_factory=list)  # avg_, std_, max_ lines

    @property
    def avg(self) -> VdbenchLine | None:
        """The figures a reader of the file quotes: vdbench's `avg_` line."""
        return next((t for t in self.totals if t.label.startswith("avg")), None)


class SysbenchRecord(RecordBase):
    """`sysbench cpu run` or `sysbench fileio ... run` as saved: its rates, its events and
    its latency (ms, as printed: min, avg, max, 95th percentile, sum)."""

    type: Literal["sysbench"] = "sysbench"
    tool: str = "sysbench"
    tool_version: str | None = None
    test: str  # 'cpu', 'fileio'
    threads: int | None = None
    settings: dict[str, str] = Field(default_factory=dict)  # the lines of its settings block
    events_per_s: float | None = None
    total_time_s: float | None = None
    events: int | None = None
    latency_ms: dict[str, float] = Field(default_factory=dict)
    rates: dict[str, float] = Field(default_factory=dict)  # fileio: 'reads/s', 'read, MiB/s', ...
