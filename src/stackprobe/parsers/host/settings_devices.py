"""NIC, disk and mount settings from the settings probe's sources.

Why: a storage cluster's throughput rests on each host's NICs (MTU, rings, offloads,
firmware), disks (scheduler, read-ahead, write cache) and the mount options of its data
and client filesystems; one host of a role that differs in any of them differs in every
figure measured through it.

NICs are those backed by a device (sysfs `device`: not lo, veth, bridges or bonds — a
bond's members are NICs); disks are whole disks (no loop, ram, zram, dm, md); mounts are
those of block-device and network/cluster filesystems, and of any path asked for.
"""

from __future__ import annotations

import re

from stackprobe.parsers.host.ethtool_settings import parse_ethtool_features, parse_ethtool_ring
from stackprobe.parsers.host.settings_names import DISK_FILES, MOUNT_FSTYPES, OFFLOADS
from stackprobe.parsers.host.settings_sources import Collected, Sources, command_line
from stackprobe.parsers.network.ethtool_text import parse_ethtool_info

_NIC = re.compile(r"^/sys/class/net/([^/]+)/mtu$")
_DISK = re.compile(r"^/sys/block/([^/]+)/(device/[a-z_]+|queue/[a-z_]+)$")
_SELECTED = re.compile(r"\[([^\]]+)\]")
_OCTAL = re.compile(r"\\([0-7]{3})")


def _nics(src: Sources, out: Collected) -> None:
    names = sorted({m.group(1) for p in src.files if (m := _NIC.match(p))}
                   | {p.split("/")[4] for p in src.links if p.startswith("/sys/class/net/")})
    for nic in names:
        base = f"nic.{nic}"
        mtu = (src.file(f"/sys/class/net/{nic}/mtu") or "").strip()
        if mtu:
            out.add(f"{base}.mtu", mtu, f"/sys/class/net/{nic}/mtu")
        driver = src.links.get(f"/sys/class/net/{nic}/device/driver")
        if driver:
            out.add(f"{base}.driver", driver, f"/sys/class/net/{nic}/device/driver")
        _ethtool(src, out, nic)


def _ethtool(src: Sources, out: Collected, nic: str) -> None:
    base = f"nic.{nic}"
    name = f"ethtool-i_{nic}.txt"
    if (src.commands.get(name) or "").strip():
        try:
            info = parse_ethtool_info(src.commands[name])
        except ValueError as exc:
            out.unreadable(f"{base}.firmware", command_line(name), str(exc))
        else:
            if info.driver:
                out.add(f"{base}.driver", info.driver, command_line(name))
            if info.firmware and info.firmware != "N/A":
                out.add(f"{base}.firmware", info.firmware, command_line(name))
    name = f"ethtool-g_{nic}.txt"
    if (src.commands.get(name) or "").strip():
        try:
            ring = parse_ethtool_ring(src.commands[name])
        except ValueError as exc:
            out.unreadable(f"{base}.rx_ring", command_line(name), str(exc), f"{base}.tx_ring",
                           f"{base}.rx_ring_max", f"{base}.tx_ring_max")
        else:
            for field in ("rx", "tx", "rx_max", "tx_max"):
                value = getattr(ring, field)
                if value is not None:
                    key = f"{field}_ring" if "_" not in field else field.replace("_", "_ring_")
                    out.add(f"{base}.{key}", str(value), command_line(name))
    name = f"ethtool-k_{nic}.txt"
    if (src.commands.get(name) or "").strip():
        try:
            features = parse_ethtool_features(src.commands[name])
        except ValueError as exc:
            names = [f"{base}.offload.{feature}" for feature in OFFLOADS]
            out.unreadable(names[0], command_line(name), str(exc), *names[1:])
        else:
            for feature in OFFLOADS:
                if feature in features:
                    out.add(f"{base}.offload.{feature}", features[feature], command_line(name))


def _disks(src: Sources, out: Collected) -> None:
    for path, text in sorted(src.files.items()):
        m = _DISK.match(path)
        if not m or m.group(2) not in DISK_FILES:
            continue
        name = f"disk.{m.group(1)}.{DISK_FILES[m.group(2)]}"
        value = " ".join(text.split())
        if m.group(2) == "queue/scheduler":
            selected = _SELECTED.search(value)
            if selected:
                out.add(name, selected.group(1), path)
            elif value and " " not in value:
                out.add(name, value, path)  # a single scheduler is printed without brackets
            else:
                out.unreadable(name, path, f"no [selected] scheduler: {value[:40]!r}")
        elif value:
            out.add(name, value, path)


def _unescape(field: str) -> str:
    """/proc/mounts writes space, tab, newline and backslash as octal escapes."""
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), field)


def mount_of(path: str, mountpoints: list[str]) -> str | None:
    """The mount point holding a path: the longest one that is the path or its parent."""
    best = None
    for point in mountpoints:
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) > len(best)):
            best = point
    return best


def _mounts(src: Sources, out: Collected, wanted: tuple[str, ...]) -> None:
    text = src.file("/proc/mounts")
    if text is None:
        return
    table: dict[str, tuple[str, str, str]] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        device, point, fstype, options = (_unescape(f) for f in fields[:4])
        table[point] = (device, fstype, options)  # the last mount on a point hides the others
    chosen = {p for p, (_, fstype, _) in table.items() if fstype in MOUNT_FSTYPES}
    chosen |= {m for path in wanted if (m := mount_of(path, list(table)))}
    for point in sorted(chosen):
        device, fstype, options = table[point]
        out.add(f"mount.{point}.fstype", fstype, "/proc/mounts")
        out.add(f"mount.{point}.options", options, "/proc/mounts")
        out.add(f"mount.{point}.device", device, "/proc/mounts")


def device_settings(src: Sources, out: Collected, mounts: tuple[str, ...] = ()) -> None:
    _nics(src, out)
    _disks(src, out)
    _mounts(src, out, mounts)
