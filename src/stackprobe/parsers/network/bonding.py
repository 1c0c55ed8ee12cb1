"""/proc/net/bonding/<bond> -> one link record with the bond's mode and its members.

    Bonding Mode: IEEE 802.3ad Dynamic link aggregation
    MII Status: up
    802.3ad info
    LACP rate: fast
    Active Aggregator Info:
            Aggregator ID: 2
    Slave Interface: enp7s0
    MII Status: up
    Speed: 1000 Mbps
    Aggregator ID: 1

Lines before the first 'Slave Interface' are the bond's, after it the member's; the
'Aggregator ID' under 'Active Aggregator Info' is the bond's active aggregator. A bond
whose LACP never formed says 'bond bondN has no active aggregator'. Speed is 'Unknown' on
a member down, and absent in old drivers' output.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.link_records import BondMember, LinkRecord

_SPEED = re.compile(r"^([0-9.]+)\s*Mbps$")
_MAX_MBPS = 10_000_000.0


def _speed(value: str, number: int) -> float | None:
    m = _SPEED.match(value)
    if not m:
        return None  # 'Unknown'
    mbps = finite(m.group(1), f"bonding: line {number}: Speed")
    return mbps if 0 < mbps <= _MAX_MBPS else None


@guard("bonding")
def parse_bonding(text: str, name: str = "bond", host: str | None = None) -> LinkRecord:
    """The bond `name` as its /proc/net/bonding file describes it."""
    bond = LinkRecord(host=host, name=name, link="bond", source="bonding")
    member: BondMember | None = None
    in_active = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("bond ") and line.endswith("has no active aggregator"):
            bond.active_aggregator = "none"
            continue
        if ":" not in line:
            continue
        key, value = (part.strip() for part in line.split(":", 1))
        if key == "Slave Interface":
            member = BondMember(name=value)
            bond.members.append(member)
            in_active = False
            continue
        if member is None:
            if key == "Bonding Mode":
                bond.bond_mode = value or None
            elif key == "MII Status":
                bond.state = value or None
            elif key == "LACP rate":
                bond.lacp_rate = value or None
            elif key == "Active Aggregator Info":
                in_active = True
            elif key == "Aggregator ID" and in_active:
                bond.active_aggregator = value or None
            continue
        if key == "MII Status":
            member.mii_status = value or None
        elif key == "Speed":
            member.speed_mbps = _speed(value, number)
        elif key == "Duplex":
            member.duplex = value if value and value != "Unknown" else None
        elif key == "Link Failure Count" and value.isdigit() and len(value) < 19:
            member.link_failures = int(value)
        elif key == "Aggregator ID" and member.aggregator_id is None:
            member.aggregator_id = value or None
    if bond.bond_mode is None:
        raise ValueError("bonding: no 'Bonding Mode:' line")
    return bond
