"""The `stream` kind: STREAM copy, scale, add and triad per node, from Debian's hpcc.

Seed 004 found an MDS at two thirds of its twin's memory bandwidth (a DIMM not seated).
hpcc runs STREAM twice: StarSTREAM, every process at once, each on its own arrays, hpcc
printing the mean of their rates; SingleSTREAM, one process alone while the others wait.
The node's bandwidth is what all its cores draw together — StarSTREAM's mean times the
processes — and that is the figure shown and compared; one process alone (SingleSTREAM)
is bounded by one core's outstanding misses, not by the memory channels, and stays in
the record. The arrays are sized by hpcc from HPL's N (8 N^2 / processes bytes per
process, a third per array): N must make them far larger than the caches, so the default
N fills `memory_fraction` of RAM as for HPL. A run whose STREAM did not validate is a
failed step. How hpcc is sized and run: kinds/hpc/hpcc_common.py, hpcc_run.py.
"""

from __future__ import annotations

from typing import Literal

from stackprobe.kinds.context import StepOutcome
from stackprobe.kinds.host.memory import Memory
from stackprobe.kinds.host.memory_population_table import population_tables
from stackprobe.kinds.hpc.hpcc_common import HpccKind, HpccRunner, HpccSpec, others_failed
from stackprobe.kinds.hpc.hpcc_fallback import (
    MEMORY_TOOLS,
    FallsBack,
    fallback_needs,
    fallback_rows,
    memory_fallback,
)
from stackprobe.schema.hpc_records import HpccRecord
from stackprobe.schema.records import MemBwRecord
from stackprobe.tables.rows import Row, base, status_row

KERNELS = ("copy", "scale", "add", "triad")
OWN = ("StarSTREAM", "SingleSTREAM")


class StreamStep(HpccSpec, FallsBack):
    """STREAM on every core of each host at once (hpcc's StarSTREAM), summed per node."""

    kind: Literal["stream"]


def node_bandwidth(record: HpccRecord) -> dict[str, float]:
    """kernel -> the node's bytes/s: StarSTREAM's mean per process times the processes."""
    return {k: bw for k in KERNELS if (bw := record.node_stream_bytes(k)) is not None}


def decide(record: HpccRecord, sizes) -> StepOutcome:
    record.focus = "stream"
    bad = [s for s in OWN if record.checks.get(s) is False]
    if bad:
        return StepOutcome("failed", [record], f"hpcc: {', '.join(bad)} failed its validation: "
                           "no bandwidth is a result")
    if not node_bandwidth(record):
        return StepOutcome("failed", [record], "hpcc: no StarSTREAM result in its summary")
    return StepOutcome("ok", [record], warnings=others_failed(record, OWN))


def stream_rows(step) -> list[Row]:
    rows = []
    for r in (r for r in step.records if isinstance(r, HpccRecord)):
        where = f", {r.host}" if step.hosts and r.host else ""
        size = r.parameters.get("stream_array_elements")
        text = f"{r.procs} processes" + (f", {size} doubles per array" if size else "")
        for kernel, bw in node_bandwidth(r).items():
            rows.append(Row(test=f"STREAM {kernel} (all processes{where})", direction=kernel,
                            bw_bytes=bw, headline="bw", status=step.status,
                            note="; ".join(x for x in (r.blas or "", step.error or "") if x),
                            **base(step, text)))
    return rows + fallback_rows(step) or [status_row(step, "")]


class Stream(HpccKind):
    name = "stream"
    spec = StreamStep
    tools = (*HpccKind.tools, *Memory.tools)
    records = (HpccRecord, MemBwRecord)

    def title(self, spec, name):
        return "STREAM (hpcc)"

    def headline(self, spec):
        return "membw"

    def runner(self):
        return HpccRunner(decide, memory_fallback)

    def needs(self, spec):
        return fallback_needs(spec, MEMORY_TOOLS)

    def rows(self, step):
        return stream_rows(step)

    def tables(self, steps):
        """The DIMM population beside each node's triad, when an inventory came first."""
        return population_tables(steps)


KIND = Stream()
