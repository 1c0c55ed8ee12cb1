"""Renderings of a comparison (report/compare.py): the per-rung tables every output draws
(terminal, Markdown, HTML), the Markdown page and the JSON document.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from stackprobe.report.compare import Comparison, MatchedRow, Side, compare
from stackprobe.report.render import LAYER_TITLES
from stackprobe.schema.results import RunResults
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_ns, fmt_ops

TABLE_HEADERS = ["Test", "Workload", "Run", "Bandwidth", "IOPS / ops/s", "Mean latency",
                 "p99 latency", "Change", "Noise"]
HEADLINE_COLUMN = {"bw": 3, "iops": 4, "lat": 5}


def change_text(side: Side, base: Side) -> str:
    """'+12.3% better', '-4.1% worse', '+2160% (22.6x) better', or why there is none."""
    if side.row is None:
        return side.absent
    if side.value is None:
        return "no such figure"
    if base.value is None:
        return f"no figure in {base.label}"
    if side.change_pct is None:
        return f"n/a ({base.label} is 0)"
    text = f"{side.change_pct:+.0f}%" if abs(side.change_pct) >= 100 else f"{side.change_pct:+.1f}%"
    ratio = 1 + side.change_pct / 100
    if ratio >= 2:
        text += f" ({ratio:.3g}x)"
    if side.better is not None:
        text += " better" if side.better else " worse"
    return text


def side_cells(matched: MatchedRow, index: int) -> list[str]:
    """One line of the table: a run's figures of a matched row (first line: its name)."""
    side = matched.sides[index]
    first = index == 0
    cells = [matched.test if first else "", matched.workload if first else "",
             side.label, "", "", "", "", "", ""]
    row = side.row
    if row is not None:
        if row.status != "ok":
            cells[2] += f" ({row.status})"
        cells[3:7] = [fmt_bw(row.bw_bytes) if row.bw_bytes is not None else "",
                      fmt_ops(row.iops, row.ops_unit) if row.iops is not None else "",
                      fmt_ns(row.lat_mean_ns) if row.lat_mean_ns is not None else "",
                      fmt_ns(row.p99_ns) if row.p99_ns is not None else ""]
        pos = HEADLINE_COLUMN[matched.headline]
        if side.ci95_pct is not None and cells[pos]:
            cells[pos] += f" ±{side.ci95_pct:.1f}%"
    if not first:
        cells[7] = change_text(side, matched.sides[0])
        cells[8] = side.verdict or ""
    elif row is None:
        cells[7] = side.absent
    return cells


def layer_groups(comparison: Comparison) -> list[tuple[str, list[MatchedRow]]]:
    """(table title, matched rows) per ladder rung, in the ladder's order."""
    layers = list(dict.fromkeys(m.layer for m in comparison.rows))
    return [(LAYER_TITLES.get(layer, layer), [m for m in comparison.rows if m.layer == layer])
            for layer in layers]


def comparison_tables(comparison: Comparison) -> list[TextTable]:
    """One table per ladder rung, one line per run and matched row (seed 001's layout:
    the machines' figures of a test on consecutive lines)."""
    tables = []
    for title, rows in layer_groups(comparison):
        table = TextTable(title=title, headers=list(TABLE_HEADERS))
        for matched in rows:
            table.rows += [side_cells(matched, i) for i in range(len(matched.sides))]
        tables.append(table)
    if tables:
        tables[-1].notes += comparison.notes
    return tables


def compare_tables(runs: Sequence[RunResults]) -> list[TextTable]:
    """The comparison as titled tables any renderer (terminal, Markdown, HTML) can draw;
    the run legend and `inventory_differences` go before them."""
    return comparison_tables(compare(runs))


def compare_markdown(runs: Sequence[RunResults]) -> str:
    comparison = compare(runs)
    lines = [f"# stackprobe compare: {' vs '.join(comparison.labels)}", ""]
    lines += [f"- **{label}**: {text}" for label, text in comparison.legend]
    lines += ["", "## Differences", ""]
    lines += [f"- **{what}**: {text}" for what, text in comparison.differences]
    for table in comparison_tables(comparison):
        lines += ["", f"## {table.title}", ""]
        lines.append("| " + " | ".join(table.headers) + " |")
        lines.append("|" + "---|" * len(table.headers))
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
                  for row in table.rows]
        lines += [f"\n_{n}_" for n in table.notes]
    return "\n".join(lines) + "\n"


def compare_json(runs: Sequence[RunResults]) -> str:
    comparison = compare(runs)
    doc = {
        "runs": [{"label": label, "id": r.run.id, "suite": r.run.suite, "target": r.run.target,
                  "host": r.run.host, "started": r.run.started, "status": r.run.status}
                 for label, r in zip(comparison.labels, runs)],
        "differences": [{"what": what, "text": text} for what, text in comparison.differences],
        "rows": [_matched_dict(m) for m in comparison.rows],
        "notes": comparison.notes,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def _matched_dict(matched: MatchedRow) -> dict[str, Any]:
    sides = []
    for side in matched.sides:
        figures = ({k: v for k, v in asdict(side.row).items() if k in (
            "step", "test", "status", "note", "bw_bytes", "iops", "lat_mean_ns", "p99_ns",
            "runs", "noisy")} if side.row else {})
        sides.append({"label": side.label, "present": side.row is not None,
                      "absent": side.absent or None, **figures, "value": side.value,
                      "repeat_values": list(side.repeat_values), "ci95_pct": side.ci95_pct,
                      "change_pct": side.change_pct, "better": side.better,
                      "verdict": side.verdict})
    return {"layer": matched.layer, "test": matched.test, "workload": matched.workload,
            "direction": matched.direction, "headline": matched.headline,
            "present_in": matched.present_in, "runs": sides}
