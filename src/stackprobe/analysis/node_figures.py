"""The per-node figures worth comparing across hosts, taken from a per-node step's records.

Each figure is a metric name, its unit, whether higher is better, and one value per host.
The seeds' faults show up in exactly these: a missing DIMM in memory size and bandwidth, a
throttled or misconfigured CPU in stress-ng throughput, a bad backplane in the disk
aggregate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from stackprobe.schema.records import CpuRecord, InventoryRecord, IoRecord, MemBwRecord


@dataclass
class NodeMetric:
    metric: str  # what a sentence calls it: "memory bandwidth (read)"
    unit: str  # B/s, ops/s, B, CPUs
    higher_is_better: bool = True
    values: dict[str, float] = field(default_factory=dict)  # host -> value


def node_metrics(kind: str, records: Sequence[object]) -> list[NodeMetric]:
    """The comparable figures of one per-node step, one NodeMetric per figure."""
    metrics: dict[str, NodeMetric] = {}

    def add(name: str, unit: str, host: str | None, value: float | None) -> None:
        if host is None or value is None:
            return
        m = metrics.setdefault(name, NodeMetric(name, unit))
        m.values[host] = m.values.get(host, 0.0) + value

    for r in records:
        if getattr(r, "repetition", None) not in (None, 1):
            continue  # the first run of a repeated step stands for the host
        if isinstance(r, MemBwRecord):
            add(f"memory bandwidth ({r.operation})", "B/s", r.host, r.bw_bytes)
        elif isinstance(r, CpuRecord):
            add(f"CPU throughput ({r.stressor})", "bogo ops/s", r.host, r.bogo_ops_per_s)
        elif isinstance(r, InventoryRecord):
            add("memory size", "B", r.host, r.memory.get("total_bytes"))
            add("logical CPUs", "CPUs", r.host, r.cpu.get("logical_cpus"))
        elif isinstance(r, IoRecord) and r.workload.get("baseline") == "all":
            add("disk aggregate (all devices at once)", "B/s", r.host,
                sum(s.bw_bytes for _, s in r.directions()))
    return list(metrics.values())
