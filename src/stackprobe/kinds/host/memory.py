"""The `memory` kind: memory bandwidth with sysbench, mbw or stress-ng's stream stressor.

`tool: auto` takes the first one installed, in that order (sysbench is quick and measures
read and write separately; stress-ng needs >= 10 s per run, more on a host with a large CPU
cache: a run it calls too short is run again at twice the length, said in the step's
warnings). Each record names the tool, because their figures are not comparable with each
other.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from stackprobe.kinds.compare import ComparesNodes
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import AnyOf, HostMode, Kind, Tool
from stackprobe.kinds.host.memory_commands import MEMORY_TOOLS, STRESS_NG_STREAM_MIN_SECONDS
from stackprobe.kinds.host.stress_ng import STRESS_NG
from stackprobe.schema.records import MemBwRecord
from stackprobe.spec.fields import Size
from stackprobe.spec.steps import MeasuredSpec
from stackprobe.spec.tools import dpkg_version
from stackprobe.tables.rows import per_host_rows, record_rows
from stackprobe.transport.tools import has_tool

MBW_MAX_MIB = 512  # mbw allocates two arrays of this size
MBW_RUNS = 3
PREFERENCE = ("sysbench", "mbw", "stress-ng")  # what `tool: auto` takes, first found


class MemoryStep(MeasuredSpec, ComparesNodes):
    """Memory bandwidth with sysbench, mbw or stress-ng (the result names the tool)."""

    kind: Literal["memory"]
    tool: Literal["auto", "sysbench", "mbw", "stress-ng"] = "auto"
    operations: list[Literal["read", "write"]] = Field(default_factory=lambda: ["read", "write"])
    threads: int | Literal["auto"] = "auto"
    size: Size = Size.of("8G")  # sysbench: bytes per operation; mbw: array size
    # sysbench: each thread's buffer; must exceed the CPU caches or caches are measured
    block_size: Size = Size.of("256M")
    seconds: float = Field(default=5.0, gt=0)  # cap per operation (stress-ng needs >= 10)


class MemoryRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass  # nothing on the target: memory tools need no files

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: MemoryStep = ctx.step.spec
        tool = spec.tool
        if tool == "auto":
            found = next((t for t in PREFERENCE if has_tool(ctx.transport, t)), None)
            if found is None:
                return StepOutcome("failed", error="no memory bandwidth tool installed "
                                   "(apt-get install -y sysbench mbw stress-ng)")
            tool = found
        threads = spec.threads if spec.threads != "auto" else self._cpus(ctx)
        records, warnings = [], []
        command = MEMORY_TOOLS[tool]
        for base, kwargs in self._invocations(tool, spec, threads):
            label = base
            while True:
                result = ctx.execute(label, command.argv(**kwargs))
                if result.interrupted:
                    return StepOutcome.stopped(records, warnings)
                if not result.ok:
                    return StepOutcome("failed", records, failure_message(result, tool), warnings)
                text = result.stdout if command.output == "stdout" else result.stderr
                longer = command.longer(kwargs, text) if command.longer else None
                if longer is None:
                    break
                warnings.append(f"{tool}: a {kwargs['seconds']} s run was too short for it to "
                                f"give a rate on this host; run again for {longer['seconds']} s")
                label, kwargs = f"{base}-{longer['seconds']}s", longer
            try:
                found_records = command.parse(text, **kwargs)
            except ValueError as exc:
                return StepOutcome("failed", records, f"{tool}: {exc}", warnings)
            for rec in found_records:
                rec.host = ctx.transport.host
            records.extend(found_records)
        return StepOutcome("ok", records, None, warnings)

    def cleanup(self, ctx: StepContext) -> None:
        pass

    @staticmethod
    def _invocations(tool: str, spec: MemoryStep, threads: int):
        """(label, argv keyword arguments) for each run of the tool."""
        if tool == "sysbench":
            for op in spec.operations:
                yield f"sysbench-{op}", {
                    "operation": op,
                    "threads": threads,
                    "total_bytes": spec.size.bytes,
                    "time_s": max(1, math.ceil(spec.seconds)),
                    "block_bytes": spec.block_size.bytes,
                }
        elif tool == "mbw":
            mib = max(1, min(spec.size.bytes // 1024**2, MBW_MAX_MIB))
            yield "mbw", {"mib": mib, "runs": MBW_RUNS}
        else:
            yield "stress-ng", {
                "workers": threads,
                "seconds": max(STRESS_NG_STREAM_MIN_SECONDS, math.ceil(spec.seconds)),
            }

    @staticmethod
    def _cpus(ctx: StepContext) -> int:
        res = ctx.transport.run(["nproc"], timeout=30)
        try:
            return max(1, int(res.stdout.strip()))
        except ValueError:
            return 1


SYSBENCH = Tool("sysbench", "sysbench", ("sysbench", "--version"), "memory bandwidth")
MBW = Tool("mbw", "mbw", dpkg_version("mbw"), "memory bandwidth (alternative)")


class Memory(Kind):
    name = "memory"
    spec = MemoryStep
    layer = "hardware"
    family = "host"
    hosts = HostMode.EACH
    tools = (SYSBENCH, MBW, STRESS_NG)
    records = (MemBwRecord,)
    duration_fields = ("seconds",)
    verdict_fields = ("operations",)  # each operation is a row of its own
    titled_rows = False

    def title(self, spec, name):
        return "Memory bandwidth"

    def headline(self, spec):
        return "membw"

    def estimate_s(self, spec: MemoryStep, hosts):
        per_op = max(spec.seconds, 10.0) if spec.tool == "stress-ng" else spec.seconds
        return len(spec.operations) * (per_op + 0.5)

    def needs(self, spec: MemoryStep):
        return (AnyOf(PREFERENCE),) if spec.tool == "auto" else (spec.tool,)

    def runner(self):
        return MemoryRunner()

    def rows(self, step):
        workload = self.workload_text(step.params)
        # on hosts: one row per host and operation (the consistency table compares them)
        return (per_host_rows(step, workload) if step.hosts else []) or \
            record_rows(step, workload)


KIND = Memory()
