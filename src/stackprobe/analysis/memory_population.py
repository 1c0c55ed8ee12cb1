"""DIMM population per node, its theoretical peak bandwidth, and nodes compared.

Why: seed report 004 found by hand that one MDS ran STREAM at two thirds of its twin's,
because a DIMM was not seated and a memory channel stood empty. dmidecode already says
which slot is empty (parsers/host/dmidecode_memory.py, kept in InventoryRecord.dmi_memory);
this turns it into the finding, before any bandwidth is measured:

- per node: slots and DIMMs, per socket and channel when the board's slot names are
  recognised (analysis/dimm_locators.py), the channels without a DIMM, mixed sizes or
  speeds, and the theoretical peak (populated channels x configured MT/s x 8 bytes);
- across the nodes the caller gives (a role, or all hosts of a step): the node with the
  most DIMMs is the reference, and every node below it, or with an empty channel, gets a
  sentence: 'h2: 11 of 12 DIMM slots populated, channel F of socket 1 empty (P1-DIMMF1)';
  with STREAM triads given (node -> bytes/s), '; triad 64% of h1's' is added.

A board whose slot names no pattern reads is compared by counts only and said to be not
recognised; a node without DIMM facts (no root, no dmidecode, a VM without SMBIOS memory
devices, or devices without sizes) is said to have none, and only its memory size is
compared (by the consistency check of analysis/consistency.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from stackprobe.analysis.dimm_placement import Channel, place
from stackprobe.analysis.memory_channels import cpu_family
from stackprobe.schema.records import InventoryRecord
from stackprobe.units import fmt_bw

BYTES_PER_TRANSFER = 8  # a DDR4/DDR5 channel is 64 data bits wide (DDR5: two 32-bit halves)


def _gib(size: int) -> str:
    return f"{size / 2**30:g} GiB"


def _slots(inv: InventoryRecord) -> list[dict[str, Any]] | None:
    """The slots of main memory (not a flash or video array's); None: dmidecode not read."""
    if inv.dmi_memory is None:
        return None
    arrays = inv.dmi_memory.get("arrays") or []
    out = []
    for slot in inv.dmi_memory.get("slots") or []:
        array = slot.get("array")
        use = arrays[array].get("use") if isinstance(array, int) and array < len(arrays) else None
        if use in (None, "System Memory"):
            out.append(slot)
    return out


def _mts(slot: dict[str, Any]) -> int | None:
    return slot.get("configured_mts") or slot.get("speed_mts")


def _channel_peak(channel: Channel) -> int | None:
    speeds = [_mts(s) for s in channel.slots if s.get("populated")]
    return min(s for s in speeds if s) * BYTES_PER_TRANSFER * 1_000_000 if any(speeds) else None


def _no_facts(inv: InventoryRecord, slots: list[dict[str, Any]] | None) -> str | None:
    if slots is None:
        return ("no DIMM facts: dmidecode gave no table (not root, not installed, or no "
                "SMBIOS table, as in many VMs)")
    if not slots:
        return "no DIMM facts: dmidecode lists no memory device (no SMBIOS memory table: a VM?)"
    if all(s.get("populated") is None for s in slots):
        return "no DIMM facts: the firmware gives no module sizes"
    if inv.cpu.get("hypervisor"):
        return (f"a virtual machine ({inv.cpu['hypervisor']}): its DIMMs are what the "
                "hypervisor shows, not memory channels")
    return None


def node_population(inv: InventoryRecord, triad_bps: float | None = None) -> dict[str, Any]:
    """One node's population as the findings store it (docs/results-schema.md)."""
    slots = _slots(inv)
    out: dict[str, Any] = {"node": inv.host or "?"}
    family = cpu_family(inv.cpu.get("model"))
    if family:
        out.update(cpu_family=family.name, cpu_channels=family.channels, cpu_ddr=family.ddr)
    none = _no_facts(inv, slots)
    if none or slots is None:
        out["no_facts"] = none
        return out
    dimms = [s for s in slots if s.get("populated")]
    out.update(slots=len(slots), populated=len(dimms),
               sizes={str(k): v for k, v in Counter(s["size_bytes"] for s in dimms).items()},
               speeds_mts={str(k): v for k, v in Counter(_mts(s) for s in dimms if _mts(s)).items()},
               types=sorted({s["type"] for s in dimms if s.get("type")}))
    placed = place(slots, family.channels if family else None)
    if placed is None:
        out["board"] = None
    else:
        out["board"], channels = placed
        names = dict(zip((id(s) for s in slots), _slot_names(slots), strict=True))
        out["channels"] = [{"socket": c.socket, "channel": c.label,
                            "slots": [names[id(s)] for s in c.slots],
                            "dimms": sum(1 for s in c.slots if s.get("populated")),
                            "peak_bps": _channel_peak(c)} for c in channels]
        out["empty_channels"] = [c for c in out["channels"] if not c["dimms"]]
        peaks = [c["peak_bps"] for c in out["channels"] if c["peak_bps"]]
        out["peak_bps"] = sum(peaks) or None
        counts = Counter(c["dimms"] for c in out["channels"] if c["dimms"])
        if len(counts) > 1:
            most = counts.most_common(1)[0][0]
            out["uneven_channels"] = [c for c in out["channels"] if c["dimms"] and c["dimms"] < most]
    if triad_bps:
        out["triad_bps"] = triad_bps
        if out.get("peak_bps"):
            out["triad_share_of_peak"] = triad_bps / out["peak_bps"]
    return out


def _where(channels: list[dict[str, Any]]) -> tuple[str, str]:
    """('channel F of socket 1 and channel A of socket 2', 'P1-DIMMF1, P2-DIMMA1')."""
    names = " and ".join(f"channel {c['channel']} of socket {c['socket']}" for c in channels)
    return names, ", ".join(str(s) for c in channels for s in c["slots"])


def _slot_names(slots: list[dict[str, Any]]) -> list[str]:
    """Each slot's locator; with its bank locator when locators repeat ('DIMM 0' on every
    channel of AMD reference boards)."""
    locators = [str(s.get("locator")) for s in slots]
    if len(set(locators)) == len(locators):
        return locators
    return [f"{s.get('bank_locator')} {loc}" if s.get("bank_locator") else loc
            for s, loc in zip(slots, locators, strict=True)]


def _mix(node: dict[str, Any]) -> list[str]:
    out = []
    if len(node["sizes"]) > 1:
        sizes = ", ".join(f"{n} × {_gib(int(k))}" for k, n in sorted(node["sizes"].items(),
                                                                      key=lambda kv: -int(kv[0])))
        out.append(f"mixed DIMM sizes ({sizes})")
    if len(node["speeds_mts"]) > 1:
        speeds = ", ".join(f"{n} at {k} MT/s" for k, n in sorted(node["speeds_mts"].items(),
                                                                 key=lambda kv: -int(kv[0])))
        out.append(f"DIMMs at different speeds ({speeds})")
    return out


def _sentence(node: dict[str, Any], ref: dict[str, Any] | None, triads: Mapping[str, float]
              ) -> str | None:
    """The node's finding, or None when it has none."""
    name, clauses = node["node"], []
    below = ref is not None and ref is not node and node["populated"] < ref["populated"]
    if node.get("empty_channels") or node.get("uneven_channels") or below:
        text = f"{node['populated']} of {node['slots']} DIMM slots populated"
        if below and ref is not None and ref["populated"] < ref["slots"]:
            text += f" against {ref['populated']} on {ref['node']}"
        if node.get("empty_channels"):
            names, where = _where(node["empty_channels"])
            text += f", {names} empty ({where})"
        elif node.get("uneven_channels"):
            names, where = _where(node["uneven_channels"])
            text += f", fewer DIMMs on {names} than on the others ({where})"
        if node.get("board") is None:
            text += " (board not recognised: channels not named)"
        clauses.append(text)
    clauses += _mix(node)
    if ref is not None and ref is not node and set(node["speeds_mts"]) != set(ref["speeds_mts"]) \
            and node["speeds_mts"] and not _mix(node):
        clauses.append(f"DIMMs at {next(iter(node['speeds_mts']))} MT/s against "
                       f"{'/'.join(ref['speeds_mts'])} MT/s on {ref['node']}")
    if not clauses:
        return None
    text = f"{name}: " + ", ".join(clauses)
    if ref is not None and ref is not node and name in triads and ref["node"] in triads:
        text += f"; triad {triads[name] / triads[ref['node']]:.0%} of {ref['node']}'s"
    return text


def population_finding(records: Sequence[object], triads: Mapping[str, float] | None = None
                       ) -> dict[str, Any] | None:
    """The 'memory_population' finding of the inventories among `records` (None without
    any): {nodes: {host: node_population}, reference, warnings, notes}. `triads`: STREAM
    triad bytes/s by node, when the caller has them."""
    invs = [r for r in records if isinstance(r, InventoryRecord)]
    if not invs:
        return None
    triads = dict(triads or {})
    nodes = [node_population(inv, triads.get(inv.host or "?")) for inv in invs]
    known = [n for n in nodes if not n.get("no_facts")]
    refs = _references(known, {inv.host or "?": inv.cpu.get("model") for inv in invs})
    warnings = [s for n in known if (s := _sentence(n, refs.get(n["node"]), triads))]
    notes = [f"{n['node']}: {n['no_facts']}" for n in nodes if n.get("no_facts")]
    notes += [f"{n['node']}: board not recognised from its slot names: DIMM counts compared, "
              "channels not named" for n in known if n.get("board") is None]
    for n in known:
        if n.get("peak_bps"):
            used = sum(1 for c in n["channels"] if c["dimms"])
            notes.append(f"{n['node']}: theoretical memory peak {fmt_bw(n['peak_bps'])} "
                         f"({used} of {len(n['channels'])} channels populated)")
    return {"nodes": {n["node"]: n for n in nodes},
            "references": {node: ref["node"] for node, ref in refs.items()},
            "warnings": warnings, "notes": notes}


def _references(known: list[dict[str, Any]], models: Mapping[str, str | None]
                ) -> dict[str, dict[str, Any]]:
    """Each node's reference: of the nodes of its kind (same slot count, same CPU model),
    the one with the most DIMMs (then the highest peak). A node alone of its kind has none:
    servers of different boards are not held to each other's population."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for n in known:
        groups.setdefault((n["slots"], models.get(n["node"])), []).append(n)
    refs = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        ref = max(members, key=lambda n: (n["populated"], n.get("peak_bps") or 0))
        refs.update({n["node"]: ref for n in members})
    return refs
