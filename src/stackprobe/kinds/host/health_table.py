"""The `health` step's table: every counter of every host as the step read it, with the
disks' own verdicts, and what is wrong from a value alone as notes."""

from __future__ import annotations

from stackprobe.analysis.health_delta import absolute_findings
from stackprobe.tables.text_table import TextTable, step_table_title


def _disk_text(d) -> str:
    if d.problem:
        return f"{d.name}: not read ({d.problem})"
    verdict = {True: "PASSED", False: "FAILED", None: "?"}[d.passed]
    parts = [f"{d.name} ({d.protocol or '?'}, {d.model or '?'}): SMART {verdict}"]
    if d.critical_warning is not None:
        parts.append(f"critical warning {d.critical_warning}")
    if d.temperature_c is not None:
        parts.append(f"{d.temperature_c:g} C")
    if d.percentage_used is not None:
        parts.append(f"{d.percentage_used}% used")
    return ", ".join(parts)


def health_table(step) -> TextTable | None:
    recs = [r for r in step.records if getattr(r, "type", None) == "health"]
    if not recs:
        return None
    table = TextTable(step_table_title("Health counters", step),
                      ["host", "counter", "value", "source"], left=(0, 1, 3),
                      layer="hardware")
    for rec in recs:
        for name, counter in sorted(rec.counters.items()):
            table.rows.append([rec.host or "-", name, str(counter.value), counter.source])
        table.notes += [f"{rec.host}: {_disk_text(d)}" for d in rec.disks]
        table.notes += [f"{rec.host}: {p}" for p in rec.problems]
        table.notes += absolute_findings(rec)
    if not table.rows:
        table.notes.insert(0, f"{len(recs)} hosts: no error counter to read (no EDAC, no NIC "
                              "backed by a device, no InfiniBand port, no disk SMART answered)")
    return table


def health_tables(steps) -> list[TextTable]:
    return [t for step in steps if (t := health_table(step)) is not None]
