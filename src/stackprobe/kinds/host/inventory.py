"""The inventory runner: what the host is made of, read with standard commands.

Every source in runners/inventory_sources.py is one command (one round trip over SSH
later); a source that fails or is missing only leaves its part of the inventory empty.
"""

from __future__ import annotations

from stackprobe.parsers.host.inventory import parse_inventory
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.host.inventory_sources import SOURCES


class InventoryRunner:
    kind = "inventory"

    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        outputs: dict[str, str] = {}
        missing = []
        for name, argv in SOURCES.items():
            result = ctx.execute(f"inventory-{name}", argv)
            if result.interrupted:
                return StepOutcome("interrupted", [], "stopped by the user")
            if result.ok:
                outputs[name] = result.stdout
            else:
                missing.append(failure_message(result, argv[0]))
        try:
            record = parse_inventory(outputs, host=ctx.transport.host)
        except ValueError as exc:
            return StepOutcome("failed", [], f"inventory: {exc}")
        warnings = [f"inventory source unavailable: {m}" for m in missing]
        return StepOutcome("ok", [record], None, warnings)

    def cleanup(self, ctx: StepContext) -> None:
        pass
