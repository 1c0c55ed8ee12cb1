"""Render a run's summary as Markdown (a wiki page), CSV (a spreadsheet) or JSON.

All three carry the same rows as `stackprobe show`; Markdown also has the extra tables
(the ladder first) and JSON the ladder as data; HTML comes with its own module.
"""

from __future__ import annotations

import csv
import io
import json

from stackprobe.report.checklist import checklist_markdown
from stackprobe.report.health_tables import health_tables
from stackprobe.report.host_tables import host_tables
from stackprobe.report.inventory_lines import ceph_lines, inventory_lines
from stackprobe.report.kind_tables import kind_tables
from stackprobe.report.ladder_tables import ladder_dicts, ladder_table
from stackprobe.report.osd_tables import osd_tables
from stackprobe.report.role_tables import role_tables
from stackprobe.report.slo_tables import slo_tables
from stackprobe.report.sweep_tables import sweep_tables
from stackprobe.report.table import Row, summary_rows
from stackprobe.schema.records import CephInventoryRecord, InventoryRecord
from stackprobe.schema.results import RunResults
from stackprobe.spec.steps import LAYERS
from stackprobe.tables.io500 import io500_tables
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_ns, fmt_ops, fmt_seconds

LAYER_TITLES = {
    "hardware": "Hardware",
    "disk": "Disks and filesystems",
    "network": "Network",
    "daemon": "Storage daemons",
    "cluster": "Cluster",
    "client": "Clients and applications",
}
HEADERS = ("Test", "Workload", "Bandwidth", "IOPS / ops/s", "Mean latency", "p99 latency",
           "Status")


HEADLINE_CELL = {"bw": 2, "iops": 3, "lat": 4}


def formatted(row: Row) -> list[str]:
    """The row's cells as people read them; a repeated step's headline cell carries its 95%
    confidence interval, and its status the number of runs and the CoV (NOISY above the
    step's threshold)."""
    status = row.status
    if row.runs:
        spread = f"{row.runs} runs" + (f", CoV {row.cov_pct:.1f}%" if row.cov_pct is not None else "")
        status = f"{'NOISY' if row.noisy else status} ({spread})"
    if row.steady:
        status = f"{status}, {row.steady}"
    if row.note:
        status = f"{status}: {row.note}"
    cells = [
        row.test,
        row.workload,
        fmt_bw(row.bw_bytes) if row.bw_bytes is not None else "",
        fmt_ops(row.iops, row.ops_unit) if row.iops is not None else "",
        fmt_ns(row.lat_mean_ns) if row.lat_mean_ns is not None else "",
        fmt_ns(row.p99_ns) if row.p99_ns is not None else "",
        status,
    ]
    pos = HEADLINE_CELL.get(row.headline or "")
    if row.ci95_pct is not None and pos is not None and cells[pos]:
        cells[pos] += f" ±{row.ci95_pct:.1f}%"
    return cells


def extra_tables(results: RunResults) -> list[TextTable]:
    """The tables after the summary: first the ladder (each upper rung against the ceiling
    its lower rungs allow), then the rest in the ladder's order of what they are about."""
    ladder = ladder_table(results)
    return ([ladder] if ladder else []) + host_tables(results) + role_tables(results) + \
        osd_tables(results) + kind_tables(results) + slo_tables(results) + \
        sweep_tables(results) + io500_tables(results) + health_tables(results)


def inventories(results: RunResults) -> list[InventoryRecord]:
    return [r for s in results.steps for r in s.records if isinstance(r, InventoryRecord)]


def environment_lines(results: RunResults) -> list[tuple[str, str]]:
    """Host inventory lines, then the Ceph cluster's and the run pool's."""
    lines = [line for inv in inventories(results) for line in inventory_lines(inv)]
    pool = (results.run.ceph or {}).get("pool")
    for step in results.steps:
        for rec in step.records:
            if isinstance(rec, CephInventoryRecord):
                lines += ceph_lines(rec, pool)
    return lines


