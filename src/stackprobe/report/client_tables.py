"""The table of Ceph steps run from many clients at once: how together they started.

From each step's findings["clients"] (kinds/ceph/fleet.py): per phase, the start skew
between the clients (the last start minus the first, measured on each host), the window
in which every client ran (the all-clients figures are taken over it), and the clients'
spread (the slowest against the median; a flagged client is also in the step's client
consistency table and warnings).
"""

from __future__ import annotations

from stackprobe.analysis.client_window import SKEW_GOAL_S
from stackprobe.schema.results import RunResults
from stackprobe.tables.text_table import TextTable


def client_start_table(results: RunResults) -> TextTable | None:
    t = TextTable("Ceph from many clients: start skew and common window",
                  ["Step", "Phase", "Clients", "Start skew", "Common window", "Slowest client"],
                  layer="cluster")
    for step in results.steps:
        phases = step.findings.get("clients")
        if not isinstance(phases, dict):
            continue
        spreads = {c.get("metric", ""): c for c in step.findings.get("consistency", [])}
        for phase, p in phases.items():
            skew, window = p.get("start_skew_s"), p.get("window_s")
            spread = next((c for m, c in spreads.items() if phase in m), None)
            t.rows.append([step.id, phase, str(len(step.hosts)),
                           "-" if skew is None else _skew(skew),
                           "-" if window is None else f"{window:.1f} s",
                           _slowest(spread)])
    return t if t.rows else None


def _skew(s: float) -> str:
    text = f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"
    return text if s <= SKEW_GOAL_S else f"{text} (late)"


def _slowest(spread: dict | None) -> str:
    if not spread or not spread.get("figures"):
        return "-"
    low = min(spread["figures"], key=lambda f: f["ratio"])
    mark = " ⚠" if low["flagged"] else ""
    return f"{low['node']} {low['ratio']:.2f}× median{mark}"
