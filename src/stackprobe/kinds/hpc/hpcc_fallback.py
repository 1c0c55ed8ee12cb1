"""What the `hpl` and `stream` steps measure on a host without hpcc or mpirun.

Why a fallback rather than a failed step: an acceptance run over a cluster where a few
nodes lack the HPC packages should still say something about those nodes' CPU and memory —
with the tools stackprobe used before hpcc: stress-ng's matrix stressor for `hpl`,
sysbench (or mbw, stress-ng) memory bandwidth for `stream`. The figure is not HPL's or
STREAM's: every record says what it stands in for (`fallback`), the row says so, the step
warns, and node comparison never mixes the two (they are different metrics,
analysis/node_figures.py). `fallback: false` makes a missing hpcc a failed step instead.
"""

from __future__ import annotations

import dataclasses

from pydantic import BaseModel, Field

from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.kinds.host.cpu import CpuRunner, CpuStep
from stackprobe.kinds.host.memory import PREFERENCE, MemoryRunner, MemoryStep
from stackprobe.spec.fields import Size
from stackprobe.spec.tools import AnyOf, Need
from stackprobe.tables.rows import Row, per_host_rows


class FallsBack(BaseModel):
    """The suite fields of a step that falls back to the older tools without hpcc."""

    fallback: bool = True  # measure with stress-ng / sysbench where hpcc or mpirun is absent
    fallback_seconds: int = Field(default=10, ge=1, le=3600)  # each fallback measurement


def fallback_needs(spec: FallsBack, tools: tuple[str, ...]) -> tuple[Need, ...]:
    """hpcc and mpirun, or (when the step may fall back) one of `tools` in their place."""
    if not spec.fallback:
        return ("hpcc", "mpirun")
    return (AnyOf(("hpcc", *tools)), AnyOf(("mpirun", *tools)))


CPU_TOOLS = ("stress-ng",)
MEMORY_TOOLS = PREFERENCE


def cpu_fallback(ctx: StepContext, why: str) -> StepOutcome:
    """stress-ng matrix on every CPU of the host, in place of HPL."""
    spec = ctx.step.spec
    stand_in = CpuStep(kind="cpu", stressor="matrix", seconds=spec.fallback_seconds)
    return _marked(CpuRunner().run(_as(ctx, stand_in)), "HPL", why, "stress-ng matrix")


def memory_fallback(ctx: StepContext, why: str) -> StepOutcome:
    """sysbench (mbw, stress-ng) read and write bandwidth of all CPUs, in place of STREAM."""
    spec = ctx.step.spec
    stand_in = MemoryStep(kind="memory", size=Size.of("64G"), seconds=float(spec.fallback_seconds) / 2)
    return _marked(MemoryRunner().run(_as(ctx, stand_in)), "STREAM", why, "memory bandwidth")


def _as(ctx: StepContext, spec) -> StepContext:
    """The same context (commands, directory, host) with the stand-in step's spec."""
    return dataclasses.replace(ctx, step=dataclasses.replace(ctx.step, spec=spec))


def _marked(outcome: StepOutcome, figure: str, why: str, what: str) -> StepOutcome:
    """Each record and the step's warnings say what the figures stand in for."""
    absent = why.split(":")[0]  # 'hpcc or mpirun not found on h2'
    for record in outcome.records:
        record.fallback = f"{figure}: {absent}"
    tool = next((r.tool for r in outcome.records), None)
    what = f"{tool} {what}" if tool and not what.startswith(tool) else what
    outcome.warnings.insert(0, f"{absent}: {what} measured instead "
                            f"(a fallback, not comparable with {figure}'s figures)")
    return outcome


def fallback_rows(step) -> list[Row]:
    """One row per host and figure the fallback measured, each saying it is one."""
    return per_host_rows(step, "", memory_text=lambda _step, r: f"{r.threads or '?'} threads")
