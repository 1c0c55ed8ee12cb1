"""What the storage soaks share (`soak:` on fio and rados_bench steps): the suite's block,
and folding each chunk into bounded figures as soon as it ends.

A soak is hours of one workload over a bounded data set (fio's files or RBD image of the
step's `size`, rados bench's fixed object set), cut into chunks by kinds/chunked.py: each
chunk is one run of the tool, its output read, folded in (`SoakFold.add`) and kept
gzip-compressed on disk (`keep_gz`), then dropped from memory. What the controller holds
is bounded whatever the soak's length: the kept series (analysis/soak_series.py), the
running period's seconds, one histogram per direction (analysis/soak_io.py) and a line
per chunk. Only the first chunk's command is in the step's commands (the example of the
line every chunk ran); every chunk's raw output is under `chunks/`. docs/soak.md.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import Field

from stackprobe.analysis.soak_io import SoakTotals, chunk_figures
from stackprobe.analysis.soak_series import SoakSeries
from stackprobe.analysis.stability import COV_LIMIT, DIP_FRACTION
from stackprobe.kinds.chunked import chunk_lengths
from stackprobe.kinds.context import StepContext, StepOutcome, command_record
from stackprobe.kinds.contract import MONITOR_SEGMENT_S
from stackprobe.schema.records import IoRecord, SeriesPoint
from stackprobe.schema.storage_soak_records import SoakChunk, StorageSoakRecord
from stackprobe.spec.fields import Duration
from stackprobe.spec.steps import StrictModel
from stackprobe.store.rundir import atomic_write
from stackprobe.transport.base import CommandResult

CHUNKS_DIR = "chunks"
MAX_FAILED_IN_A_ROW = 3  # a tool that keeps failing ends the soak, saying why
MIN_CHUNK_S = 2.0  # a tool started again every chunk; tests use seconds


class SoakMonitoring:
    """What a kind with `soak:` tells the monitor (before Kind in its bases): read in
    segments from the start, each the soak's period or the monitor's ten minutes if
    shorter (a segment is parsed whole: an hour's took 90 MB at its peak), and keep as
    many whole seconds at each end as the soak keeps of its own series."""

    def monitor_segment_s(self, spec):
        if spec.soak is not None:
            return min(spec.soak.period.seconds, MONITOR_SEGMENT_S)
        return super().monitor_segment_s(spec)  # type: ignore[misc]

    def monitor_keep_s(self, spec):
        if spec.soak is not None:
            return spec.soak.keep.seconds
        return super().monitor_keep_s(spec)  # type: ignore[misc]


class SoakSpec(StrictModel):
    """Run the step's workload for `duration`, time-based over its bounded data set, in
    `chunk`s; each `period` judged on its own; `keep` seconds per-second at each end."""

    duration: Duration
    chunk: Duration = Duration.of("10m")
    period: Duration = Duration.of("1h")
    keep: Duration = Duration.of("10m")
    cov_limit: float = Field(default=COV_LIMIT, gt=0)
    dip_fraction: float = Field(default=DIP_FRACTION, gt=0, le=1)

    def lengths(self) -> list[float]:
        """Whole seconds per chunk (the tools take whole seconds)."""
        return [float(max(1, round(s))) for s in
                chunk_lengths(self.duration.seconds, self.chunk.seconds)]

    def problem(self) -> str | None:
        """What the block cannot mean, in words (the suite model says it with its line)."""
        if self.chunk.seconds < MIN_CHUNK_S:
            return f"soak chunk must be >= {MIN_CHUNK_S:g} s (each chunk starts the tool again)"
        if self.chunk.seconds > self.duration.seconds:
            return "soak chunk is longer than its duration"
        return None


@dataclass
class ChunkOutcome:
    """What one chunk gave: its records and per-second points on its own clock."""

    status: str  # ok | failed | interrupted
    records: list[IoRecord] = field(default_factory=list)
    points: list[SeriesPoint] = field(default_factory=list)
    error: str | None = None
    raw: str | None = None  # its compressed output, relative to the step's directory


class SoakFold:
    """Every chunk folded in as it ends; `outcome()` makes the step's records."""

    def __init__(self, ctx: StepContext, spec: SoakSpec, tool: str, data_bytes: int | None):
        self.ctx, self.spec, self.tool, self.data_bytes = ctx, spec, tool, data_bytes
        self.planned = len(spec.lengths())
        self.series = SoakSeries(keep_s=spec.keep.seconds, period_s=spec.period.seconds,
                                 dip_fraction=spec.dip_fraction, cov_limit=spec.cov_limit)
        self.totals = SoakTotals()
        self.chunks: list[SoakChunk] = []
        self.failed_in_a_row = 0
        self.job = ""
        self.t0 = time.monotonic()

    def clock(self) -> float:
        """Seconds since the soak started: every chunk's seconds on one clock."""
        return time.monotonic() - self.t0

    def add(self, index: int, start_s: float, seconds: float, got: ChunkOutcome) -> ChunkOutcome:
        for p in got.points:
            self.series.add(p.model_copy(update={"t_s": p.t_s + start_s}))
        figures: dict = {}
        for rec in got.records[:1]:  # group_reporting: one record per chunk
            self.job = self.job or rec.job
            if self.totals.add(rec):
                figures = chunk_figures(rec)
        self.chunks.append(SoakChunk(index=index, start_s=round(start_s, 3),
                                     seconds=round(seconds, 3), status=got.status,
                                     raw=got.raw, error=got.error, **figures))
        self.failed_in_a_row = self.failed_in_a_row + 1 if got.status == "failed" else 0
        # what the chunk run keeps of each chunk: its status, not its records (json+
        # histograms) and seconds, folded in above: kept, they grew the controller chunk
        # after chunk for the whole soak (bench/soak_cost.py: 69.6 -> 75.1 MB in 8 minutes)
        return ChunkOutcome(got.status, error=got.error, raw=got.raw)

    def should_end(self, got: ChunkOutcome) -> bool:
        """After a stop, or when the tool failed too often in a row (or at once)."""
        if got.status == "interrupted":
            return True
        never_worked = all(c.status == "failed" for c in self.chunks)
        return got.status == "failed" and (never_worked or
                                           self.failed_in_a_row >= MAX_FAILED_IN_A_ROW)

    def record(self) -> StorageSoakRecord:
        figures = self.series.figures()
        failed = [c for c in self.chunks if c.status == "failed"]
        if failed and figures["verdict"] != "failed":
            figures["flags"].append("chunk errors")
            figures["notes"].append(f"{len(failed)} of {len(self.chunks)} chunks failed "
                                    f"(chunk {failed[-1].index + 1}: {failed[-1].error})")
            if figures["verdict"] == "stable":
                figures["verdict"] = "fluctuating"
        return StorageSoakRecord(
            tool=self.tool, job=self.job or self.ctx.step.name, host=self.ctx.transport.host,
            data_bytes=self.data_bytes, chunks_planned=self.planned,
            chunks_run=len(self.chunks), chunks_failed=len(failed), chunks=self.chunks,
            error=failed[-1].error if failed else None, **figures)

    def outcome(self, stopped: bool, warnings: Sequence[str] = ()) -> StepOutcome:
        """The whole soak's IoRecord (the summary's figures) and the soak record."""
        soak = self.record()
        whole = self.totals.record()
        records = [r for r in (whole, soak) if r is not None]
        findings = {"soak": {"verdict": soak.verdict, "chunks": soak.chunks_run,
                             "chunks_planned": soak.chunks_planned,
                             "duration_s": self.spec.duration.seconds,
                             "chunk_s": self.spec.chunk.seconds,
                             "period_s": self.spec.period.seconds,
                             "periods": len(soak.periods), "seconds": soak.seconds}}
        notes = [f"soak: {soak.verdict} over {soak.seconds} s in {soak.chunks_run} chunk(s)"]
        warn = list(warnings) + soak.notes
        if stopped:
            return StepOutcome("interrupted", records, "stopped by the user", warn, notes=notes,
                               findings=findings)
        if whole is None:
            return StepOutcome("failed", records, soak.error or "no chunk measured", warn,
                               notes=notes, findings=findings)
        status = "partial" if soak.chunks_failed or soak.chunks_run < soak.chunks_planned else "ok"
        error = (f"{soak.chunks_failed} chunk(s) failed: {soak.error}" if soak.chunks_failed
                 else None)
        return StepOutcome(status, records, error, warn, notes=notes, findings=findings)


def keep_gz(ctx: StepContext, index: int, suffix: str, text: str) -> str:
    """A chunk's output compressed under the step's `chunks/` (secrets redacted first);
    its path relative to the step's directory."""
    folder = ctx.step_dir / CHUNKS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"chunk-{index + 1:04d}.{suffix}.gz"
    atomic_write(path, gzip.compress(ctx.run_dir.redactor.text(text).encode(), compresslevel=6))
    return str(path.relative_to(ctx.base_dir))


def keep_chunk_command(ctx: StepContext, index: int, result: CommandResult, raw: str) -> None:
    """The first chunk's command line in the step's commands (the others ran the same
    line); a chunk's stderr kept when it said something."""
    stderr = ""
    if result.stderr.strip() or index == 0:
        stderr = keep_gz(ctx, index, "stderr", result.stderr)
    if index == 0:
        ctx.commands.append(command_record(result, raw, stderr))
