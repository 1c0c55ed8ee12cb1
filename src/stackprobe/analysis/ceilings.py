"""The ladder explained: what each upper rung should deliver, given the rungs below it.

For every measured upper-rung result (disks of a host together, a network pair, a Ceph
cluster or client benchmark) the model derives bounds ("terms") from lower-rung
measurements, each with the inputs it came from. The ceiling is the smallest term; the
efficiency is measured / ceiling; the verdict names the limiting layer in words. The
formulas and their assumptions are in docs/ceilings.md; each is a small pure function
here so it can be checked by hand.

Naming the bottleneck:
- measured ≥ 70% of the ceiling: the limiting term's layer is the bottleneck;
- below 70%: the lowest term still bounds it, but most of the loss happens in the layer
  between the inputs and the rung (a host's shared disk path, the network path between
  two NICs, the storage software), and the verdict says so;
- above the ceiling (by > 5%): a cache served part of it, or an input is wrong — a warning
  that says which term was exceeded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from stackprobe.analysis.ladder_inputs import DiskScaling, LowerRungs, Osd, Pool, lower_rungs
from stackprobe.analysis.osd_read_bound import SMALL_BLOCK, osd_read_bound, pace_setter
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.units import fmt_bw, fmt_iops, parse_size

GOOD_EFFICIENCY = 0.70  # at or above: the lowest lower rung is what limits
OVER_CEILING = 1.05  # above: cache or a wrong input


@dataclass(frozen=True)
class Term:
    """One bound on a rung, from lower-rung measurements."""

    layer: str  # osd | storage network | client network | devices | link | client memory
    value: float  # in the rung's unit (B/s or IOPS)
    text: str  # the formula with its numbers, in words
    inputs: tuple[str, ...] = ()  # the measurements it rests on: "osd.2 31.5 MiB/s (03-osd)"
    culprit: str | None = None  # one component far below its peers sets this bound: "osd.2"


@dataclass
class Rung:
    name: str  # "rados bench write (4M)", "disks of h1 together", "network h1→h2"
    step: str  # the step id that measured it
    layer: str  # the rung's own layer: disk, network, cluster, client
    metric: str  # bw | iops
    measured: float
    between: str  # the layer between the inputs and this rung, blamed for a large loss
    # why a figure above its ceiling is possible on this rung (a cache, a nominal speed)
    over: str = "a cache served part of it or an input is wrong"
    terms: list[Term] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # inputs the run did not measure
    notes: list[str] = field(default_factory=list)  # e.g. the slow OSD that sets the pace

    @property
    def limiting(self) -> Term | None:
        return min(self.terms, key=lambda t: t.value) if self.terms else None

    @property
    def ceiling(self) -> float | None:
        t = self.limiting
        return t.value if t else None

    @property
    def efficiency(self) -> float | None:
        c = self.ceiling
        return self.measured / c if c else None

    @property
    def bottleneck(self) -> str | None:
        """The layer named as the bottleneck (see the module docstring)."""
        e, t = self.efficiency, self.limiting
        if e is None or t is None:
            return None
        if e >= GOOD_EFFICIENCY or t.culprit:  # a laggard among peers bounds the whole rung
            return t.layer
        return self.between

    def fmt(self, value: float) -> str:
        return fmt_bw(value) if self.metric == "bw" else f"{fmt_iops(value)} IOPS"

    @property
    def verdict(self) -> str:
        t, e = self.limiting, self.efficiency
        if t is None or e is None:
            return (f"{self.name}: {self.fmt(self.measured)}; no ceiling: missing "
                    + "; ".join(self.missing or ["every lower rung"]))
        head = (f"{self.name}: {self.fmt(self.measured)} = {e:.0%} of its ceiling "
                f"{self.fmt(t.value)}")
        if e > OVER_CEILING:
            return f"{head} — above the ceiling set by the {t.layer} ({t.text})"
        if e >= GOOD_EFFICIENCY:
            return f"{head} — limited by the {t.layer}: {t.text}"
        if t.culprit:
            return (f"{head} — limited by the {t.layer}: {t.text}; {1 - e:.0%} more is lost "
                    f"in the {self.between}")
        return (f"{head} — the lowest bound is the {t.layer} ({t.text}), but {1 - e:.0%} is "
                f"lost above it: the {self.between} limits")

    @property
    def warnings(self) -> list[str]:
        t, e = self.limiting, self.efficiency
        if t is None or e is None or e <= OVER_CEILING:
            return []
        return [f"{self.name}: measured {self.fmt(self.measured)} exceeds the {t.layer} "
                f"ceiling {self.fmt(t.value)} ({t.text}): {self.over}; its inputs: "
                + ", ".join(t.inputs)]


# ---------------------------------------------------------------- formulas (pure)

def balanced_write(osd_bw: list[float], factor: float) -> float:
    """Client write rate the OSDs allow: with placement balanced over n OSDs each OSD takes
    1/n of the `factor` × data written (replicas or EC chunks), so the slowest sets the
    pace: n × min / factor."""
    return len(osd_bw) * min(osd_bw) / factor


def storage_network_write(nic_bps: list[float], factor: float) -> float:
    """Client write rate the storage hosts' NICs allow (bytes/s): every client byte enters
    the storage hosts `factor` times (once from the client, factor − 1 times as replica or
    chunk traffic between them) when one NIC per host carries both."""
    return sum(nic_bps) / 8 / factor


def network_read(nic_bps: list[float]) -> float:
    """Read rate a set of NICs allows (bytes/s): each byte crosses them once."""
    return sum(nic_bps) / 8


def link_pair(client_mbps: float, server_mbps: float) -> float:
    """A TCP stream between two hosts is bounded by the slower NIC (bits/s)."""
    return min(client_mbps, server_mbps) * 1e6


# ---------------------------------------------------------------- the ladder

@dataclass(frozen=True)
class ClusterIo:
    """A step that loads a storage cluster from its client, as its kind describes it
    (`Kind.cluster_io`): the block size (IOPS rungs at or below 64 KiB) and how a record is
    named (by its job, when each record is a separate run: rados bench's modes)."""

    block_bytes: int | None
    label_by_job: bool = False

    @classmethod
    def from_params(cls, params: dict, block_key: str, label_by_job: bool = False) -> ClusterIo:
        """The block size from a step's stored parameters (None when absent or unreadable)."""
        try:
            block = parse_size(params[block_key])
        except (KeyError, ValueError):
            block = None
        return cls(block, label_by_job)


def ladder(results: RunResults,
           cluster_io: Callable[[StepResult], ClusterIo | None]) -> list[Rung]:
    """Every upper-rung result of the run with its ceiling, in ladder order: each host's
    disks together, each network pair, each step that loads the cluster (`cluster_io`)."""
    low = lower_rungs(results)
    rungs: list[Rung] = []
    for step in results.steps:
        if step.status != "ok":
            continue
        rungs += [_disk_rung(d, low) for d in low.disks if d.step == step.id]
        rungs += _network_rungs(step, low)
        io = cluster_io(step)
        if io is not None:
            rungs += _ceph_rungs(step, io, low)
    return rungs


def _disk_rung(d: DiskScaling, low: LowerRungs) -> Rung:
    total = sum(d.singles.values())
    rung = Rung(name=f"disks of {d.host} together ({d.rw})", step=d.step, layer="disk",
                metric="bw", measured=d.aggregate,
                between=f"host/controller layer of {d.host} (HBA, backplane, PCIe link)",
                over="a controller or drive cache served part of it, or the singles were "
                     "measured below their speed")
    rung.terms.append(Term("devices", total, f"sum of {len(d.singles)} targets alone "
                           f"({fmt_bw(total)})",
                           tuple(f"{t} alone {fmt_bw(v)} ({d.step})" for t, v in d.singles.items())))
    mem = low.membw.get((d.host, "read" if "read" in d.rw else "write"))
    if mem:
        rung.terms.append(Term("host memory", mem, f"{d.host} memory bandwidth",
                               (f"{d.host} memory {fmt_bw(mem)}",)))
    return rung


def _network_rungs(step: StepResult, low: LowerRungs) -> list[Rung]:
    rungs = []
    for cell in step.findings.get("network", {}).get("cells", []):
        if not cell.get("bps"):
            continue
        client, server = cell["client"], cell["server"]
        between = f"network path {client}→{server} (switch, cabling, shaping)"
        slow_cpu = [h for h in (client, server) if h in low.cpu_outliers]
        if slow_cpu:  # iperf3 needs CPU: a host far slower than its peers may be the limit
            h = slow_cpu[0]
            between += (f", or {h}'s CPU ({low.cpu_outliers[h]:.2f}× the median host in "
                        f"node consistency)")
        rung = Rung(name=f"network {client}→{server}", step=step.id, layer="network",
                    metric="bw", measured=float(cell["bps"]) / 8, between=between,
                    over="the NIC reports a nominal speed it does not enforce (virtual NICs: "
                         "veth, virtio, bonds) or the link speed input is wrong")
        have = [h for h in (client, server) if h in low.nic_mbps]
        if len(have) == 2:
            bps = link_pair(low.nic_mbps[client], low.nic_mbps[server])
            rung.terms.append(Term(
                "NIC link", bps / 8,
                f"slower NIC of the pair: {_nic(low, client)}, {_nic(low, server)}",
                (f"{client} link {low.nic_mbps[client]:g} Mb/s",
                 f"{server} link {low.nic_mbps[server]:g} Mb/s")))
        else:
            rung.missing += [f"{h} NIC link speed" for h in (client, server) if h not in have]
        rungs.append(rung)
    return rungs


def _nic(low: LowerRungs, host: str) -> str:
    name = low.nic_names.get(host)
    return f"{host} {name + ' ' if name else ''}{low.nic_mbps[host] / 1000:g} Gbit/s"


def _ceph_rungs(step: StepResult, io: ClusterIo, low: LowerRungs) -> list[Rung]:
    """One rung per direction the step measured (and per rados bench mode)."""
    rungs = []
    block = io.block_bytes
    for rec in step.records:
        if getattr(rec, "type", None) != "io":
            continue
        for direction, stats in rec.directions():
            small = block is not None and block <= SMALL_BLOCK
            metric = "iops" if small else "bw"
            measured = stats.iops if small else stats.bw_bytes
            if not measured:
                continue
            label = rec.job if io.label_by_job else direction
            rung = Rung(name=f"{step.title}: {label}", step=step.id,
                        layer=step.layer, metric=metric, measured=measured,
                        between="storage software and client (Ceph OSD/RADOS path, client "
                                "CPU, queue depth)",
                        over="a cache served part of it (client page cache, RBD cache, OSD "
                             "cache) or an input is wrong")
            _ceph_terms(rung, low, write=direction == "write", block=block)
            rungs.append(rung)
    return rungs


def _ceph_terms(rung: Rung, low: LowerRungs, *, write: bool, block: int | None) -> None:
    pool = low.pool()
    if write:
        _osd_write_term(rung, low, pool, block)
    else:
        _osd_read_term(rung, low)
    _storage_disks_term(rung, low, pool, write=write, block=block)
    mem = low.membw.get((low.this_host, "read" if write else "write"))
    if mem:  # a client writes from memory and reads into it
        rung.terms.append(Term("client memory", _per_op(rung, mem, block),
                               f"{low.this_host} memory {'read' if write else 'write'} "
                               f"{fmt_bw(mem)}", (f"{low.this_host} memory {fmt_bw(mem)}",)))
    if low.cluster_is_local:
        rung.notes.append(f"the cluster runs on {low.this_host} itself: no network between "
                          "clients and OSDs to bound it")
        return
    storage = [h for h in low.storage_hosts if h in low.nic_mbps]
    if low.storage_hosts and len(storage) == len(low.storage_hosts):
        bps = [low.nic_mbps[h] * 1e6 for h in storage]
        nics = ", ".join(_nic(low, h) for h in storage)
        if write and pool is not None:
            rung.terms.append(Term(
                "storage-node network", _per_op(rung, storage_network_write(bps, pool.write_factor), block),
                f"{len(storage)} × storage NIC ({nics}) / {pool.describe()}", (nics,)))
        elif not write:
            rung.terms.append(Term("storage-node network", _per_op(rung, network_read(bps), block),
                                   f"{len(storage)} × storage NIC ({nics})", (nics,)))
    else:
        rung.missing.append("storage hosts' NIC speeds")
    if low.this_host in low.nic_mbps:
        bps = [low.nic_mbps[low.this_host] * 1e6]
        rung.terms.append(Term("client network", _per_op(rung, network_read(bps), block),
                               f"client NIC {_nic(low, low.this_host)}",
                               (_nic(low, low.this_host),)))
    else:
        rung.missing.append("client NIC speed")


def _storage_disks_term(rung: Rung, low: LowerRungs, pool: Pool | None, *, write: bool,
                        block: int | None) -> None:
    """Σ over the storage hosts of their devices together (disk_baseline in the same
    direction); writes divided by the pool's factor. Reads: each byte is read once."""
    hosts = low.storage_hosts or sorted({o.host for o in low.osds if o.host})
    direction = "write" if write else "read"
    found = {d.host: d for d in low.disks if d.host in hosts and direction in d.rw}
    if not hosts or len(found) < len(hosts):
        if not write and not low.osd_reads:
            rung.missing.append("OSD read rate (osd bench only writes; a disk_baseline read "
                                "on every storage host would bound reads)")
        return
    if write and pool is None:
        return  # said by the OSD term
    total = sum(d.aggregate for d in found.values())
    factor = pool.write_factor if write and pool is not None else 1.0
    how = f" / {pool.describe()}" if write and pool is not None else ""
    rung.terms.append(Term(
        "storage devices", _per_op(rung, total / factor, block),
        f"{len(found)} storage host(s), devices together {fmt_bw(total)}{how}",
        tuple(f"{h} devices together {fmt_bw(d.aggregate)} ({d.step})"
              for h, d in sorted(found.items()))))


def _per_op(rung: Rung, bytes_per_s: float, block: int | None) -> float:
    """A bandwidth bound in the rung's unit: IOPS rungs divide by the block size."""
    if rung.metric == "iops" and block:
        return bytes_per_s / block
    return bytes_per_s


def _osd_write_term(rung: Rung, low: LowerRungs, pool: Pool | None, block: int | None) -> None:
    if not low.osds:
        rung.missing.append("OSD write rates (osd_bench)")
        return
    if pool is None:
        rung.missing.append("the pool's replication or EC profile (ceph_inventory)")
        return
    if rung.metric == "iops":
        small = _latest_per_osd([o for o in low.osds if o.block_bytes <= SMALL_BLOCK])
        if not small:
            rung.missing.append("OSD IOPS (osd_bench with a block size of 64K or less)")
            return
        figures = [o.iops for o in small]
        fmt = fmt_iops
    else:  # bandwidth from large-block benches when there are any
        large = [o for o in low.osds if o.block_bytes > SMALL_BLOCK]
        small = _latest_per_osd(large or low.osds)
        figures = [o.bw_bytes for o in small]
        fmt = fmt_bw
    slowest = min(small, key=lambda o: o.iops if rung.metric == "iops" else o.bw_bytes)
    value = balanced_write(figures, pool.write_factor)
    median = sorted(figures)[len(figures) // 2]
    text = (f"{len(figures)} OSDs × slowest osd.{slowest.osd} "
            f"{fmt(min(figures))}{' IOPS' if rung.metric == 'iops' else ''} / "
            f"{pool.describe()}")
    culprit, why = pace_setter(slowest.osd, slowest.host, min(figures), median)
    text += why
    inputs = tuple(f"osd.{o.osd} {fmt_bw(o.bw_bytes)}, {fmt_iops(o.iops)} IOPS ({o.step})"
                   for o in small)
    rung.terms.append(Term("OSD layer", value, text, inputs, culprit))


def _osd_read_term(rung: Rung, low: LowerRungs) -> None:
    """Reads: n OSDs × the slowest OSD's device read (analysis/osd_read_bound.py)."""
    if not low.osd_reads:
        return  # the storage devices term says what is missing
    bound = osd_read_bound(low.osd_reads, rung.metric == "iops")
    if isinstance(bound, str):
        rung.missing.append(bound)
        return
    rung.terms.append(Term("OSD devices", bound.value, bound.text, bound.inputs, bound.culprit))


def _latest_per_osd(osds: list[Osd]) -> list[Osd]:
    """One figure per OSD: the last bench of it in the run."""
    by_id: dict[int, Osd] = {}
    for o in osds:
        by_id[o.osd] = o
    return [by_id[k] for k in sorted(by_id)]
