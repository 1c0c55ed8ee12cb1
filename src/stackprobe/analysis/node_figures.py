"""The per-node figures worth comparing across hosts, taken from a per-node step's records.

Each figure is a metric name, its unit, whether higher is better, and one value per host.
The seeds' faults show up in exactly these: a missing DIMM in memory size and bandwidth, a
throttled or misconfigured CPU in stress-ng throughput, a bad backplane in the disk
aggregate.

Hosts are compared within a role (`role_groups`, on `hosts_by_role`): MDS against MDS, OSS against OSS, never
an MDS against an OSS — they are different machines doing different work, and a fleet of
slower OSS must not make the MDS look fast or the other way round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from stackprobe.schema.hpc_records import HpccRecord
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
        elif isinstance(r, HpccRecord):  # hpcc runs every test: each step compares its own
            if r.focus in (None, "hpl"):  # residual PASSED only
                add("HPL", "flop/s", r.host, r.hpl.flops_per_s if r.hpl else None)
            if r.focus in (None, "stream"):
                add("STREAM triad (all processes)", "B/s", r.host, r.node_stream_bytes("triad"))
        elif isinstance(r, IoRecord) and r.workload.get("baseline") == "all":
            add("disk aggregate (all devices at once)", "B/s", r.host,
                sum(s.bw_bytes for _, s in r.directions()))
    return list(metrics.values())


def node_triads(records: Sequence[object]) -> dict[str, float]:
    """host -> the node's STREAM triad bytes/s (all its processes at once), from a stream
    step's hpcc records: what analysis/memory_population.py puts beside the DIMMs."""
    return {r.host: bw for r in records
            if isinstance(r, HpccRecord) and r.focus == "stream" and r.host is not None
            and getattr(r, "repetition", None) in (None, 1)
            and (bw := r.node_stream_bytes("triad")) is not None}


def hosts_by_role(hosts: Iterable[str], roles: Mapping[str, Sequence[str]] | None
                  ) -> dict[str | None, list[str]]:
    """{role: its hosts}, hosts in the order given and roles in the order they first come:
    a host with two roles is in both, hosts without a role (or without roles given) form
    one group, None. The one rule of who is compared with whom, for the per-node figures
    (role_groups) and the settings drift (analysis/settings_drift.py) alike."""
    by_role: dict[str | None, list[str]] = {}
    for host in hosts:
        for role in (roles or {}).get(host) or [None]:
            members = by_role.setdefault(role, [])
            if host not in members:
                members.append(host)
    return by_role


def role_groups(hosts: Iterable[str], roles: Mapping[str, Sequence[str]] | None
                ) -> dict[str | None, list[str]]:
    """hosts_by_role, hosts in name order, and roles whose hosts are the same merged: they
    compare the same figures, so they are one group, 'client/storage'. Roles in name
    order, None last."""
    by_role = hosts_by_role(sorted(hosts), roles)
    merged: dict[tuple[str, ...], list[str]] = {}
    for role in sorted(r for r in by_role if r is not None):
        merged.setdefault(tuple(by_role[role]), []).append(role)
    out: dict[str | None, list[str]] = {"/".join(names): list(group)
                                        for group, names in merged.items()}
    if None in by_role:
        out[None] = by_role[None]
    return out
