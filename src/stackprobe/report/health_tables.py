"""'Health during the run': the counters that changed between the run's two snapshots
(host, counter, before, after, change, step), then the new kernel-log and SEL lines.

Why only what changed: a fleet has thousands of counters and nearly all of them stay at
zero; the reader needs the few that moved, and to be told when none did (a table saying
'nothing rose on 4 hosts' is a result, not an absence of one).
"""

from __future__ import annotations

from stackprobe.schema.results import RunResults
from stackprobe.tables.text_table import TextTable


def _change(f) -> str:
    if f.before is None or f.after is None:
        return f.what
    d = f.after - f.before
    return f"+{d}" if d > 0 else str(d)


def health_tables(results: RunResults) -> list[TextTable]:
    watch = results.health
    if watch is None:
        return []
    table = TextTable("Health during the run", ["host", "counter", "before", "after", "change",
                                                "step"], left=(0, 1, 5), layer="hardware")
    for f in watch.findings:
        if f.what in ("kernel", "sel"):  # one row each; the line itself in the notes
            table.rows.append([f.host, f.subject, "-", "-", "new line", f.step or "-"])
            continue
        table.rows.append([f.host, f.subject, "-" if f.before is None else str(f.before),
                           "-" if f.after is None else str(f.after), _change(f), f.step or "-"])
    lines = [f.sentence for f in watch.findings if f.what in ("kernel", "sel")]
    hosts = len(watch.hosts) + len(watch.bmcs)
    if not watch.complete:
        table.notes.append("the snapshots before and after the run were not both taken: "
                           "nothing was compared")
    elif not table.rows:
        table.notes.append(f"{watch.compared} counters on {hosts} hosts/BMCs compared: none "
                           "changed, no new kernel-log error, no new SEL entry")
    else:
        table.notes.append(f"{watch.compared} counters on {hosts} hosts/BMCs compared")
    table.notes += lines + [f.sentence for f in watch.findings if f.what == "fell"]
    table.notes += watch.warnings
    if watch.cost_s is not None:
        table.notes.append(f"both snapshots took {watch.cost_s:.2f} s")
    return [table]
