"""The external tools stackprobe can drive: where they come from and how to ask their version.

`stackprobe doctor` lists them; the executor checks the ones a plan needs before any load,
so a missing fio is one line with the apt-get command, not a failure ten minutes in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackprobe.transport.base import Transport


@dataclass(frozen=True)
class Tool:
    name: str  # the executable
    package: str  # Debian package that provides it
    version_argv: tuple[str, ...]  # dpkg-query for tools without a version flag
    purpose: str


TOOLS: tuple[Tool, ...] = (
    Tool("fio", "fio", ("fio", "--version"), "disk/file workloads, metadata ops"),
    Tool("sysbench", "sysbench", ("sysbench", "--version"), "memory bandwidth"),
    Tool("mbw", "mbw", ("dpkg-query", "-W", "-f=${Version}", "mbw"), "memory bandwidth (alternative)"),
    Tool("stress-ng", "stress-ng", ("stress-ng", "--version"), "memory bandwidth (stream), CPU"),
    Tool("ping", "iputils-ping", ("ping", "-V"), "round-trip latency between hosts"),
    Tool("lscpu", "util-linux", ("lscpu", "--version"), "CPU inventory"),
    Tool("lsblk", "util-linux", ("lsblk", "--version"), "block device inventory"),
    Tool("dmidecode", "dmidecode", ("dmidecode", "--version"), "DIMM population (inventory)"),
    Tool("iostat", "sysstat", ("iostat", "-V"), "disk utilisation"),
    Tool("ethtool", "ethtool", ("ethtool", "--version"), "NIC link speed"),
    Tool("iperf3", "iperf3", ("iperf3", "--version"), "network bandwidth"),
    Tool("numactl", "numactl", ("dpkg-query", "-W", "-f=${Version}", "numactl"), "NUMA placement"),
    Tool("ip", "iproute2", ("ip", "-V"), "network namespaces, addresses"),
    Tool("lspci", "pciutils", ("lspci", "--version"), "PCIe devices"),
    Tool("ceph", "ceph-common", ("ceph", "--version"), "Ceph cluster (later rungs)"),
    Tool("rados", "ceph-common", ("rados", "--version"), "RADOS bench"),
    Tool("rbd", "ceph-common", ("rbd", "--version"), "RBD bench"),
    Tool("ceph-fuse", "ceph-fuse", ("ceph-fuse", "--version"), "CephFS mount"),
    Tool("find", "findutils", ("find", "--version"), "io500-like find phase (directory walk)"),
)

BY_NAME = {t.name: t for t in TOOLS}

# What each step kind needs; memory needs any one of its tools.
NEEDED_BY_KIND: dict[str, tuple[str, ...]] = {
    "fio": ("fio",),
    "slo": ("fio",),
    "metadata": ("fio",),
    "io500_like": ("fio", "find"),
    "io500": (),  # the user's own IO500/IOR/mdtest build: the runner checks for it
    "inventory": ("lscpu", "lsblk"),
    "memory": (),
    "cpu": ("stress-ng",),
    "disk_baseline": ("fio",),
    "network": ("iperf3", "ping"),
    "ceph_inventory": ("ceph",),
    "osd_bench": ("ceph",),
    "rados_bench": ("ceph", "rados"),
    "rbd_bench": ("ceph", "rbd"),
}
# fio steps by where they run (`target`)
NEEDED_BY_FIO_ON: dict[str, tuple[str, ...]] = {
    "rbd": ("ceph", "rbd"),
    "cephfs": ("ceph", "ceph-fuse"),
}
MEMORY_TOOLS = ("sysbench", "mbw", "stress-ng")


def apt_line(names: list[str]) -> str:
    packages = sorted({BY_NAME[n].package for n in names if n in BY_NAME})
    return "apt-get install -y " + " ".join(packages)


def has_tool(transport: Transport, name: str) -> bool:
    """Whether `name` is on the host's PATH (asked through the transport: works remotely)."""
    res = transport.run(["sh", "-c", 'command -v "$1" >/dev/null', "sh", name], timeout=30)
    return res.returncode == 0


def tool_version(transport: Transport, tool: Tool) -> str | None:
    """First line that looks like a version, or None when the tool is missing."""
    if not has_tool(transport, tool.name):
        return None
    res = transport.run(list(tool.version_argv), timeout=30)
    text = (res.stdout + "\n" + res.stderr).strip()
    m = re.search(r"\d+\.\d+(?:\.\d+)?(?:[-.][\w.+~]+)?", text)
    if m:
        return m.group(0)
    return text.splitlines()[0][:60] if text else "present"
