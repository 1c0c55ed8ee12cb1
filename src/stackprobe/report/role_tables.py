"""Seed 000's table: per step, what each node role's hosts used while the load ran.

One table per step whose monitored hosts carry roles (every Ceph step; every step of a
run with a hosts file): a row per role (client, storage, ...), each resource as the mean
over the role's hosts and the peak with the host that had it (analysis/role_use.py).
"""

from __future__ import annotations

from typing import Any

from stackprobe.analysis.role_use import role_use
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw

HEADERS = ["Role", "Hosts", "CPU busy mean / peak", "Memory used mean / peak",
           "Network mean / peak", "Disk busy mean / peak"]


def role_tables(results: RunResults) -> list[TextTable]:
    return [t for step in results.steps if (t := role_table(step)) is not None]


def summaries_of(step: StepResult) -> dict[str, dict[str, Any]]:
    return {host: info["summary"] for host, info in step.monitor.items()
            if isinstance(info, dict) and isinstance(info.get("summary"), dict)}


def role_table(step: StepResult) -> TextTable | None:
    use = role_use(summaries_of(step))
    if not use:
        return None
    t = TextTable(f"Resource use by node role ({step.id})", HEADERS, left=(0, 1))
    for role, u in use.items():
        t.rows.append([role, ", ".join(u["hosts"]), _cell(u["cpu_busy"], _pct),
                       _cell(u["mem_used"], _pct), _net(u["net"]), _disk(u["disk_util"])])
    t.notes.append("mean over the role's hosts / the peak and the host that had it; network: "
                   "each host's busiest NIC direction at its busiest second (loopback left out)")
    return t


def _pct(v: float) -> str:
    return f"{v:.0f}%"


def _cell(f: dict[str, Any] | None, fmt) -> str:
    if f is None:
        return "-"
    return f"{fmt(f['mean'])} / {fmt(f['peak'])} ({f['peak_host']})"


def _net(f: dict[str, Any] | None) -> str:
    if f is None:
        return "-"
    link = f" {f['pct_of_link']:.0f}% of link" if f.get("pct_of_link") is not None else ""
    return f"{fmt_bw(f['mean'])} / {fmt_bw(f['peak'])} ({f['peak_host']} {f['nic']}{link})"


def _disk(f: dict[str, Any] | None) -> str:
    if f is None:
        return "-"
    return f"{_pct(f['mean'])} / {_pct(f['peak'])} ({f['peak_host']} {f['dev']})"
