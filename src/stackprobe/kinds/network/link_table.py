"""The link_state kind's table: one row per link of every host, the flags under it.

Why a table of its own: the state of a fleet's links is read across hosts (the one port
at 56 Gb/sec among 100s), so hosts are rows side by side with what the hosts file expects
and what most hosts run.
"""

from __future__ import annotations

from stackprobe.tables.text_table import TextTable


def _mbps(value) -> str:
    if not value:
        return "-"
    return f"{value / 1000:g} Gb/s" if value >= 1000 else f"{value:g} Mb/s"


def link_table(step) -> TextTable | None:
    found = step.findings.get("link_state")
    if not found:
        return None
    table = TextTable(f"Link state — {step.title or step.id}",
                      ["host", "link", "state", "speed", "expected", "fleet", "driver",
                       "firmware", "flags"], left=(0, 1, 2, 3, 6, 7), wide_only=(6, 7),
                      layer="network")
    for link in found.get("links", []):
        table.rows.append([
            str(link.get("host")), str(link.get("name")), str(link.get("state")),
            str(link.get("speed")), _mbps(link.get("expected_mbps")),
            _mbps(link.get("fleet_mbps")), link.get("driver") or "-",
            link.get("firmware") or "-", str(len(link.get("flags") or []) or "")])
        table.notes += (link.get("flags") or []) + (link.get("notes") or [])
    if found.get("probe_root"):
        table.notes.append(f"read from recorded trees: {found['probe_root']}")
    return table


def link_tables(steps) -> list[TextTable]:
    return [t for step in steps if (t := link_table(step)) is not None]
