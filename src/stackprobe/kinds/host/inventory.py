"""The `inventory` kind: what a host is made of, read with standard commands.

Every source in kinds/host/inventory_sources.py is one command (one round trip over SSH);
a source that fails or is missing only leaves its part of the inventory empty.
"""

from __future__ import annotations

from typing import Literal

from stackprobe.analysis.memory_population import population_finding
from stackprobe.kinds.compare import ComparesNodes
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import HostMode, Kind, Tool
from stackprobe.kinds.host.inventory_sources import SOURCES
from stackprobe.kinds.host.memory_population_table import population_tables
from stackprobe.parsers.host.inventory import parse_inventory
from stackprobe.schema.records import InventoryRecord
from stackprobe.spec.steps import StepSpec


class InventoryStep(StepSpec, ComparesNodes):
    """What the machine is: CPU, memory, disks, NICs, kernel, risky settings."""

    kind: Literal["inventory"]


class InventoryRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        outputs: dict[str, str] = {}
        missing = []
        for name, argv in SOURCES.items():
            result = ctx.execute(f"inventory-{name}", argv)
            if result.interrupted:
                return StepOutcome.stopped()
            if result.ok:
                outputs[name] = result.stdout
            else:
                missing.append(failure_message(result, argv[0]))
        try:
            record = parse_inventory(outputs, host=ctx.transport.host)
        except ValueError as exc:
            return StepOutcome("failed", [], f"inventory: {exc}")
        warnings = [f"inventory source unavailable: {m}" for m in missing]
        # this machine alone; on hosts, engine/per_node.py finds it over all of them
        population = population_finding([record]) if ctx.host is None else None
        if population is None:
            return StepOutcome("ok", [record], None, warnings)
        return StepOutcome("ok", [record], None, warnings + population["warnings"],
                           findings={"memory_population": population})

    def cleanup(self, ctx: StepContext) -> None:
        pass


LSCPU = Tool("lscpu", "util-linux", ("lscpu", "--version"), "CPU inventory")
LSBLK = Tool("lsblk", "util-linux", ("lsblk", "--version"), "block device inventory")
DMIDECODE = Tool("dmidecode", "dmidecode", ("dmidecode", "--version"),
                 "DIMM population (inventory; optional, needs root)")


class Inventory(Kind):
    name = "inventory"
    spec = InventoryStep
    layer = "hardware"
    family = "host"
    hosts = HostMode.EACH
    tools = (LSCPU, LSBLK, DMIDECODE)
    records = (InventoryRecord,)

    def title(self, spec, name):
        return "Inventory"

    def estimate_s(self, spec, hosts):
        return 2.0

    def needs(self, spec):
        return ("lscpu", "lsblk")  # dmidecode is optional: its part is left out without it

    def runner(self):
        return InventoryRunner()

    def rows(self, step):
        return []  # an inventory is the report's environment lines, not a figure

    def tables(self, steps):
        return population_tables(steps)


KIND = Inventory()
