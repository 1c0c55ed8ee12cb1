"""An InventoryRecord as a few labelled lines, the 'test environment' block of the seeds."""

from __future__ import annotations

from stackprobe.parsers.records import InventoryRecord
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
