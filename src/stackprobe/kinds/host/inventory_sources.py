"""The commands whose stdout parsers/inventory.py reads, keyed by source name.

Each argv is fixed (no user input), read-only, needs one round trip when run over SSH, and
may fail or be absent on a host: the runner passes the stdout of those that succeeded and
leaves the others out. `sh -c` strings stick to POSIX sh (dash has no {a,b} brace
expansion, so every glob is spelled out).
"""

from __future__ import annotations

# sysfs files read in one go by `grep -H .`, which prints 'path:value' per line and skips
# unreadable files (a NIC without a link gives EINVAL on 'speed'). The 'device' link of a
# NIC cannot be read by grep, but the uevent file behind it can: only NICs backed by a
# device (PCI, virtio, ...) have one, and it names the driver; bridges, bonds, veths, lo
# do not.
SYSFS_GLOBS: tuple[str, ...] = (
    "/sys/class/net/*/speed",
    "/sys/class/net/*/operstate",
    "/sys/class/net/*/mtu",
    "/sys/class/net/*/address",
    "/sys/class/net/*/device/uevent",
    "/sys/block/*/queue/scheduler",
    "/sys/block/*/queue/rotational",
    "/sys/devices/system/cpu/smt/active",
    "/sys/devices/system/cpu/smt/control",
    "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
    "/sys/devices/system/node/node*/cpulist",
)

SOURCES: dict[str, list[str]] = {
    "lscpu": ["lscpu", "-J"],
    "lsblk": ["lsblk", "-J", "-b", "-o", "NAME,TYPE,SIZE,MODEL,ROTA,SCHED,TRAN,MOUNTPOINT,FSTYPE"],
    "meminfo": ["cat", "/proc/meminfo"],
    "uname": ["uname", "-srvm"],
    "os_release": ["cat", "/etc/os-release"],
    # '; true': grep exits 2 when a glob matches nothing, which is normal here.
    "sysfs": ["sh", "-c", "grep -H . " + " ".join(SYSFS_GLOBS) + " 2>/dev/null; true"],
    # Optional: needs root and the dmidecode package; without it DIMM facts are left out.
    "dmidecode": ["dmidecode", "-t", "memory"],
}
