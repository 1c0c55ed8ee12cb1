"""What a run measured on the lower rungs, gathered for the ceilings model.

Pure: RunResults in, LowerRungs out. Every figure keeps where it came from (the step id and
the host) so a ceiling can say which measurements it rests on. Nothing is assumed: a rung
the run did not measure is simply absent, and the model says it is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.schema.hpc_records import HpccRecord
from stackprobe.schema.records import (
    CephInventoryRecord,
    InventoryRecord,
    MemBwRecord,
    OsdBenchRecord,
)
from stackprobe.schema.results import RunResults
from stackprobe.schema.sentinels import FLEET_HOST


@dataclass(frozen=True)
class Osd:
    osd: int
    host: str | None
    bw_bytes: float  # `ceph tell osd.N bench`: writes through the OSD's object store
    iops: float
    block_bytes: int
    step: str


@dataclass(frozen=True)
class OsdRead:
    """An OSD's device read in place (`osd_read`): below the OSD daemon, like a disk."""

    osd: int
    host: str | None
    rw: str  # read (sequential) | randread
    bw_bytes: float
    iops: float
    block_bytes: int
    upper_bound: bool  # holes may have been read: the figure bounds the device from above
    step: str


@dataclass(frozen=True)
class Pool:
    name: str
    kind: str  # replicated | erasure
    size: int  # replicas; for erasure k + m
    k: int | None = None
    m: int | None = None

    @property
    def write_factor(self) -> float:
        """Bytes written to OSDs (and sent between hosts) per byte a client writes."""
        if self.kind == "erasure" and self.k:
            return (self.k + (self.m or 0)) / self.k
        return float(self.size)

    def describe(self) -> str:
        if self.kind == "erasure" and self.k:
            return f"erasure {self.k}+{self.m}"
        return f"replication {self.size}"


@dataclass(frozen=True)
class DiskScaling:
    host: str
    singles: dict[str, float]  # target -> B/s alone
    aggregate: float  # B/s all together
    rw: str  # read | write ...
    step: str


@dataclass
class LowerRungs:
    this_host: str
    nic_mbps: dict[str, float] = field(default_factory=dict)  # host -> link speed, Mbit/s
    nic_names: dict[str, str] = field(default_factory=dict)  # host -> NIC that carries it
    membw: dict[tuple[str, str], float] = field(default_factory=dict)  # (host, op) -> B/s
    osds: list[Osd] = field(default_factory=list)
    osd_reads: list[OsdRead] = field(default_factory=list)
    pools: dict[str, Pool] = field(default_factory=dict)
    storage_hosts: list[str] = field(default_factory=list)  # hosts with OSDs (CRUSH)
    run_pool: str | None = None
    disks: list[DiskScaling] = field(default_factory=list)
    cpu_outliers: dict[str, float] = field(default_factory=dict)  # host -> × median (flagged)

    def pool(self) -> Pool | None:
        """The pool the run's Ceph steps used, when the inventory knows it."""
        if self.run_pool and self.run_pool in self.pools:
            return self.pools[self.run_pool]
        return None

    @property
    def cluster_is_local(self) -> bool:
        """The OSDs run on the machine that ran the clients: no network in between."""
        hosts = set(self.storage_hosts) | {o.host for o in self.osds if o.host}
        return bool(hosts) and hosts <= {self.this_host}


CPU_METRICS = ("CPU throughput", "HPL")  # node comparisons that say a CPU is slow


