"""`ethtool <nic>` and `ethtool -i <nic>` -> what a NIC negotiated and which driver and
firmware run it.

Only what the link state needs: speed ('Speed: 25000Mb/s'; 'Unknown!' on a link down or a
virtual NIC), duplex and 'Link detected'; from -i the driver, its version, the firmware
and the PCI address. Counters (`ethtool -S`) belong to the soak, not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackprobe.parsers.bad_input import finite, guard

_SETTINGS = re.compile(r"^Settings for (\S+?):\s*$")
_SPEED = re.compile(r"^([0-9.]+)\s*Mb/s$")
_MAX_MBPS = 10_000_000.0  # 10 Tb/s: beyond any NIC


@dataclass
class EthtoolLink:
    name: str | None = None
    speed_mbps: float | None = None
    duplex: str | None = None
    link_detected: bool | None = None


@dataclass
class EthtoolInfo:
    driver: str | None = None
    version: str | None = None
    firmware: str | None = None
    bus_info: str | None = None


@guard("ethtool")
def parse_ethtool(text: str) -> EthtoolLink:
    """The 'Settings for NIC:' block; ValueError when there is none."""
    out: EthtoolLink | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        m = _SETTINGS.match(line)
        if m:
            out = EthtoolLink(name=m.group(1))
            continue
        if out is None or ":" not in line:
            continue
        key, value = (part.strip() for part in line.split(":", 1))
        if key == "Speed":
            speed = _SPEED.match(value)
            if speed:
                mbps = finite(speed.group(1), f"ethtool: line {number}: Speed")
                out.speed_mbps = mbps if 0 < mbps <= _MAX_MBPS else None
        elif key == "Duplex":
            out.duplex = value.lower() if value and not value.startswith("Unknown") else None
        elif key == "Link detected":
            out.link_detected = {"yes": True, "no": False}.get(value)
    if out is None:
        raise ValueError("ethtool: no 'Settings for NIC:' line")
    return out


@guard("ethtool -i")
def parse_ethtool_info(text: str) -> EthtoolInfo:
    """The driver block; ValueError without a 'driver:' line."""
    fields: dict[str, str] = {}
    for raw in text.splitlines():
        if ":" in raw:
            key, value = (part.strip() for part in raw.split(":", 1))
            fields.setdefault(key, value)
    if not fields.get("driver"):
        raise ValueError("ethtool -i: no 'driver:' line")
    return EthtoolInfo(driver=fields["driver"], version=fields.get("version") or None,
                       firmware=fields.get("firmware-version") or None,
                       bus_info=fields.get("bus-info") or None)
