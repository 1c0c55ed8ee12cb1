"""Thin wrappers around `ip` and `tc` for the hosts lab: bridge, namespaces, veths, shaping.

Every call is an argv list (no shell), so a name can never run anything extra. The functions
create and delete exactly the names they are given; deciding which names are the lab's own
is `hosts_lab`'s job. Commands that act inside a namespace use `ip -n NS`, so the ns-side
`eth0` is only ever addressed there, never the root namespace's `eth0`.

The checks (`link_kind`, `netns_exists`, `overlapping_routes`) are read-only: `up` runs them
before it creates anything, and refuses when a name or the lab's address range is taken.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import subprocess
from pathlib import Path

from stackprobe.errors import UserError

NETNS_DIR = Path("/run/netns")
IP_TIMEOUT_S = 30
TBF_HZ = 250  # burst must cover at least one timer tick of traffic at the rate
TBF_MIN_BURST = 32 * 1024
TBF_LATENCY = "50ms"

# tc's rate units (tc(8) "RATES"): bits or bytes per second, SI or IEC multipliers.
_RATE_RE = re.compile(r"^([0-9]*\.?[0-9]+)(k|m|g|t|ki|mi|gi|ti)?(bit|bps)$", re.IGNORECASE)
_RATE_MULT = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
              "ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40}


class NetError(UserError):
    """An `ip` or `tc` command failed; the message names the command and its error line."""


def run(argv: list[str], *, check: bool = True) -> str:
    """Run one ip/tc command; its stdout, or NetError with the tool's last stderr line."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=IP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise NetError(f"{' '.join(argv)}: timed out after {IP_TIMEOUT_S} s") from None
    except FileNotFoundError:
        raise NetError(f"{argv[0]}: not installed (apt-get install -y iproute2)") from None
    if check and proc.returncode != 0:
        err = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise NetError(f"{' '.join(argv)} failed: {err}")
    return proc.stdout


# ---------------------------------------------------------------------- checks
def link_kind(name: str) -> str | None:
    """'bridge', 'veth', ... for a root-namespace interface; None when there is none."""
    if not Path("/sys/class/net", name).exists():
        return None
    out = run(["ip", "-j", "-d", "link", "show", "dev", name], check=False)
    try:
        info = json.loads(out)[0].get("linkinfo", {})
    except (json.JSONDecodeError, IndexError):
        return "unknown"
    return info.get("info_kind") or "unknown"


def netns_exists(name: str) -> bool:
    return (NETNS_DIR / name).exists()


def netns_inode(name: str) -> int | None:
    """The inode of a named namespace (as /proc/PID/ns/net shows it), None if not there."""
    try:
        return os.stat(NETNS_DIR / name).st_ino
    except OSError:
        return None


def pid_netns_inode(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/net").st_ino
    except OSError:
        return None


def pids_in_netns(inode: int) -> list[int]:
    """Every process whose network namespace is `inode` (read from /proc/*/ns/net)."""
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and pid_netns_inode(int(entry.name)) == inode:
            pids.append(int(entry.name))
    return pids


def overlapping_routes(cidr: str, ignore_dev: str | None = None) -> list[str]:
    """Routes of the root namespace (all tables, default route excluded) that overlap `cidr`."""
    net = ipaddress.ip_network(cidr)
    out = run(["ip", "-j", "-4", "route", "show", "table", "all"])
    found = []
    for route in json.loads(out or "[]"):
        dst = route.get("dst", "")
        if dst == "default" or route.get("dev") == ignore_dev:
            continue
        try:
            if ipaddress.ip_network(dst, strict=False).overlaps(net):
                found.append(f"{dst} dev {route.get('dev', '?')}")
        except ValueError:
            continue
    return found


# ---------------------------------------------------------------------- create
def no_ipv6(dev: str) -> None:
    """IPv4 only on a root-namespace lab interface: no link-local address, so no neighbour
    discovery or MLD chatter. Written for this interface alone; a kernel without IPv6 is fine."""
    knob = Path("/proc/sys/net/ipv6/conf", dev, "disable_ipv6")
    if knob.exists():
        knob.write_text("1")


def add_bridge(name: str, address_cidr: str) -> None:
    run(["ip", "link", "add", name, "type", "bridge"])
    no_ipv6(name)
    run(["ip", "addr", "add", address_cidr, "dev", name])
    run(["ip", "link", "set", name, "up"])


def add_netns(name: str) -> None:
    """A named namespace with lo up; interfaces created in it later start without IPv6
    (its own `default` sysctl, which `lo` — made with the namespace — does not follow)."""
    run(["ip", "netns", "add", name])
    run(["ip", "-n", name, "link", "set", "lo", "up"])
    if Path("/proc/sys/net/ipv6").exists():
        run(["ip", "netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1"])


def add_veth(root_name: str, netns: str, bridge: str, address_cidr: str) -> None:
    """A veth pair: `root_name` on the bridge, its peer as `eth0` (up, addressed) in `netns`.

    The peer is created directly inside the namespace under a temporary name and renamed
    there, so no `eth0` is ever created or touched in the root namespace."""
    tmp = f"{root_name}p"
    run(["ip", "link", "add", root_name, "type", "veth", "peer", "name", tmp, "netns", netns])
    run(["ip", "-n", netns, "link", "set", tmp, "name", "eth0"])
    run(["ip", "-n", netns, "addr", "add", address_cidr, "dev", "eth0"])
    run(["ip", "-n", netns, "link", "set", "eth0", "up"])
    no_ipv6(root_name)
    run(["ip", "link", "set", root_name, "master", bridge, "up"])


def rate_bytes_per_s(rate: str) -> float:
    """A tc rate ('200mbit', '1gbit', '50mbps') in bytes/s; ValueError if tc would not take it."""
    m = _RATE_RE.match(rate.strip())
    if not m:
        raise ValueError(f"{rate!r}: not a rate like 200mbit, 1gbit or 50mbps")
    value = float(m.group(1)) * _RATE_MULT[(m.group(2) or "").lower()]
    per_s = value / 8 if m.group(3).lower() == "bit" else value
    if per_s < 1000:
        raise ValueError(f"{rate!r}: too slow to be useful (under 8kbit)")
    return per_s


def tbf_burst(rate: str) -> int:
    """Bucket size in bytes: one timer tick's worth of traffic at `rate`, at least 32 KiB."""
    return max(int(rate_bytes_per_s(rate) / TBF_HZ), TBF_MIN_BURST)


def shape(dev: str, rate: str) -> None:
    """Token-bucket limit on `dev`'s egress (for a root-side veth: traffic INTO its host)."""
    run(["tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", rate,
         "burst", str(tbf_burst(rate)), "latency", TBF_LATENCY])


def unshape(dev: str) -> None:
    """`dev` back to its default queueing (no limit): a shaped lab link at full speed again."""
    run(["tc", "qdisc", "del", "dev", dev, "root"])


def qdisc_show(dev: str) -> str:
    return run(["tc", "qdisc", "show", "dev", dev], check=False)


# ---------------------------------------------------------------------- delete
def delete_link(name: str, kind: str) -> bool:
    """Delete a root-namespace interface if it is there and of `kind`; True if deleted."""
    found = link_kind(name)
    if found is None:
        return False
    if found != kind:
        raise NetError(f"{name} is a {found} interface, not the lab's {kind}: left alone")
    run(["ip", "link", "del", name])
    return True


def delete_netns(name: str) -> bool:
    if not netns_exists(name):
        return False
    run(["ip", "netns", "del", name])
    return True
