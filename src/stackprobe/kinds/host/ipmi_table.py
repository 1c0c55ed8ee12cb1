"""The 'BMC' table: one row per BMC of each ipmi step — answered, firmware, the sensors out
of range, the SEL's errors, chassis faults — read from its BmcRecords."""

from __future__ import annotations

from stackprobe.tables.text_table import TextTable


def _row(rec) -> list[str]:
    if not rec.reachable:
        return [rec.host or "-", rec.address or "-", "NO", "-", "-", "-", rec.problem or "-"]
    info = rec.info
    firmware = (info.firmware or "?") if info else "?"
    bad = ", ".join(f"{s.name} ({s.out_of_range})" for s in rec.out_of_range)
    errors = "; ".join(f"{e.id}: {e.sensor}: {e.event}" for e in rec.sel_errors)
    faults = ", ".join(rec.chassis.faults) if rec.chassis else "?"
    return [rec.host or "-", rec.address or "-", "yes", firmware,
            f"{len(rec.sensors)}: " + (bad or "all within range"),
            f"{len(rec.sel)}: " + (errors or "no error"), faults or "none"]


def bmc_tables(steps) -> list[TextTable]:
    tables = []
    for step in steps:
        recs = [r for r in step.records if getattr(r, "type", None) == "bmc"]
        if not recs:
            continue
        t = TextTable(f"BMC ({step.id})", ["Host", "BMC", "Answers", "Firmware",
                                           "Sensors: out of range", "SEL: errors", "Chassis"],
                      left=(0, 1, 2, 3, 4, 5, 6), wide_only=(1,), layer="hardware")
        t.rows = [_row(r) for r in recs]
        news = [f"{r.host}: {len(r.new_events)} new SEL entries since {r.sel_since}: "
                + "; ".join(f"{e.id} {e.sensor}: {e.event}" for e in r.new_events)
                for r in recs if r.sel_since is not None]
        t.notes += [f"{r.host}: {r.info.manufacturer}, product {r.info.product}" for r in recs
                    if r.info is not None and r.info.manufacturer]
        t.notes += news
        tables.append(t)
    return tables