def lower_rungs(results: RunResults) -> LowerRungs:
    low = LowerRungs(this_host=results.run.host)
    low.run_pool = (results.run.ceph or {}).get("pool")
    for step in results.steps:
        for rec in step.records:
            if isinstance(rec, InventoryRecord):
                _nic(low, rec, rec.host or results.run.host)
            elif isinstance(rec, MemBwRecord):
                key = (rec.host or results.run.host, rec.operation)
                low.membw[key] = max(low.membw.get(key, 0.0), rec.bw_bytes)
            elif isinstance(rec, HpccRecord) and rec.host != FLEET_HOST:
                # a node's STREAM copy (it reads and writes what it moves) bounds both
                copy = rec.node_stream_bytes("copy")
                for op in ("read", "write") if copy else ():
                    key = (rec.host or results.run.host, op)
                    low.membw[key] = max(low.membw.get(key, 0.0), copy)
            elif isinstance(rec, OsdBenchRecord):
                low.osds.append(Osd(rec.osd, rec.host, rec.bw_bytes, rec.iops, rec.block_bytes,
                                    step.id))
            elif isinstance(rec, CephInventoryRecord):
                _ceph(low, rec)
        network = step.findings.get("network")
        if network:  # the NIC that carries each host's address beats a guess from inventory
            for host, link in (network.get("links") or {}).items():
                if link.get("speed_mbps"):
                    low.nic_mbps[host] = float(link["speed_mbps"])
                    low.nic_names[host] = str(link.get("nic") or "")
        for c in step.findings.get("consistency", []):
            if str(c.get("metric", "")).startswith(CPU_METRICS):  # stress-ng's or HPL's
                for f in c.get("figures", []):  # a pair flags both: the slower one is slow
                    if f.get("flagged") and f.get("ratio") is not None and f["ratio"] < 1:
                        low.cpu_outliers[str(f["node"])] = float(f["ratio"])
        low.osd_reads += _osd_reads(step.findings.get("osd_read"), step.id)
        scaling = step.findings.get("disk_scaling")
        if scaling:
            here = step.hosts[0] if len(step.hosts) == 1 else results.run.host
            for host, s in _per_host(scaling, here).items():
                low.disks.append(DiskScaling(host, dict(s["singles"]), float(s["aggregate_bw"]),
                                             str(step.params.get("rw", "")), step.id))
    return low


def _osd_reads(found: dict | None, step: str) -> list[OsdRead]:
    """The per-OSD reads an `osd_read` step stored in its findings."""
    if not found:
        return []
    rw, block = str(found.get("rw", "read")), int(found.get("bs", 0))
    return [OsdRead(int(o["osd"]), o.get("host"), rw, float(o["bw_bytes"]), float(o["iops"]),
                    block, bool(o.get("upper_bound")), step)
            for o in found.get("osds", []) if o.get("bw_bytes")]


def _per_host(scaling: dict, default_host: str) -> dict[str, dict]:
    """disk_scaling is {host: {...}} for per-node steps, or one {...} for a local step."""
    if "singles" in scaling:
        return {default_host: scaling}
    return {h: s for h, s in scaling.items() if isinstance(s, dict) and "singles" in s}


def _nic(low: LowerRungs, inv: InventoryRecord, host: str) -> None:
    """The host's fastest physical NIC that is up and says its speed (a guess: the one with
    the host's address is only known from a network step, which overrides this)."""
    if host in low.nic_names:
        return
    up = [n for n in inv.nics if n.get("operstate") == "up" and n.get("speed_mbps")
          and not n.get("virtual")]
    if up:
        best = max(up, key=lambda n: n["speed_mbps"])
        low.nic_mbps[host] = float(best["speed_mbps"])


def _ceph(low: LowerRungs, rec: CephInventoryRecord) -> None:
    low.storage_hosts = sorted({str(o["host"]) for o in rec.osds if o.get("host")})
    for p in rec.pools:
        if not p.get("size"):
            continue  # a pool only in `df`: its layout is unknown
        ec = p.get("ec_profile") or {}
        kind = "erasure" if p.get("type") == "erasure" else "replicated"
        k, m = ec.get("k"), ec.get("m")
        low.pools[str(p.get("name"))] = Pool(
            name=str(p.get("name")), kind=kind, size=int(p["size"]),
            k=int(k) if k else None, m=int(m) if m is not None else None)