def warnings_of(results: RunResults) -> list[str]:
    out = list(results.run.warnings)
    for inv in inventories(results):
        out.extend(inv.flags)
    said: dict[str, list[str]] = {}  # a warning several steps share is said once
    for step in results.steps:
        for w in step.warnings:
            said.setdefault(w, []).append(step.id)
    for w, ids in said.items():
        where = ids[0] if len(ids) == 1 else \
            ", ".join(ids) if len(ids) <= 3 else f"{len(ids)} steps ({ids[0]} to {ids[-1]})"
        out.append(f"{where}: {w}")
    return out


def limits_of(results: RunResults) -> list[str]:
    """Per step, where the limit was (bottleneck hints from monitoring) and whether the
    throughput held over time (the stability verdict of the tool's per-second series)."""
    out = []
    for step in results.steps:
        out.extend(f"{step.id}: {h}" for h in step.hints)
        for part in (step.stability or {}).get("parts", []):
            out.append(f"{step.id}: {part['sentence']}")
    return out


def to_markdown(results: RunResults) -> str:
    run = results.run
    took = ""
    lines = [f"# stackprobe run {run.id}", ""]
    lines += [f"- Suite: {run.suite} ({run.suite_source})", f"- Target: {run.target}",
              f"- Host: {run.host}", f"- Started: {run.started}", f"- Status: {run.status}"]
    durations = [s.duration_s for s in results.steps if s.duration_s]
    if durations:
        took = fmt_seconds(sum(durations))
        lines.append(f"- Measured for: {took}")
    if run.tool_versions:
        tools = ", ".join(f"{k} {v}" for k, v in sorted(run.tool_versions.items()))
        lines.append(f"- Tools: {tools}")
    env = environment_lines(results)
    if env:
        lines += ["", "## Environment", ""]
        lines += [f"- **{label}**: {text}" for label, text in env]
    rows = summary_rows(results)
    for layer in LAYERS:
        layer_rows = [r for r in rows if r.layer == layer]
        if not layer_rows:
            continue
        lines += ["", f"## {LAYER_TITLES[layer]}", ""]
        lines.append("| " + " | ".join(HEADERS) + " |")
        lines.append("|" + "---|" * len(HEADERS))
        for row in layer_rows:
            cells = [c.replace("|", "\\|") for c in formatted(row)]
            lines.append("| " + " | ".join(cells) + " |")
    for table in extra_tables(results):
        lines += ["", f"## {table.title}", ""]
        if table.rows:  # a table with nothing in it is its title and notes
            lines.append("| " + " | ".join(table.headers) + " |")
            lines.append("|" + "---|" * len(table.headers))
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in table.rows]
        lines += [f"\n_{n}_" for n in table.notes]
    limits = limits_of(results)
    if limits:
        lines += ["", "## Limits and stability", ""] + [f"- {x}" for x in limits]
    notes = warnings_of(results)
    if notes:
        lines += ["", "## Warnings", ""] + [f"- {w}" for w in notes]
    if results.verdict is not None:
        lines += ["", *checklist_markdown(results.verdict)]
    return "\n".join(lines) + "\n"


CSV_FIELDS = ("run", "layer", "step", "test", "workload", "direction", "bw_bytes", "iops",
              "lat_mean_ns", "p99_ns", "headline", "status", "note", "runs", "ci95_pct",
              "cov_pct", "noisy", "steady", "limits", "ops_unit")


def to_csv(results: RunResults) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    limits = {s.id: "; ".join([*s.hints, *(p["sentence"] for p in (s.stability or {}).get("parts", []))])
              for s in results.steps}
    for row in summary_rows(results):
        writer.writerow({"run": results.run.id, **row.as_dict(), "limits": limits.get(row.step, "")})
    return buf.getvalue()


def to_json(results: RunResults) -> str:
    doc = {
        "schema_version": results.schema_version,
        "run": results.run.model_dump(mode="json"),
        "rows": [row.as_dict() for row in summary_rows(results)],
        "warnings": warnings_of(results),
        "limits": limits_of(results),
        "ladder": ladder_dicts(results),
        "verdict": results.verdict.model_dump(mode="json") if results.verdict else None,
    }
    return json.dumps(doc, indent=1) + "\n"
