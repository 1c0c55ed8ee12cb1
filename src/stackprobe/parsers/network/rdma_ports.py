"""The RDMA ports of a host, from its /sys/class/infiniband tree -> RdmaPort.

Why sysfs and not `ibstat`: the kernel's files are there whenever a device is (InfiniBand,
RoCE, iWARP, the soft rdma_rxe and siw), while ibstat comes from a package a host may lack,
and the files need no tool on a host that has no device at all. The `rdma` step reads them
with one command per host (kinds/network/rdma_argv.py: `grep -H .` over each device's
`ports/<n>/{state,phys_state,rate,link_layer}`, run inside the class directory), whose
lines look like

    mlx4_0/ports/1/state:4: ACTIVE
    mlx4_0/ports/1/phys_state:5: LinkUp
    mlx4_0/ports/1/rate:40 Gb/sec (4X QDR)
    mlx4_0/ports/1/link_layer:InfiniBand

The values are what the kernel prints (drivers/infiniband/core/sysfs.c): a state as its
number and name, a rate as Gb/s with the lane width and speed in brackets. No line at all
means no device (the directory is missing or empty). Anything else is not this listing:
ValueError naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackprobe.parsers.bad_input import finite, guard

_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})/ports/(\d{1,5})/"
                   r"(state|phys_state|rate|link_layer):(.*)$")
_STATE = re.compile(r"^\d{1,3}: ([A-Za-z_]{1,20})$")
_RATE = re.compile(r"^(\d{1,6}(?:\.\d{1,6})?) Gb/sec(?: \(([^()]{0,40})\))?$")
_LAYER = re.compile(r"^[A-Za-z]{1,20}$")


@dataclass
class RdmaPort:
    """One port of one RDMA device, as sysfs shows it."""

    device: str  # 'mlx5_0'
    port: int  # from 1
    state: str | None = None  # 'ACTIVE', 'DOWN', 'INIT', 'ARMED'
    phys_state: str | None = None  # 'LinkUp', 'Polling', 'Disabled'
    rate_gbps: float | None = None  # 100.0 (per port, all lanes)
    rate_text: str | None = None  # '4X EDR'
    link_layer: str | None = None  # 'InfiniBand', 'Ethernet' (RoCE)

    @property
    def active(self) -> bool:
        return self.state == "ACTIVE"

    @property
    def name(self) -> str:
        return f"{self.device} port {self.port}"


def discovered(text: str) -> bool:
    """True when the listing names at least one port (a host with an RDMA device)."""
    return any(_LINE.match(line) for line in text.splitlines())


@guard("RDMA port listing")
def parse_rdma_ports(text: str) -> list[RdmaPort]:
    """Every port the listing names, in device then port order; [] for an empty listing."""
    ports: dict[tuple[str, int], RdmaPort] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        m = _LINE.match(line)
        if m is None:
            raise ValueError(f"RDMA port listing: line {number}: not '<device>/ports/<n>/"
                             f"<attribute>:<value>' ({line[:60]!r})")
        device, port, attribute, value = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        entry = ports.setdefault((device, port), RdmaPort(device, port))
        _set(entry, attribute, value.strip(), number)
    return [ports[k] for k in sorted(ports)]


def _set(entry: RdmaPort, attribute: str, value: str, number: int) -> None:
    where = f"RDMA port listing: line {number}: {entry.device} port {entry.port} {attribute}"
    if attribute in ("state", "phys_state"):
        m = _STATE.match(value)
        if m is None:
            raise ValueError(f"{where} {value[:40]!r} is not '<number>: <name>'")
        setattr(entry, attribute, m.group(1).upper() if attribute == "state" else m.group(1))
    elif attribute == "rate":
        m = _RATE.match(value)
        if m is None:
            raise ValueError(f"{where} {value[:40]!r} is not '<n> Gb/sec (<width> <speed>)'")
        entry.rate_gbps = finite(m.group(1), where)
        entry.rate_text = m.group(2)
    else:
        if _LAYER.match(value) is None:
            raise ValueError(f"{where} {value[:40]!r} is not a link layer's name")
        entry.link_layer = value
