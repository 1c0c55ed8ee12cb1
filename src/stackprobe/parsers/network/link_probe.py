"""The link probe's output (one host) -> a link record per NIC, InfiniBand port and bond.

The probe (kinds/network/link_probe_script.py) prints every file it read under a marker
line, `### <what> <name> [<file>]`, and ends with `### end`:

    ### net eth0 speed          /sys/class/net/eth0/speed
    ### net eth0 driver         the basename of the device/driver link
    ### ib mlx5_0 fw_ver        /sys/class/infiniband/mlx5_0/fw_ver
    ### ib mlx5_0/1 rate        /sys/class/infiniband/mlx5_0/ports/1/rate
    ### bond bond0              /proc/net/bonding/bond0
    ### cmd ethtool_eth0.txt    a command's output (ethtool, ethtool -i, ibstat, ip -o addr)

sysfs comes first; ethtool fills what sysfs leaves unknown and gives the NIC's firmware;
ibstat stands in for sysfs only when the host has no /sys/class/infiniband; a command's
output that cannot be read is left out (the text stays in the step's files), a sysfs value
that cannot be read is an error naming its line.
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.parsers.network.bonding import parse_bonding
from stackprobe.parsers.network.ethtool_text import parse_ethtool, parse_ethtool_info
from stackprobe.parsers.network.ib_values import apply_port_value
from stackprobe.parsers.network.ibstat import parse_ibstat
from stackprobe.schema.link_records import LinkRecord

MARK = "### "
END = "### end"
_UNKNOWN_SPEED = 4_294_967_295  # (u32)-1: what some drivers write for 'unknown'


def sections(text: str) -> list[tuple[int, list[str], str]]:
    """(line number of the marker, its words, the text under it) for every section; a
    ValueError when the output does not end with the end marker (cut short)."""
    out: list[tuple[int, list[str], list[str]]] = []
    ended = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.rstrip() == END:
            ended = True
            break
        if line.startswith(MARK):
            out.append((number, line[len(MARK):].split(), []))
        elif out:
            out[-1][2].append(line)
    if not ended:
        raise ValueError("link probe: no '### end' line: the probe's output is cut short")
    return [(n, words, "\n".join(body).strip()) for n, words, body in out]


def _nic_value(record: LinkRecord, key: str, value: str, number: int) -> None:
    if key == "speed" and value:
        mbps = finite(value, f"link probe: line {number}: speed")
        record.speed_mbps = mbps if 0 < mbps < _UNKNOWN_SPEED else None
    elif key == "operstate":
        record.state = value or None
    elif key == "carrier":
        record.phys_state = {"1": "up", "0": "down"}.get(value)
    elif key == "duplex":
        record.duplex = value if value and value != "unknown" else None
    elif key == "mtu" and value:
        mtu = finite(value, f"link probe: line {number}: mtu")
        record.mtu = int(mtu) if 0 < mtu < 2**31 else None
    elif key == "driver":
        record.driver = value or None
    elif key == "master":
        record.master = value or None
    elif key == "device":
        record.physical = True


def _addresses(text: str) -> dict[str, list[str]]:
    """{nic: [address, ...]} from `ip -o addr show` lines."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("inet", "inet6"):
            out.setdefault(parts[1].split("@")[0], []).append(parts[3].split("/")[0])
    return out


def _apply_commands(commands: dict[str, str], nics: dict[str, LinkRecord],
                    ports: dict[str, LinkRecord], host: str | None) -> dict[str, list[str]]:
    for name, nic in nics.items():
        try:
            link = parse_ethtool(commands.get(f"ethtool_{name}.txt", ""))
            nic.speed_mbps = nic.speed_mbps if nic.speed_mbps is not None else link.speed_mbps
            nic.duplex = nic.duplex or link.duplex
        except ValueError:
            pass
        try:
            info = parse_ethtool_info(commands.get(f"ethtool-i_{name}.txt", ""))
            nic.driver = nic.driver or info.driver
            nic.firmware = info.firmware if info.firmware not in ("N/A", "") else None
        except ValueError:
            pass
    if "ibstat.txt" in commands:
        try:
            from_ibstat = parse_ibstat(commands["ibstat.txt"], host=host)
        except ValueError:
            from_ibstat = []
        for port in from_ibstat:
            if not ports:
                continue
            if port.name in ports and ports[port.name].firmware is None:
                ports[port.name].firmware = port.firmware
        if not ports:
            ports.update({p.name: p for p in from_ibstat})
    return _addresses(commands.get("ip_addr.txt", ""))


@guard("link probe")
def parse_link_probe(text: str, host: str | None = None) -> list[LinkRecord]:
    """Every link of the host, NICs first (their names' order), then ports, then bonds."""
    nics: dict[str, LinkRecord] = {}
    ports: dict[str, LinkRecord] = {}
    firmware: dict[str, str] = {}
    bonds: list[LinkRecord] = []
    commands: dict[str, str] = {}
    for number, words, body in sections(text):
        what = words[0] if words else ""
        if what == "net" and len(words) == 3:
            nic = nics.setdefault(words[1], LinkRecord(host=host, name=words[1], link="nic",
                                                       physical=False))
            _nic_value(nic, words[2], body, number)
        elif what == "ib" and len(words) == 3 and "/" in words[1]:
            port = ports.setdefault(words[1], LinkRecord(host=host, name=words[1], link="ib"))
            try:
                apply_port_value(port, words[2], body)
            except ValueError as exc:
                raise ValueError(f"link probe: line {number}: {exc}") from None
        elif what == "ib" and len(words) == 3 and words[2] == "fw_ver":
            firmware[words[1]] = body
        elif what == "bond" and len(words) == 2:
            try:
                bonds.append(parse_bonding(body, name=words[1], host=host))
            except ValueError as exc:
                raise ValueError(f"link probe: line {number}: {exc}") from None
        elif what == "cmd" and len(words) == 2:
            commands[words[1]] = body
    for name, port in ports.items():
        port.firmware = firmware.get(name.split("/")[0]) or None
    addresses = _apply_commands(commands, nics, ports, host)
    for bond in bonds:
        if bond.name in nics:  # the bond's own sysfs entry: its state, speed and MTU
            own = nics.pop(bond.name)
            bond.speed_mbps, bond.mtu = own.speed_mbps, own.mtu
            bond.state = own.state or bond.state
    records = [*nics.values(), *ports.values(), *bonds]
    for record in records:
        record.addresses = addresses.get(record.name, [])
    return records
