"""Records of the link_state kind: one per NIC, InfiniBand/RoCE port or bond of a host.

Why a module of its own: a link's state is not a measured rate but what the kernel and
the driver say they negotiated (sysfs, ethtool, ibstat, /proc/net/bonding), and a fleet
is judged by comparing them — one FDR cable among EDR ones, a bond running on one leg.
Speeds are kept in Mb/s as the kernel's own unit for NICs (`/sys/class/net/*/speed`), an
InfiniBand rate ('100 Gb/sec (4X EDR)') converted once by the parser.

Their base (schema/record_base.py) is the one every record shares.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stackprobe.schema.record_base import MODEL, RecordBase


class BondMember(BaseModel):
    """One member ('Slave Interface') of a bond, as /proc/net/bonding prints it."""

    model_config = MODEL

    name: str
    mii_status: str | None = None  # 'up', 'down', 'going back', ...
    speed_mbps: float | None = None  # None: 'Unknown' or not printed (old drivers)
    duplex: str | None = None
    link_failures: int | None = None
    aggregator_id: str | None = None  # 802.3ad: the member's aggregator ('N/A' when none)


class LinkRecord(RecordBase):
    """One link of one host: what its state, speed and driver are, and where that came
    from (`source`: sysfs, ibstat, bonding)."""

    type: Literal["link"] = "link"
    host: str | None = None
    name: str  # 'eth0', 'mlx5_0/1' (device/port), 'bond0'
    link: Literal["nic", "ib", "bond"]
    state: str | None = None  # NIC operstate ('up'), IB state ('ACTIVE'), bond MII status
    phys_state: str | None = None  # IB physical state ('LinkUp'); NIC carrier ('1' -> 'up')
    speed_mbps: float | None = None  # negotiated; None: not reported (down, virtual, VM)
    rate_text: str | None = None  # IB: '100 Gb/sec (4X EDR)', as the kernel printed it
    width: str | None = None  # IB: '4X'
    generation: str | None = None  # IB: 'EDR', 'FDR', 'HDR'
    link_layer: str | None = None  # IB: 'InfiniBand' or 'Ethernet' (RoCE)
    duplex: str | None = None
    mtu: int | None = None
    driver: str | None = None
    firmware: str | None = None
    physical: bool | None = None  # NIC: has a device (not veth, bridge, bond, lo)
    master: str | None = None  # NIC: the bond or bridge it is enslaved to
    bond_mode: str | None = None  # 'IEEE 802.3ad Dynamic link aggregation', ...
    lacp_rate: str | None = None
    active_aggregator: str | None = None  # 802.3ad: its ID; 'none': LACP formed none
    members: list[BondMember] = Field(default_factory=list)
    addresses: list[str] = Field(default_factory=list)  # IP addresses it holds (ip -o addr)
    source: str = "sysfs"
