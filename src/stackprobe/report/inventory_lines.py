"""An InventoryRecord as a few labelled lines, the 'test environment' block of the seeds."""

from __future__ import annotations

from stackprobe.schema.records import CephInventoryRecord, InventoryRecord
from stackprobe.units import fmt_bytes


def inventory_lines(inv: InventoryRecord) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    host = inv.host or "?"
    system = ", ".join(x for x in (inv.os, inv.kernel) if x)
    lines.append(("Host", f"{host} ({system})" if system else host))
    c = inv.cpu
    if c:
        shape = " x ".join(
            f"{c[k]} {label}"
            for k, label in (("sockets", "socket(s)"), ("cores_per_socket", "cores"),
                             ("threads_per_core", "thread(s)/core"))
            if c.get(k) is not None
        )
        extra = [f"{c['logical_cpus']} CPUs" if c.get("logical_cpus") else "",
                 f"NUMA nodes {c['numa_nodes']}" if c.get("numa_nodes") else "",
                 f"SMT {c['smt']}" if c.get("smt") else "",
                 f"governor {c['governor']}" if c.get("governor") else ""]
        text = ", ".join(x for x in [c.get("model") or "", shape, *extra] if x)
        lines.append(("CPU", text))
    m = inv.memory
    if m.get("total_bytes"):
        text = fmt_bytes(m["total_bytes"])
        if m.get("dimms_populated") is not None:
            text += f", {m['dimms_populated']}/{m.get('dimm_slots', '?')} DIMM slots populated"
        if m.get("dimm_speed_mts"):
            text += f" @ {m['dimm_speed_mts']} MT/s"
        lines.append(("Memory", text))
    for d in inv.block_devices:
        kind = "HDD" if d.get("rotational") else "SSD/virtual"
        desc = [fmt_bytes(d["size_bytes"]) if d.get("size_bytes") else "",
                d.get("model") or "", d.get("transport") or "", kind,
                f"scheduler {d['scheduler']}" if d.get("scheduler") else ""]
        lines.append((f"Disk {d.get('name')}", ", ".join(x for x in desc if x)))
    for n in inv.nics:
        speed = f"{n['speed_mbps']} Mb/s" if n.get("speed_mbps") else "speed unknown"
        desc = [speed, n.get("operstate") or "", f"MTU {n['mtu']}" if n.get("mtu") else "",
                "virtual" if n.get("virtual") else ""]
        lines.append((f"NIC {n.get('name')}", ", ".join(x for x in desc if x)))
    return lines


def ceph_lines(inv: CephInventoryRecord, run_pool: str | None) -> list[tuple[str, str]]:
    """The cluster as seeds 001-003 describe it before their tables."""
    versions = sorted({v for per in inv.versions.values() for v in per})
    short = ", ".join(_short_version(v) for v in versions) or "version unknown"
    classes = ", ".join(f"{n} {c}" for c, n in sorted(inv.device_classes.items()))
    up = sum(1 for o in inv.osds if o.get("up"))
    text = (f"{short}, {inv.health or 'health unknown'}, {len(inv.osds)} OSDs ({up} up"
            f"{', ' + classes if classes else ''}) on {len(inv.hosts)} host(s)")
    if inv.raw_bytes:
        text += f", {fmt_bytes(inv.raw_bytes)} raw"
    lines = [("Ceph", text)]
    for pool in inv.pools:
        if run_pool is None or pool.get("name") != run_pool:
            continue
        if pool.get("type") == "erasure":
            ec = pool.get("ec_profile") or {}
            shape = f"erasure k={ec.get('k', '?')} m={ec.get('m', '?')}"
        else:
            shape = f"replicated size {pool.get('size')} min_size {pool.get('min_size')}"
        lines.append((f"Pool {pool['name']}", f"{shape}, {pool.get('pg_num')} PGs"))
    return lines


def _short_version(text: str) -> str:
    """'ceph version 16.2.15 (618f...) pacific (stable)' -> '16.2.15 pacific'."""
    words = text.split()
    try:
        return f"{words[2]} {words[4]}"
    except IndexError:
        return text
