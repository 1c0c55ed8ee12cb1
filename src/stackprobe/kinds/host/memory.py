"""The memory bandwidth runner: sysbench, mbw or stress-ng's stream stressor.

`tool: auto` takes the first one installed, in that order (sysbench is quick and measures
read and write separately; stress-ng needs >= 10 s per run). Each record names the tool,
because their figures are not comparable with each other.
"""

from __future__ import annotations

import math

from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.host.memory_commands import MEMORY_TOOLS, STRESS_NG_STREAM_MIN_SECONDS
from stackprobe.engine.tools import MEMORY_TOOLS as PREFERENCE
from stackprobe.engine.tools import has_tool
from stackprobe.units import parse_size

MBW_MAX_MIB = 512  # mbw allocates two arrays of this size
MBW_RUNS = 3


class MemoryRunner:
    kind = "memory"

    def prepare(self, ctx: StepContext) -> None:
        pass  # nothing on the target: memory tools need no files

    def run(self, ctx: StepContext) -> StepOutcome:
        p = ctx.step.params
        tool = p["tool"]
        if tool == "auto":
            tool = next((t for t in PREFERENCE if has_tool(ctx.transport, t)), None)
            if tool is None:
                return StepOutcome("failed", error="no memory bandwidth tool installed "
                                   "(apt-get install -y sysbench mbw stress-ng)")
        threads = p["threads"] if p["threads"] != "auto" else self._cpus(ctx)
        records, warnings = [], []
        for label, kwargs in self._invocations(tool, p, threads):
            spec = MEMORY_TOOLS[tool]
            result = ctx.execute(label, spec.argv(**kwargs))
            if result.interrupted:
                return StepOutcome("interrupted", records, "stopped by the user", warnings)
            if not result.ok:
                return StepOutcome("failed", records, failure_message(result, tool), warnings)
            text = result.stdout if spec.output == "stdout" else result.stderr
            try:
                found = spec.parse(text, **kwargs)
            except ValueError as exc:
                return StepOutcome("failed", records, f"{tool}: {exc}", warnings)
            for rec in found:
                rec.host = ctx.transport.host
            records.extend(found)
        return StepOutcome("ok", records, None, warnings)

    def cleanup(self, ctx: StepContext) -> None:
        pass

    @staticmethod
    def _invocations(tool: str, p: dict, threads: int):
        """(label, argv keyword arguments) for each run of the tool."""
        seconds = float(p["seconds"])
        if tool == "sysbench":
            for op in p["operations"]:
                yield f"sysbench-{op}", {
                    "operation": op,
                    "threads": threads,
                    "total_bytes": parse_size(p["size"]),
                    "time_s": max(1, math.ceil(seconds)),
                    "block_bytes": parse_size(p.get("block_size", "256M")),
                }
        elif tool == "mbw":
            mib = max(1, min(parse_size(p["size"]) // 1024**2, MBW_MAX_MIB))
            yield "mbw", {"mib": mib, "runs": MBW_RUNS}
        else:
            yield "stress-ng", {
                "workers": threads,
                "seconds": max(STRESS_NG_STREAM_MIN_SECONDS, math.ceil(seconds)),
            }

    @staticmethod
    def _cpus(ctx: StepContext) -> int:
        res = ctx.transport.run(["nproc"], timeout=30)
        try:
            return max(1, int(res.stdout.strip()))
        except ValueError:
            return 1
