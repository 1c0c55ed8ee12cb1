"""Links of a fleet judged against the hosts file and against each other.

Why both: the hosts file says what was bought ('mlx5_0/1: 100000'), the fleet says what
the others negotiated. A single FDR cable in an EDR fabric (seed 004) is caught by either;
without a hosts file only the fleet can tell, and then only when most hosts agree.

What is flagged, each with a sentence naming host and link:
- a link slower than the hosts file expects, or one it names that the host does not have;
- a link slower than the speed most hosts run on the same link name (three or more hosts,
  the majority more than half of them): 'h7 mlx5_0 port 1: 56 Gb/sec (4X FDR) while 15
  hosts run 100 Gb/sec (4X EDR)';
- a link down (IB: not ACTIVE/LinkUp) that the hosts file expects or that is up on another
  host; a link down on every host having it and expected nowhere is noted, not flagged
  (an uncabled second port);
- a bond down, a member down, a member slower than its peers, an 802.3ad bond with no
  active aggregator or a member outside the active one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from stackprobe.schema.link_records import LinkRecord

MIN_FLEET = 3  # hosts sharing a link name before a majority means anything


@dataclass
class LinkVerdict:
    host: str
    name: str
    link: str
    state: str
    speed: str
    speed_mbps: float | None
    expected_mbps: float | None = None
    fleet_mbps: float | None = None
    driver: str | None = None
    firmware: str | None = None
    flags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def label(record: LinkRecord) -> str:
    """'mlx5_0 port 1' for an IB port, the name otherwise."""
    if record.link == "ib" and "/" in record.name:
        device, port = record.name.rsplit("/", 1)
        return f"{device} port {port}"
    return record.name


def speed_text(record: LinkRecord) -> str:
    """'100 Gb/sec (4X EDR)', '25 Gb/s', 'unknown'; a bond's members after its own:
    '20 Gb/s (eth1 10 Gb/s, eth2 down)'."""
    if record.link == "bond" and record.members:
        own = mbps_text(record.speed_mbps) if record.speed_mbps else "unknown"
        parts = [f"{m.name} {mbps_text(m.speed_mbps)}" if (m.mii_status or "") == "up"
                 and m.speed_mbps else f"{m.name} {m.mii_status or '?'}"
                 for m in record.members]
        return f"{own} ({', '.join(parts)})"
    if record.rate_text:
        return record.rate_text
    if record.speed_mbps is None:
        return "unknown"
    if record.link == "ib":
        return f"{record.speed_mbps / 1000:g} Gb/sec"
    return mbps_text(record.speed_mbps)


def mbps_text(mbps: float) -> str:
    return f"{mbps / 1000:g} Gb/s" if mbps >= 1000 else f"{mbps:g} Mb/s"


def is_up(record: LinkRecord) -> bool:
    if record.link == "ib":
        return (record.state or "").upper() == "ACTIVE" and \
            (record.phys_state or "").lower() == "linkup"
    return (record.state or "").lower() == "up"


def state_text(record: LinkRecord) -> str:
    if record.link == "ib":
        return f"{record.state or '?'}/{record.phys_state or '?'}"
    return record.state or "unknown"


def _majorities(records: list[LinkRecord]) -> dict[tuple[str, str], tuple[float, int, str]]:
    """(link, name) -> (the majority's Mb/s, how many hosts run it, its text)."""
    groups: dict[tuple[str, str], list[LinkRecord]] = {}
    for r in records:
        if is_up(r) and r.speed_mbps is not None:
            groups.setdefault((r.link, r.name), []).append(r)
    out = {}
    for key, group in groups.items():
        if len(group) < MIN_FLEET:
            continue
        speed, count = Counter(r.speed_mbps for r in group).most_common(1)[0]
        if count * 2 > len(group):
            text = next(speed_text(r) for r in group if r.speed_mbps == speed)
            out[key] = (speed, count, text)
    return out


def _bond_flags(host: str, bond: LinkRecord) -> list[str]:
    out = []
    members = bond.members
    up = [m for m in members if (m.mii_status or "").lower() == "up"]
    for m in members:
        if m not in up:
            out.append(f"{host} {bond.name}: member {m.name} MII status {m.mii_status or '?'}"
                       f" ({len(up)} of {len(members)} members up)")
    fastest = max((m.speed_mbps for m in up if m.speed_mbps), default=None)
    for m in up:
        if fastest and m.speed_mbps and m.speed_mbps < fastest:
            out.append(f"{host} {bond.name}: member {m.name} at {mbps_text(m.speed_mbps)} "
                       f"while its peers run {mbps_text(fastest)}")
    if "802.3ad" in (bond.bond_mode or ""):
        if bond.active_aggregator == "none":
            out.append(f"{host} {bond.name}: 802.3ad with no active aggregator (LACP not "
                       "negotiated with the switch)")
        else:
            for m in up:
                agg = m.aggregator_id
                if agg and bond.active_aggregator and agg != bond.active_aggregator:
                    out.append(f"{host} {bond.name}: member {m.name} in aggregator {agg}, not "
                               f"the active {bond.active_aggregator} (it carries no traffic)")
    return out


def judge_links(records: list[LinkRecord], expected: dict[str, dict[str, float]]
                ) -> list[LinkVerdict]:
    """One verdict per link of every host (loopback left out), and one per link the hosts
    file expects that a host does not have."""
    records = [r for r in records if r.name != "lo" and r.host is not None]
    majorities = _majorities(records)
    up_somewhere = {(r.link, r.name) for r in records if is_up(r)}
    out: list[LinkVerdict] = []
    for r in records:
        host = r.host or "?"
        want = expected.get(host, {}).get(r.name)
        v = LinkVerdict(host, r.name, r.link, state_text(r), speed_text(r), r.speed_mbps,
                        want, driver=r.driver, firmware=r.firmware)
        where = f"{host} {label(r)}"
        if not is_up(r):
            elsewhere = any((r.link, r.name) == k for k in up_somewhere)
            if want or elsewhere or r.link == "bond":
                why = "the hosts file expects it" if want else "up on other hosts"
                v.flags.append(f"{where}: {state_text(r)}, not up ({why})")
            elif r.link == "ib" or r.physical:
                v.notes.append(f"{where}: {state_text(r)} on every host that has it")
        else:
            if want and r.speed_mbps is not None and r.speed_mbps < want:
                v.flags.append(f"{where}: {speed_text(r)}, the hosts file expects "
                               f"{mbps_text(want)}")
            elif want and r.speed_mbps is None:
                v.notes.append(f"{where}: speed not reported, the hosts file expects "
                               f"{mbps_text(want)}")
            major = majorities.get((r.link, r.name))
            if major and r.speed_mbps is not None:
                v.fleet_mbps = major[0]
                if r.speed_mbps < major[0]:
                    v.flags.append(f"{where}: {speed_text(r)} while {major[1]} hosts run "
                                   f"{major[2]}")
        if r.link == "bond":
            v.flags += _bond_flags(host, r)
        out.append(v)
    seen = {(v.host, v.name) for v in out}
    for host, links in expected.items():
        for name, want in links.items():
            if (host, name) not in seen:
                out.append(LinkVerdict(host, name, "?", "missing", "-", None, want, flags=[
                    f"{host} {name}: not found, the hosts file expects {mbps_text(want)}"]))
    return out
