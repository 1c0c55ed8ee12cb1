"""What a `lab hosts up` request may ask for: how many hosts, the name prefix, the faults.

Fault specs arrive as HOST:VALUE strings (--slow-link h2:200mbit, --slow-cpu h3:20,
--slow-disk h1:30M). Everything here is checked before the lab looks at or makes anything.
"""

from __future__ import annotations

import re

from stackprobe.errors import UserError
from stackprobe.lab import netns
from stackprobe.units import parse_size

MAX_HOSTS = 64
PREFIX_RE = re.compile(r"^[a-z][a-z0-9]{0,7}$")  # '<prefix>-h64p' stays within 15 chars
HOST_RE = re.compile(r"^h([1-9][0-9]*)$")
EXAMPLES = {"slow-link": "200mbit", "slow-cpu": "20", "slow-disk": "30M"}


class HostsLabError(UserError):
    """The hosts lab could not be brought up or down; says what and why."""


def parse_specs(specs: list[str], what: str) -> dict[str, str]:
    """['h2:200mbit', ...] → {'h2': '200mbit'}; one host at most once."""
    out: dict[str, str] = {}
    for spec in specs:
        host, sep, value = spec.partition(":")
        if not sep or not HOST_RE.match(host) or not value:
            raise HostsLabError(f"--{what} {spec!r}: expected HOST:VALUE, e.g. h2:{EXAMPLES[what]}")
        if host in out:
            raise HostsLabError(f"--{what}: {host} given twice")
        out[host] = value
    return out


def parse_cpu_specs(specs: list[str]) -> dict[str, int]:
    out = {}
    for host, value in parse_specs(specs, "slow-cpu").items():
        try:
            out[host] = int(value.rstrip("%"))
        except ValueError:
            raise HostsLabError(f"--slow-cpu {host}:{value}: the cap is a whole percent of "
                                "one CPU, e.g. h3:20") from None
    return out


def disk_rate(host: str, rate: str) -> int:
    """A --slow-disk rate ('30M': k/M/G are powers of 1024) in bytes per second, at least 1."""
    try:
        bps = parse_size(rate)
    except ValueError as exc:
        raise HostsLabError(f"--slow-disk {host}:{rate}: {exc} (bytes per second, e.g. "
                            f"{host}:30M)") from None
    if bps < 1:
        raise HostsLabError(f"--slow-disk {host}:{rate}: the rate must be positive, in bytes per "
                            f"second, e.g. {host}:30M")
    return bps


def check_request(n: int, prefix: str, slow_links: dict[str, str], slow_cpus: dict[str, int],
                  slow_disks: dict[str, str] | None = None) -> None:
    """Everything about the request that can be wrong before anything is looked at or made."""
    slow_disks = slow_disks or {}
    if not 1 <= n <= MAX_HOSTS:
        raise HostsLabError(f"{n} hosts: the lab makes 1 to {MAX_HOSTS}")
    if not PREFIX_RE.match(prefix):
        raise HostsLabError(f"prefix {prefix!r}: 1-8 lowercase letters/digits, starting with a letter")
    for what, faults in (("slow-link", slow_links), ("slow-cpu", slow_cpus), ("slow-disk", slow_disks)):
        for host in faults:
            m = HOST_RE.match(host)
            if not m or int(m.group(1)) > n:
                raise HostsLabError(f"--{what} {host}: no such host (the lab has h1..h{n})")
    for host, rate in slow_links.items():
        try:
            netns.rate_bytes_per_s(rate)
        except ValueError as exc:
            raise HostsLabError(f"--slow-link {host}: {exc}") from None
    for host, pct in slow_cpus.items():
        if not 1 <= pct <= 100:
            raise HostsLabError(f"--slow-cpu {host}:{pct}: a percent of one CPU, 1 to 100")
    for host, rate in slow_disks.items():
        disk_rate(host, rate)
