"""What each role's hosts used during a step: seed 000's table, from monitor summaries.

Seed 000 printed, beside every result, the cluster nodes' CPU, memory, network and disk
use and concluded "no resource bottleneck". Here every monitored host's summary
(monitor/summary.py) carries its roles (engine/step_monitor.py), and per role this gives
the mean over the role's hosts and the peak, with the host that had it:

- CPU: each host's mean busy % (mean), its busiest sample (peak);
- memory: each host's highest use, % of its memory;
- network: each host's busiest NIC direction, bytes/s at its peak second (and % of the link
  when the speed is known); the loopback is left out — it is no network;
- disk: each host's busiest device, its highest % utilisation.

A host with several roles counts in each. Peers of one role should look alike: among 3 or
more hosts of a role, the one whose CPU, NIC or disk use stands out from the others (the
node-consistency rule, analysis/consistency.py, worse is higher) is named in a hint.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from stackprobe.analysis.consistency import judge

LOOPBACK = "lo"
FIGURES = ("cpu_busy", "mem_used", "net", "disk_util")
WORDS = {"cpu_busy": "CPU busy", "net": "network peak", "disk_util": "disk utilisation"}


def host_use(summary: Mapping[str, Any]) -> dict[str, Any]:
    """One host's figures: cpu_busy_mean/_max (%), mem_used_pct, net_bps (+ net_nic,
    net_pct_of_link), disk_util_pct (+ disk_dev). None where nothing was measured."""
    cpu = summary.get("cpu") or {}
    mem = summary.get("mem") or {}
    out: dict[str, Any] = {"cpu_busy_mean": cpu.get("busy_mean_pct"),
                           "cpu_busy_max": cpu.get("busy_max_pct"),
                           "mem_used_pct": mem.get("used_max_pct"),
                           "net_bps": None, "net_nic": None, "net_pct_of_link": None,
                           "disk_util_pct": None, "disk_dev": None}
    for nic, n in sorted((summary.get("nics") or {}).items()):
        if nic == LOOPBACK:
            continue
        for way in ("rx", "tx"):
            bps = n.get(f"{way}_bps_max")
            if bps is not None and (out["net_bps"] is None or bps > out["net_bps"]):
                out.update(net_bps=bps, net_nic=f"{nic} {way}",
                           net_pct_of_link=n.get(f"{way}_max_pct_of_link"))
    for dev, d in sorted((summary.get("disks") or {}).items()):
        util = d.get("util_max_pct")
        if util is not None and (out["disk_util_pct"] is None or util > out["disk_util_pct"]):
            out.update(disk_util_pct=util, disk_dev=dev)
    return out


def _spread(per_host: dict[str, dict[str, Any]], mean_key: str,
            peak_key: str) -> dict[str, Any] | None:
    means = [f[mean_key] for f in per_host.values() if f[mean_key] is not None]
    peaks = [(f[peak_key], h) for h, f in per_host.items() if f[peak_key] is not None]
    if not means or not peaks:
        return None
    value, host = max(peaks)
    return {"mean": statistics.fmean(means), "peak": value, "peak_host": host}


def role_use(summaries: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """{role: {hosts, cpu_busy, mem_used, net, disk_util}}, each figure {mean, peak,
    peak_host} (None when no host of the role measured it); only hosts with roles."""
    per_host = {h: host_use(s) for h, s in summaries.items() if s.get("roles")}
    roles = sorted({r for h, s in summaries.items() if h in per_host for r in s["roles"]})
    out: dict[str, dict[str, Any]] = {}
    for role in roles:
        hosts = {h: f for h, f in per_host.items() if role in summaries[h]["roles"]}
        out[role] = {
            "hosts": sorted(hosts),
            "cpu_busy": _spread(hosts, "cpu_busy_mean", "cpu_busy_max"),
            "mem_used": _spread(hosts, "mem_used_pct", "mem_used_pct"),
            "net": _spread(hosts, "net_bps", "net_bps"),
            "disk_util": _spread(hosts, "disk_util_pct", "disk_util_pct"),
        }
        net = out[role]["net"]
        if net is not None:
            peak = hosts[net["peak_host"]]
            net.update(nic=peak["net_nic"], pct_of_link=peak["net_pct_of_link"])
        disk = out[role]["disk_util"]
        if disk is not None:
            disk["dev"] = hosts[disk["peak_host"]]["disk_dev"]
    return out


def role_outliers(summaries: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Hints: among 3 or more hosts of one role, a host whose CPU, network or disk use is
    well above its peers' median."""
    per_host = {h: host_use(s) for h, s in summaries.items() if s.get("roles")}
    out = []
    roles = sorted({r for h in per_host for r in summaries[h]["roles"]})
    for role in roles:
        hosts = {h: f for h, f in per_host.items() if role in summaries[h]["roles"]}
        for key, figure in (("cpu_busy_mean", "cpu_busy"), ("net_bps", "net"),
                            ("disk_util_pct", "disk_util")):
            values = {h: f[key] for h, f in hosts.items() if f[key] is not None}
            try:
                verdict = judge(values, metric=WORDS[figure], higher_is_better=False,
                                min_deviation=0.5, hard_deviation=1.0)
            except ValueError:  # a median of 0: nothing used, nothing stands out
                continue
            if verdict is None:
                continue
            out += [f"{role} host {f.node}: {WORDS[figure]} {f.ratio:.1f}× the median of the "
                    f"{len(values)} {role} hosts" for f in verdict.flagged()]
    return out
