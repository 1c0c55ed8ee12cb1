"""The settings kind's table: a handful of key settings, one row per host.

Why only a handful: a host has two hundred settings, and the table is read across hosts
for the few that change what every benchmark measures (SMT, governor, turbo, C-states,
THP, kernel, BIOS, tuned, time); all of them stay in results.json, and drift across a
role is judged elsewhere (kinds/host/settings_judging.py).
"""

from __future__ import annotations

from stackprobe.tables.text_table import TextTable, step_table_title

COLUMNS = (("SMT", "cpu.smt"), ("governor", "cpu.governor"), ("turbo", "cpu.turbo"),
           ("deepest C-state", "cpu.deepest_cstate"), ("THP", "mm.thp"),
           ("kernel", "kernel.version"), ("BIOS", "bios.version"), ("tuned", "tuned.profile"),
           ("time sync", "time.sync"))


def _value(settings: dict, name: str) -> str:
    setting = settings.get(name)
    value = getattr(setting, "value", None) if setting is not None else None
    return "?" if value is None else str(value)


def settings_table(step) -> TextTable | None:
    records = [r for r in step.records if getattr(r, "type", None) == "settings"]
    if not records:
        return None
    table = TextTable(step_table_title("Settings", step),
                      ["host", *(title for title, _ in COLUMNS)],
                      left=tuple(range(len(COLUMNS) + 1)), wide_only=(6, 7, 8, 9),
                      layer="hardware")
    for record in records:
        table.rows.append([record.host or "-",
                           *(_value(record.settings, name) for _, name in COLUMNS)])
    table.notes.append("? = not readable on that host (unknown); every setting and its "
                       "source is in results.json")
    probe_root = (step.findings.get("settings") or {}).get("probe_root")
    if probe_root:
        table.notes.append(f"read from recorded trees: {probe_root}")
    return table


def settings_tables(steps) -> list[TextTable]:
    return [t for step in steps if (t := settings_table(step)) is not None]
