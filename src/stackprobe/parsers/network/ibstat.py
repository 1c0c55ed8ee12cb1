"""`ibstat` (infiniband-diags) -> one link record per port of every CA.

    CA 'mlx5_0'
            CA type: MT4123
            Firmware version: 20.33.1048
            Port 1:
                    State: Active
                    Physical state: LinkUp
                    Rate: 200
                    Link layer: InfiniBand

Indentation is not relied on (copies of it lose it): a 'CA' line opens a device, a
'Port N:' line a port, and the keys say which they belong to. `Rate` is in Gb/s without a
width or generation (the sysfs rate file has them). A text cut inside a port keeps what
was printed of it.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.parsers.network.ib_values import state_word
from stackprobe.schema.link_records import LinkRecord

_CA = re.compile(r"^CA '([^']+)'\s*$")
_PORT = re.compile(r"^Port (\d+):\s*$")
_MAX_GBPS = 100_000.0


@guard("ibstat")
def parse_ibstat(text: str, host: str | None = None) -> list[LinkRecord]:
    """Every port ibstat printed, in its order; ValueError when no CA and port is there."""
    out: list[LinkRecord] = []
    ca: str | None = None
    firmware: str | None = None
    port: LinkRecord | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        m = _CA.match(line)
        if m:
            ca, firmware, port = m.group(1), None, None
            continue
        m = _PORT.match(line)
        if m and ca is not None:
            port = LinkRecord(host=host, name=f"{ca}/{m.group(1)}", link="ib",
                              firmware=firmware, source="ibstat")
            out.append(port)
            continue
        if ca is None or ":" not in line:
            continue
        key, value = (part.strip() for part in line.split(":", 1))
        if key == "Firmware version":
            firmware = value or None
        elif port is None:
            continue
        elif key == "State":
            port.state = state_word(value)
        elif key == "Physical state":
            port.phys_state = state_word(value)
        elif key == "Link layer":
            port.link_layer = value or None
        elif key == "Rate" and value:
            gbps = finite(value, f"ibstat: line {number}: Rate")
            if not 0 <= gbps <= _MAX_GBPS:
                raise ValueError(f"ibstat: line {number}: Rate {value} Gb/s is out of range")
            port.speed_mbps = gbps * 1000.0
    if not out:
        raise ValueError("ibstat: no \"CA '...'\" with a 'Port N:' in it")
    return out
