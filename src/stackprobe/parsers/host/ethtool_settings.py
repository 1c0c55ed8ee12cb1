"""`ethtool -g <nic>` (ring sizes) and `ethtool -k <nic>` (offload features) -> what a NIC
is set to.

Why: an RX ring left at a driver's default of 256 where the NIC takes 4096 drops packets
under a storage cluster's bursts, and a generic-receive-offload turned off on one host of
a fleet costs it a third of its receive rate; both are set per host and forgotten.

`-g` prints 'Pre-set maximums:' then 'Current hardware settings:', each with 'RX:' and
'TX:' lines ('n/a' where the driver has no such ring). `-k` prints 'feature: on|off',
sub-features indented under their feature, with '[fixed]' (cannot be changed) or
'[requested on]' after the value; only the value is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackprobe.parsers.bad_input import guard

_RING = re.compile(r"^Ring parameters for (\S+?):\s*$")
_FEATURES = re.compile(r"^Features for (\S+?):\s*$")
_FEATURE = re.compile(r"^([a-z0-9][a-z0-9_-]*):\s+(on|off)\b")
_COUNT = re.compile(r"^\d{1,9}$")


@dataclass
class EthtoolRing:
    rx: int | None = None
    tx: int | None = None
    rx_max: int | None = None
    tx_max: int | None = None


@guard("ethtool -g")
def parse_ethtool_ring(text: str) -> EthtoolRing:
    """The current and maximum RX/TX ring sizes; ValueError without the header line."""
    ring: EthtoolRing | None = None
    part = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if _RING.match(line):
            ring = EthtoolRing()
            continue
        if ring is None:
            continue
        if line.startswith("Pre-set maximums"):
            part = "max"
        elif line.startswith("Current hardware settings"):
            part = "current"
        elif ":" in line and part:
            key, value = (p.strip() for p in line.split(":", 1))
            if key not in ("RX", "TX"):
                continue
            if value == "n/a":
                continue
            if not _COUNT.match(value):
                raise ValueError(f"ethtool -g: line {number}: {key}: not a count: {value[:40]!r}")
            field = key.lower() + ("_max" if part == "max" else "")
            setattr(ring, field, int(value))
    if ring is None:
        raise ValueError("ethtool -g: no 'Ring parameters for NIC:' line")
    return ring


@guard("ethtool -k")
def parse_ethtool_features(text: str) -> dict[str, str]:
    """{feature: 'on'|'off'} of the top-level features (indented sub-features left out);
    ValueError without the header line."""
    found = False
    out: dict[str, str] = {}
    for raw in text.splitlines():
        if _FEATURES.match(raw.strip()):
            found = True
            continue
        if not found or raw[:1].isspace():
            continue
        m = _FEATURE.match(raw.strip())
        if m:
            out.setdefault(m.group(1), m.group(2))
    if not found:
        raise ValueError("ethtool -k: no 'Features for NIC:' line")
    return out
