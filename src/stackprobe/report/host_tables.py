"""Tables of a run on many hosts: node-to-node consistency, the network matrix, each
host's disks alone against together, a fio fleet's clients, and how together the clients
of Ceph steps started (client_tables.py).

They are drawn from each step's `findings` (see docs/results-schema.md), which the runners
and analysis filled in; nothing is recomputed here. A flagged figure is marked in its cell
and named in a sentence under the table. A node comparison's table is titled with its role
('memory bandwidth (read) — role mds') and says, under it, how a pair compares or how far
three or more spread.
"""

from __future__ import annotations

from stackprobe.analysis.consistency_text import pair_line, spread_line, subject
from stackprobe.report.client_tables import client_start_table
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.tables.pair_matrix import pair_matrix
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns

FLAG = "⚠"


def host_tables(results: RunResults) -> list[TextTable]:
    tables: list[TextTable] = []
    for step in results.steps:
        f = step.findings
        for c in f.get("consistency", []):
            tables.append(consistency_table(step, c))
        if "disk_scaling" in f:
            tables.append(disk_scaling_table(step, f["disk_scaling"]))
        if "network" in f:
            tables.append(network_table(step, f["network"]))
        if "fleet" in f:
            tables.append(fleet_table(step, f["fleet"]))
    clients = client_start_table(results)
    return tables + ([clients] if clients is not None else [])


def figure_text(unit: str, v: float | None) -> str:
    if v is None:
        return "-"
    if unit == "B/s":
        return fmt_bw(v)
    if unit == "B":
        return f"{v / 2**30:.1f} GiB"
    return f"{v:,.0f} {unit}"


def consistency_table(step: StepResult, c: dict) -> TextTable:
    """One figure compared among the hosts of one role: a pair's ratio, or each host
    against the median and the spread, as stored (analysis/consistency_text.py words it)."""
    t = TextTable(f"Node consistency: {subject(c)} ({step.id})",
                  ["Host", c["metric"], "× median", "Robust z", "Verdict"])
    flag = f"{FLAG} differ" if c.get("pair") else f"{FLAG} outlier"
    for fig in sorted(c["figures"], key=lambda x: x["node"]):
        z = fig.get("robust_z")
        t.rows.append([fig["node"], figure_text(c["unit"], fig["value"]), f"{fig['ratio']:.2f}×",
                       "-" if z is None else f"{z:+.1f}", flag if fig["flagged"] else "ok"])
    t.notes.append(f"median {figure_text(c['unit'], c['median'])}, spread (max-min)/median "
                   f"{c['spread_pct']:.1f}%")
    line = pair_line(c, lambda v: figure_text(c["unit"], v)) or spread_line(c)
    if line:
        t.notes.append(line)
    return t


def disk_scaling_table(step: StepResult, by_host: dict) -> TextTable:
    t = TextTable(f"Disks alone and together ({step.id})",
                  ["Host", "Targets", "Sum of each alone", "All at once", "Ratio", "Verdict"])
    for host, d in sorted(by_host.items()):
        verdict = f"{FLAG} below {d['min_aggregate']:.0%}" if d["flagged"] else "ok"
        t.rows.append([host, str(len(d["singles"])), fmt_bw(d["sum_bw"]),
                       fmt_bw(d["aggregate_bw"]), f"{d['ratio']:.2f}", verdict])
    return t


def network_table(step: StepResult, n: dict) -> TextTable:
    """Client rows, server columns, Gbit/s per cell (the heatmap's data)."""
    hosts = n["hosts"]
    cells = {(c["client"], c["server"]): c for c in n["cells"]}

    def cell(a: str, b: str) -> str | None:
        c = cells.get((a, b))
        if c is None:
            return None
        if c.get("error"):
            return f"{FLAG} failed"
        text = f"{c['bps'] / 1e9:.2f}" if c.get("bps") is not None else "-"
        if c.get("rtt_avg_ns") is not None:
            text += f" ({fmt_ns(c['rtt_avg_ns'])})"
        return f"{FLAG} {text}" if c.get("flags") else text

    def slowest_first(pair: tuple[str, str]) -> tuple:
        c = cells[pair]
        return (not (c.get("error") or c.get("flags")), c.get("bps") or 0.0, pair)

    t = pair_matrix(f"Network matrix, Gbit/s client → server ({step.id})", "client \\ server",
                    hosts, cell, order=slowest_first)
    speeds = ", ".join(f"{h} {v['nic']} {v['speed_mbps']:.0f} Mb/s" if v.get("speed_mbps")
                       else f"{h} unknown" for h, v in sorted(n.get("links", {}).items()))
    if speeds:
        t.notes.append(f"link speeds: {speeds}; in brackets: mean ping round trip")
    return t


def fleet_table(step: StepResult, fleet: dict) -> TextTable:
    t = TextTable(f"fio fleet: {len(fleet['clients'])} clients ({step.id})",
                  ["Client", "Direction", "IOPS", "Bandwidth", "p99 latency"])
    for rec in step.records:
        if getattr(rec, "type", None) != "io":
            continue
        for name, d in rec.directions():
            p99 = d.lat_ns.get("p99", d.clat_ns.get("p99"))
            t.rows.append([rec.host or "?", name, fmt_iops(d.iops), fmt_bw(d.bw_bytes),
                           fmt_ns(p99)])
    for d, mine in fleet.get("merged", {}).items():
        fio = fleet.get("fio_all_clients", {}).get(d, {})
        text = (f"{d}: p99 {fmt_ns(mine.get('lat_p99_ns') or mine.get('clat_p99_ns'))} exact, "
                f"from the {len(fleet['clients'])} clients' histograms summed; mean "
                f"{fmt_ns(mine.get('lat_mean_ns'))}")
        if fio:
            text += (f" (fio's own All clients: {fmt_iops(fio.get('iops'))} IOPS, mean "
                     f"{fmt_ns(fio.get('lat_mean_ns'))}, no percentiles)")
        t.notes.append(text)
    return t
