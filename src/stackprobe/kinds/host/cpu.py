"""The `cpu` kind: stress-ng's `--metrics-brief` bogo ops/s of one stressor.

`matrix` (the default) exercises floating point and memory like the HPL-style loads the
seeds ran; the figure is only compared with other runs of the same stressor, worker count
and stress-ng version — which is what telling one node from its twins needs. Workers
`auto` is stress-ng's 0: one per online CPU. stress-ng writes everything on stderr.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from stackprobe.kinds.compare import ComparesNodes
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import HostMode, Kind
from stackprobe.kinds.host.stress_ng import STRESS_NG
from stackprobe.parsers.host.stress_ng_cpu import parse_stress_ng_cpu
from stackprobe.schema.records import CpuRecord
from stackprobe.spec.steps import MeasuredSpec
from stackprobe.tables.rows import per_host_rows, record_rows


class CpuStep(MeasuredSpec, ComparesNodes):
    """CPU throughput: stress-ng's matrix (or another) stressor on every CPU of the host."""

    kind: Literal["cpu"]
    stressor: Literal["matrix", "cpu", "fft", "float"] = "matrix"
    seconds: int = Field(default=10, ge=1, le=3600)
    workers: int | Literal["auto"] = "auto"


def stress_ng_cpu_argv(stressor: str, workers: int, seconds: int) -> list[str]:
    return ["stress-ng", f"--{stressor}", str(workers), "--timeout", f"{seconds}s",
            "--metrics-brief"]


class CpuRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: CpuStep = ctx.step.spec
        workers = 0 if spec.workers == "auto" else int(spec.workers)
        result = ctx.execute("stress-ng", stress_ng_cpu_argv(spec.stressor, workers, spec.seconds))
        if result.interrupted:
            return StepOutcome.stopped()
        if not result.ok:
            return StepOutcome("failed", [], failure_message(result, "stress-ng"))
        try:
            records = parse_stress_ng_cpu(result.stderr, host=ctx.transport.host)
        except ValueError as exc:
            return StepOutcome("failed", [], f"stress-ng: {exc}")
        return StepOutcome("ok", list(records))

    def cleanup(self, ctx: StepContext) -> None:
        pass


class Cpu(Kind):
    name = "cpu"
    spec = CpuStep
    layer = "hardware"
    family = "host"
    hosts = HostMode.EACH
    tools = (STRESS_NG,)
    records = (CpuRecord,)
    duration_fields = ("seconds",)
    titled_rows = False

    def title(self, spec: CpuStep, name):
        return f"CPU throughput (stress-ng {spec.stressor})"

    def headline(self, spec):
        return "ops"

    def estimate_s(self, spec: CpuStep, hosts):
        return float(spec.seconds) + 1.0

    def runner(self):
        return CpuRunner()

    def rows(self, step):
        workload = self.workload_text(step.params)
        return per_host_rows(step, workload) or record_rows(step, workload)


KIND = Cpu()
