"""The inventory's 'Memory population' table: each node's DIMMs, empty channels and peak.

Drawn from the step's `memory_population` finding (analysis/memory_population.py); nothing
is recomputed here. The finding's sentences are the step's warnings; its notes (no DIMM
facts, a board not recognised, each node's theoretical peak) go under the table.
"""

from __future__ import annotations

from typing import Any

from stackprobe.schema.results import StepResult
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw

FLAG = "⚠"


def _speeds(node: dict[str, Any]) -> str:
    speeds = sorted((int(k) for k in node.get("speeds_mts") or {}), reverse=True)
    return "/".join(str(s) for s in speeds) + " MT/s" if speeds else "-"


def _row(node: dict[str, Any], warned: set[str]) -> list[str]:
    name = node["node"]
    verdict = f"{FLAG} see warnings" if name in warned else "ok"
    if node.get("no_facts"):
        return [name, "-", "-", "-", "-", "-", "no DIMM facts"]
    empty = ", ".join(f"{c['channel']} of socket {c['socket']}"
                      for c in node.get("empty_channels") or [])
    if node.get("board") is None:
        empty = "not recognised"
    share = node.get("triad_share_of_peak")
    peak = fmt_bw(node["peak_bps"]) if node.get("peak_bps") else "-"
    if share is not None:
        peak += f" (triad {share:.0%})"
    return [name, f"{node['populated']}/{node['slots']}", node.get("board") or "-",
            empty or "none", _speeds(node), peak, verdict]


def population_table(step: StepResult) -> TextTable | None:
    finding = step.findings.get("memory_population")
    if not finding or not finding.get("nodes"):
        return None
    warned = {w.split(":", 1)[0] for w in finding.get("warnings") or []}
    t = TextTable(f"Memory population ({step.id})",
                  ["Host", "DIMMs", "Slot names read as", "Empty channels", "Speed",
                   "Theoretical peak", "Verdict"], left=(0, 2, 3, 6), layer="hardware")
    for name in sorted(finding["nodes"]):
        t.rows.append(_row(finding["nodes"][name], warned))
    t.notes += list(finding.get("warnings") or []) + list(finding.get("notes") or [])
    return t


def population_tables(steps) -> list[TextTable]:
    """The population table of each step that has the finding (an inventory, or a stream
    step that put its triads beside an earlier inventory's DIMMs)."""
    return [t for step in steps if (t := population_table(step)) is not None]
