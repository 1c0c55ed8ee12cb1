"""Heatmaps of a step's findings: the network pair matrix and node-to-node consistency.

A table of 16 hosts x 16 hosts, or hosts x five figures, hides the one slow link or the
one weak node among the numbers; a colour per cell shows it at once. The cells carry the
same numbers as the tables beside them (report/host_tables.py) and the same flags, read
from `findings` (docs/results-schema.md) without recomputing anything.
"""

from __future__ import annotations

from stackprobe.analysis.consistency_text import subject
from stackprobe.report.host_tables import figure_text
from stackprobe.report.svg import diverging
from stackprobe.report.svg_charts import HeatCell, heatmap
from stackprobe.schema.results import StepResult
from stackprobe.tables.pair_matrix import dense
from stackprobe.units import fmt_ns

FAILED_FILL = "#8c1d13"
WIDTH = 720


def step_heatmaps(step: StepResult) -> list[str]:
    f = step.findings
    charts = []
    if f.get("network", {}).get("hosts") and _dense(f["network"]):
        charts.append(network_heatmap(step.id, f["network"]))
    if f.get("consistency"):
        charts.append(consistency_heatmap(step.id, f["consistency"]))
    return charts


def _dense(n: dict) -> bool:
    """Drawn as a matrix (tables/pair_matrix.py), so as a heatmap; else the pairs' list alone."""
    return dense(len(n["hosts"]), sum(1 for c in n.get("cells", []) if c.get("client") != c.get("server")))


def network_heatmap(step_id: str, n: dict) -> str:
    """Client rows, server columns, Gbit/s in the cells; colour: the share of the expected
    link speed (of the fastest pair when no speed is known), pale at half, blue at all."""
    hosts = list(n["hosts"])
    cells_in = [c for c in n.get("cells", []) if c.get("client") != c.get("server")]
    fastest = max((c["bps"] for c in cells_in if c.get("bps")), default=0.0)
    cells = {}
    for c in cells_in:
        key = (c["client"], c["server"])
        if c.get("error") or c.get("bps") is None:
            cells[key] = HeatCell("failed", FAILED_FILL, _network_tip(c), flagged=True)
            continue
        expected = c.get("expected_bps") or fastest
        share = c["bps"] / expected if expected else 1.0
        cells[key] = HeatCell(f"{c['bps'] / 1e9:.2f}", diverging(2 * share - 1),
                              _network_tip(c, share), flagged=bool(c.get("flags")))
    basis = "expected link speed" if any(c.get("expected_bps") for c in cells_in) else "fastest pair"
    return heatmap(f"Network matrix, Gbit/s client → server ({step_id})", hosts, hosts, cells,
                   note=f"rows: client, columns: server; colour: share of the {basis} "
                        "(red low, blue full); ⚠ flagged", width=WIDTH)


def _network_tip(c: dict, share: float | None = None) -> str:
    parts = [f"{c['client']} → {c['server']}"]
    if c.get("bps") is not None:
        parts.append(f"{c['bps'] / 1e9:.2f} Gbit/s")
    if share is not None and c.get("expected_bps"):
        parts.append(f"{share:.0%} of {c['expected_bps'] / 1e9:.1f} Gbit/s expected")
    if c.get("retransmits") is not None:
        parts.append(f"{c['retransmits']} retransmits")
    if c.get("rtt_avg_ns") is not None:
        parts.append(f"ping {fmt_ns(c['rtt_avg_ns'])}")
    if c.get("loss_pct"):
        parts.append(f"loss {c['loss_pct']:g}%")
    if c.get("error"):
        parts.append(f"error: {c['error']}")
    if c.get("flags"):
        parts.append("flags: " + ", ".join(c["flags"]))
    parts += [str(x) for x in c.get("notes") or []]
    return "; ".join(parts)


def consistency_heatmap(step_id: str, figures: list[dict]) -> str:
    """Hosts x figures (a figure per role: 'memory bandwidth — role mds'), each cell the
    host's ratio to the figure's median across the role's hosts: pale at the median, red
    below (worse), blue above; outliers and pairs that differ flagged."""
    metrics = [subject(c) for c in figures]
    hosts = sorted({fig["node"] for c in figures for fig in c["figures"]})
    cells = {}
    for c in figures:
        pair = c.get("pair")
        for fig in c["figures"]:
            ratio = fig.get("ratio")
            if ratio is None:
                continue
            z = fig.get("robust_z")
            tip = (f"{fig['node']}, {subject(c)}: {figure_text(c['unit'], fig.get('value'))}, "
                   f"{ratio:.2f}× median {figure_text(c['unit'], c.get('median'))}"
                   + (f", robust z {z:+.1f}" if z is not None else "")
                   + (f" — {pair['high']} : {pair['low']} = {pair['ratio_text']}" if pair else "")
                   + ((" — they differ" if pair else " — outlier") if fig.get("flagged") else ""))
            cells[(fig["node"], subject(c))] = HeatCell(
                f"{ratio:.2f}×", diverging((ratio - 1) / 0.3), tip, flagged=bool(fig.get("flagged")))
    return heatmap(f"Node consistency: ratio to the median ({step_id})", hosts, metrics, cells,
                   note="colour: ratio to the median of the role's hosts (red below, blue "
                        "above); ⚠ flagged outlier, or a pair that differs", width=WIDTH)
