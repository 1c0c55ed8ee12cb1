"""The CPU throughput runner: stress-ng's `--metrics-brief` bogo ops/s of one stressor.

`matrix` (the default) exercises floating point and memory like the HPL-style loads the
seeds ran; the figure is only compared with other runs of the same stressor, worker count
and stress-ng version — which is what telling one node from its twins needs. Workers
`auto` is stress-ng's 0: one per online CPU. stress-ng writes everything on stderr.
"""

from __future__ import annotations

from stackprobe.parsers.host.stress_ng_cpu import parse_stress_ng_cpu
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message


def stress_ng_cpu_argv(stressor: str, workers: int, seconds: int) -> list[str]:
    return ["stress-ng", f"--{stressor}", str(workers), "--timeout", f"{seconds}s",
            "--metrics-brief"]


class CpuRunner:
    kind = "cpu"

    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        p = ctx.step.params
        workers = 0 if p["workers"] == "auto" else int(p["workers"])
        result = ctx.execute("stress-ng", stress_ng_cpu_argv(p["stressor"], workers,
                                                             int(p["seconds"])))
        if result.interrupted:
            return StepOutcome("interrupted", [], "stopped by the user")
        if not result.ok:
            return StepOutcome("failed", [], failure_message(result, "stress-ng"))
        try:
            records = parse_stress_ng_cpu(result.stderr, host=ctx.transport.host)
        except ValueError as exc:
            return StepOutcome("failed", [], f"stress-ng: {exc}")
        return StepOutcome("ok", list(records))

    def cleanup(self, ctx: StepContext) -> None:
        pass
