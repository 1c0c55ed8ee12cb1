"""`stackprobe doctor --hosts`: each host of a hosts list checked before a run needs it.

For every host with a shell, all at once: can stackprobe log in (SSH, with the settings a
run would use), which of the tools stackprobe can drive are on its PATH (and the apt-get
line for the missing ones), how much is free in the directories the host offers (or /tmp),
and how far its clock is from this machine's: `date +%s.%N` there, compared with the middle
of the local times before and after the call; half the round trip is the error. A host
whose clock is off confuses every time series compared across hosts.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from stackprobe.spec.hosts import Host, HostsFile
from stackprobe.spec.tools import Tool

PROBE_TIMEOUT_S = 60
DEFAULT_DIR = "/tmp"  # where a run's scratch goes on a host without directories (fleet.py)
# the probe: a line per tool found or not, a line per directory's free space
PROBE = ('for t in $TOOLS; do if command -v "$t" >/dev/null 2>&1; then printf "tool\\t%s\\tyes\\n"'
         ' "$t"; else printf "tool\\t%s\\tno\\n" "$t"; fi; done; for d in "$@"; do printf '
         '"space\\t%s\\t" "$d"; stat -f -c "%a %S" "$d" 2>/dev/null || echo "?"; done')


@dataclass
class HostFinding:
    name: str
    address: str
    reachable: bool
    error: str | None = None
    missing_tools: list[str] = field(default_factory=list)
    apt_line: str | None = None
    free_bytes: dict[str, int | None] = field(default_factory=dict)
    clock_offset_s: float | None = None  # the host's clock minus this machine's
    clock_error_s: float | None = None  # half the round trip of the call


def check_hosts(hosts: HostsFile, tools: tuple[Tool, ...]) -> list[HostFinding]:
    from stackprobe.transport.local import LocalTransport
    from stackprobe.transport.ssh import SshPool, SshTransport

    shells = [h for h in hosts.hosts if h.access != "management"]
    pool = SshPool()
    try:
        def one(h: Host) -> HostFinding:
            t = LocalTransport(h.name) if h.access == "local" else \
                SshTransport(h.name, h.address, hosts.ssh_for(h), pool)
            return check_host(h, t, tools)

        with ThreadPoolExecutor(max_workers=min(32, len(shells) or 1)) as ex:
            return list(ex.map(one, shells))
    finally:
        pool.close()


def check_host(host: Host, transport, tools: tuple[Tool, ...]) -> HostFinding:
    from stackprobe.engine.tools import apt_line
    from stackprobe.parsers.host.doctor_probe import parse_clock, parse_doctor_probe

    finding = HostFinding(host.name, host.address, reachable=False)
    dirs = host.directories or [DEFAULT_DIR]
    res = transport.run(["sh", "-c", PROBE, "probe", *dirs], timeout=PROBE_TIMEOUT_S,
                        env={"TOOLS": " ".join(t.name for t in tools)})
    if res.returncode is None:
        finding.error = _one_line(res.stderr) or "no answer"
        return finding
    finding.reachable = True
    try:
        probe = parse_doctor_probe(res.stdout)
        before = time.time()
        clock = transport.run(["date", "+%s.%N"], timeout=PROBE_TIMEOUT_S)
        after = time.time()
        finding.clock_offset_s = parse_clock(clock.stdout) - (before + after) / 2
        finding.clock_error_s = (after - before) / 2
    except ValueError as exc:
        finding.error = _one_line(str(exc))
        return finding
    finding.missing_tools = [name for name, there in probe.tools.items() if not there]
    if finding.missing_tools:
        finding.apt_line = apt_line(finding.missing_tools, tools)
    finding.free_bytes = probe.free_bytes
    return finding


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]
