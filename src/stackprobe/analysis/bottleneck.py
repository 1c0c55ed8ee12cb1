"""Where was the limit? Plain statements from what the hosts did during a step.

Seed 000 printed CPU, memory, NIC and disk utilisation beside every result and concluded
"no bottleneck". These rules say the same in words, only where they hold, from each host's
monitoring summary (monitor/summary.py): a device at >= 95% utilisation, a NIC at >= 90% of
its link speed, CPUs saturated (or one core pinned while the others idle: a single thread),
high iowait, NIC errors and drops. No statement is made when nothing was measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DISK_BUSY_PCT = 95.0
NIC_LINK_PCT = 90.0
NOMINAL_PCT = 105.0  # above this the reported speed cannot be a physical link's
CPU_BUSY_PCT = 90.0
CORE_PINNED_PCT = 98.0
CORE_PINNED_MEAN_BELOW_PCT = 60.0
IOWAIT_PCT = 30.0


def hints(summaries: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One sentence per finding, hosts in name order; a host whose summary carries its
    roles is named with them ('ceph1 (storage)'), so a storage node's limit reads as one."""
    out: list[str] = []
    for host in sorted(summaries):
        s = summaries[host]
        label = f"{host} ({', '.join(s['roles'])})" if s.get("roles") else host
        out += _disk(label, s.get("disks") or {})
        out += _nic(label, s.get("nics") or {})
        out += _cpu(label, s.get("cpu") or {}, s.get("ncpu"))
    return out


def _disk(host: str, disks: Mapping[str, Mapping[str, Any]]) -> list[str]:
    out = []
    for dev, d in sorted(disks.items()):
        util = d.get("util_max_pct")
        if util is not None and util >= DISK_BUSY_PCT:
            wait = d.get("await_ms_mean")
            more = f", mean await {wait:.1f} ms" if wait is not None else ""
            out.append(f"{host}: {dev} {util:.0f}% busy{more} — the device is the limit")
    return out


def _nic(host: str, nics: Mapping[str, Mapping[str, Any]]) -> list[str]:
    out = []
    for nic, n in sorted(nics.items()):
        for way, key in (("receive", "rx_max_pct_of_link"), ("transmit", "tx_max_pct_of_link")):
            pct = n.get(key)
            if pct is not None and pct > NOMINAL_PCT:  # veth, bridge, tun: no real link
                out.append(f"{host}: {nic} {way} at {pct:.0f}% of its {n.get('speed_mbps'):.0f} "
                           f"Mb/s: the speed is nominal (a virtual NIC), not a limit")
            elif pct is not None and pct >= NIC_LINK_PCT:
                out.append(f"{host}: {nic} {way} at {pct:.0f}% of its {n.get('speed_mbps'):.0f} "
                           f"Mb/s link — the network is the limit")
        bad = {k: n.get(k) for k in ("rx_errs", "tx_errs", "rx_drop", "tx_drop") if n.get(k)}
        if bad:
            text = ", ".join(f"{v} {k.replace('_', ' ').replace('errs', 'errors')}"
                             for k, v in bad.items())
            out.append(f"{host}: {nic} counted {text} during the step")
    return out


def _cpu(host: str, cpu: Mapping[str, Any], ncpu: int | None) -> list[str]:
    out = []
    mean = cpu.get("busy_mean_pct")
    if mean is not None and mean >= CPU_BUSY_PCT:
        out.append(f"{host}: CPUs {mean:.0f}% busy on average — CPU-bound")
    else:
        cores = cpu.get("core_busy_max_pct") or {}
        pinned = [c for c, v in cores.items() if v >= CORE_PINNED_PCT]
        if pinned and len(cores) > 1 and mean is not None and mean < CORE_PINNED_MEAN_BELOW_PCT \
                and len(pinned) < len(cores):
            out.append(f"{host}: core {', '.join(pinned)} reached {max(cores[c] for c in pinned):.0f}% "
                       f"while the host averaged {mean:.0f}% — one thread may be the limit")
    iowait = cpu.get("iowait_mean_pct")
    if iowait is not None and iowait >= IOWAIT_PCT:
        out.append(f"{host}: iowait {iowait:.0f}% on average — CPUs waiting on storage")
    return out
