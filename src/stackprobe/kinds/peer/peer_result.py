"""The `peer_result` kind: an elbencho, vdbench or sysbench file made a step of a run by
`stackprobe ingest --new/--into`, so the results engineers already have are shown,
compared, charted and kept in history beside stackprobe's own.

stackprobe does not run elbencho or vdbench (neither is packaged for Debian) and runs
sysbench through its own kinds (`memory`, `cpu`), so no suite plans this kind: it is left
out of the suite's Step union, and its runner, should anything reach it, refuses in one
line. What it declares is what an ingested step needs: its parameters (the tool and the
load its file states, which `compare` keys on: two elbencho files of the same threads,
block size and files pair), its layer, its records — the tool's own, kept as parsed, and
their figures in stackprobe's terms (peer_figures.py), which the summary, the rows and
`compare` read.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.kinds.contract import Kind
from stackprobe.kinds.peer.peer_figures import peer_figures
from stackprobe.schema.peer_records import (
    ElbenchoLiveRecord,
    ElbenchoPhaseRecord,
    SysbenchRecord,
    VdbenchRecord,
)
from stackprobe.schema.records import IoRecord, OpsRecord
from stackprobe.spec.steps import StepSpec
from stackprobe.tables.rows import record_rows

Value = str | int | float | bool


class PeerResultStep(StepSpec):
    """What an ingested file of another benchmark states about its load."""

    kind: Literal["peer_result"]
    tool: str = "elbencho"  # elbencho, vdbench, sysbench
    workload: dict[str, Value] = Field(default_factory=dict)  # as the file states it


class PeerResultRunner:
    """Nothing to run: the step's figures come from an ingested file."""

    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        return StepOutcome("failed", error="peer_result holds an ingested file's figures; "
                           "no suite runs it (stackprobe ingest FILE --new NAME makes one)")

    def cleanup(self, ctx: StepContext) -> None:
        pass


class PeerResult(Kind):
    name = "peer_result"
    spec = PeerResultStep
    layer = "client"
    family = "peer"
    in_suites = False
    records = (ElbenchoPhaseRecord, ElbenchoLiveRecord, VdbenchRecord, SysbenchRecord,
               IoRecord, OpsRecord)

    def default_name(self, spec: PeerResultStep) -> str:
        test = spec.workload.get("test")
        return f"{spec.tool}-{test}" if isinstance(test, str) else spec.tool

    def title(self, spec: PeerResultStep, name: str) -> str:
        return f"{name} (ingested)"

    def layer_of(self, spec: PeerResultStep) -> str:
        """sysbench cpu measures the host, sysbench fileio a filesystem on a disk; elbencho
        and vdbench are storage clients (vdbench on raw devices too, its file cannot say)."""
        if spec.tool == "sysbench":
            return "hardware" if spec.workload.get("test") == "cpu" else "disk"
        return self.layer

    def headline(self, spec: PeerResultStep) -> str | None:
        return "ops" if spec.tool == "sysbench" and spec.workload.get("test") == "cpu" else "iops"

    def estimate_s(self, spec: PeerResultStep, hosts: int) -> float:
        return 1.0  # nothing runs; the plan of an ingested step is never shown as a run

    def workload_text(self, params) -> str:
        load = params.get("workload") or {}
        shown = [f"{k} {v}" for k, v in load.items() if k in ("test", "rd", "threads", "block",
                                                             "block size", "threads per host")]
        return ", ".join([params.get("tool", ""), *shown[:4]])

    def rows(self, step):
        """Its operations named after the tool ('elbencho mkdirs', 'sysbench cpu events')."""
        return record_rows(step, self.workload_text(step.params),
                           ops_name=str(step.params.get("tool", "")))

    def ingested_records(self, records: list) -> list:
        return [*records, *peer_figures(records)]

    def runner(self):
        return PeerResultRunner()


KIND = PeerResult()
