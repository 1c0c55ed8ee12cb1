"""`stackprobe report RUN --format html`: the run as one page a person can mail, archive and
open years later without a network.

Everything is inside the file: inline CSS, charts as inline SVG (report/svg*.py), no
script, font or image from anywhere. The page carries the same summary rows and extra
tables as the Markdown report (report/render.py), so the two never disagree; charts are
added beside them. Layout follows the seed reports: the summary table first (one row per
test: bandwidth, IOPS, latency), then the ladder (each upper-rung result against the
ceiling its lower rungs allow, report/html_ladder.py), then one section per rung of the
ladder, each with its charts, its tables and its steps (hints, stability verdict, time
series, commands).

This module gathers plain values for the template (templates/report.html.j2), which jinja2
renders with autoescaping on: a step title is always text. Only the SVG strings, built
from escaped text, are marked safe.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from stackprobe.report.checklist import checklist_page
from stackprobe.report.html_figures import (
    headline_bars,
    slo_knees,
    step_percentiles,
    sweep_curves,
    sweep_percentiles,
    swept_together,
)
from stackprobe.report.html_heatmaps import step_heatmaps
from stackprobe.report.html_ladder import ladder_section
from stackprobe.report.html_timeline import step_timeline
from stackprobe.report.ladder_tables import ladder_table
from stackprobe.report.render import (
    HEADERS,
    HEADLINE_CELL,
    LAYER_TITLES,
    environment_lines,
    extra_tables,
    formatted,
    warnings_of,
)
from stackprobe.report.table import Row, summary_rows, workload_text
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.spec.steps import LAYERS
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_seconds

TEMPLATE = "report.html.j2"


def to_html(results: RunResults, run_dir: Path | None = None) -> str:
    """The page; run_dir is where monitor files are read from (none: panels left out)."""
    env = Environment(loader=PackageLoader("stackprobe.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env.get_template(TEMPLATE).render(**page(results, run_dir))


def page(results: RunResults, run_dir: Path | None) -> dict[str, Any]:
    rows = summary_rows(results)
    pool = _TablePool(extra_tables(results))
    ladder = _ladder(results, pool)  # first: a layer's own ladder table must not claim it
    sections = [_section(layer, results, rows, run_dir, pool) for layer in LAYERS
                if any(s.layer == layer for s in results.steps)]
    others = sorted({s.layer for s in results.steps} - set(LAYERS))
    sections += [_section(layer, results, rows, run_dir, pool) for layer in others]
    return {
        "run": _header(results),
        "headers": HEADERS,
        "summary": _summary(rows),
        "ladder": ladder,
        "sections": sections,
        "more_tables": [_table(t) for t in pool.left()],
        "environment": environment_lines(results),
        "warnings": warnings_of(results),
        "run_commands": [_command(c) for c in results.run.commands],
        "verdict": checklist_page(results.verdict) if results.verdict else None,
    }


@dataclass
class _TablePool:
    """The Markdown report's extra tables, handed out once each to the section whose steps
    produce them; what no section claims is shown at the end, so none is lost."""

    tables: list[TextTable]
    used: set[int] = field(default_factory=set)

    def take(self, candidates: list[TextTable]) -> list[TextTable]:
        taken = []
        for cand in candidates:
            for i, t in enumerate(self.tables):
                if i not in self.used and t == cand:
                    self.used.add(i)
                    taken.append(t)
                    break
        return taken

    def left(self) -> list[TextTable]:
        return [t for i, t in enumerate(self.tables) if i not in self.used]


def _header(results: RunResults) -> dict[str, Any]:
    run = results.run
    measured = sum(s.duration_s or 0 for s in results.steps)
    return {
        "id": run.id, "suite": run.suite, "suite_source": run.suite_source, "target": run.target,
        "host": run.host, "status": run.status, "started": run.started, "ended": run.ended or "",
        "wall": _wall(run.started, run.ended), "measured": fmt_seconds(measured),
        "steps": len(results.steps),
        "failed": sum(1 for s in results.steps if s.status == "failed"),
        "hosts": [_host(h) for h in run.hosts],
        "stackprobe_version": run.stackprobe_version,
        "tools": sorted(run.tool_versions.items()),
        "command_line": shlex.join(run.command_line),
        "ceph": ", ".join(f"{k} {v}" for k, v in (run.ceph or {}).items() if v not in (None, "")),
    }


def _host(h: dict) -> dict[str, str]:
    nic = h.get("nic_speed_mbps")
    return {"name": str(h.get("name", "?")), "address": str(h.get("address") or ""),
            "roles": ", ".join(h.get("roles") or []), "nic": f"{nic:g} Mb/s" if nic else ""}


def _wall(started: str | None, ended: str | None) -> str:
    try:
        a, b = (datetime.fromisoformat(t.replace("Z", "+00:00")) for t in (started, ended))
    except (AttributeError, TypeError, ValueError):
        return ""
    return fmt_seconds((b - a).total_seconds())


def _summary(rows: list[Row]) -> list[dict[str, Any]]:
    """The summary table's rows by ladder rung, as the Markdown report has them."""
    groups = []
    layers = list(LAYERS) + sorted({r.layer for r in rows} - set(LAYERS))
    for layer in layers:
        members = [r for r in rows if r.layer == layer]
        if members:
            groups.append({"title": LAYER_TITLES.get(layer, layer), "anchor": f"layer-{layer}",
                           "rows": [_row(r) for r in members]})
    return groups


def _row(row: Row) -> dict[str, Any]:
    status = "noisy" if row.noisy else row.status
    return {"cells": formatted(row), "headline": HEADLINE_CELL.get(row.headline or ""),
            "status": status, "step": row.step}


def _section(layer: str, results: RunResults, rows: list[Row], run_dir: Path | None,
             pool: _TablePool) -> dict[str, Any]:
    steps = sorted((s for s in results.steps if s.layer == layer), key=lambda s: s.index)
    subset = results.model_copy(update={"steps": steps})
    together = swept_together(steps)
    in_sweep = {s.id for members in together.values() for s in members}
    figures = headline_bars([r for r in rows if r.layer == layer], {s.id: s.kind for s in steps})
    figures += sweep_curves(subset)
    figures += [c for members in together.values() for c in sweep_percentiles(members)]
    figures += [c for s in steps for c in slo_knees(s) + step_heatmaps(s)]
    return {
        "title": LAYER_TITLES.get(layer, layer), "anchor": f"layer-{layer}",
        "figures": [Markup(f) for f in figures],
        "tables": [_table(t) for t in pool.take(extra_tables(subset))],
        "steps": [_card(s, run_dir, s.id in in_sweep) for s in steps],
    }


def _ladder(results: RunResults, pool: _TablePool) -> dict[str, Any] | None:
    """The ladder section: chart, sentences, and the ladder table (its notes are the
    sentences, shown once above it)."""
    section = ladder_section(results)
    table = ladder_table(results)
    if section is None or table is None:
        return None
    section["chart"] = Markup(section["chart"])
    section["tables"] = [{**_table(t), "notes": []} for t in pool.take([table])]
    return section


def _table(t: TextTable) -> dict[str, Any]:
    return {"title": t.title, "headers": t.headers, "rows": t.rows, "notes": t.notes,
            "left": list(t.left)}


def _card(step: StepResult, run_dir: Path | None, drawn_with_sweep: bool) -> dict[str, Any]:
    timeline = step_timeline(step, run_dir)
    charts = ([] if drawn_with_sweep else step_percentiles(step)) + timeline.charts
    return {
        "id": step.id, "anchor": f"step-{step.id}", "title": step.title, "kind": step.kind,
        "status": step.status, "workload": workload_text(step),
        "duration": fmt_seconds(step.duration_s) if step.duration_s is not None else "",
        "hosts": ", ".join(step.hosts), "error": step.error or "",
        "notes": step.notes, "warnings": step.warnings, "hints": step.hints,
        "stability": _stability(step.stability),
        "charts": [Markup(c) for c in charts], "monitor_notes": timeline.notes,
        "monitor": [(host, _flatten(info["summary"])) for host, info in sorted(step.monitor.items())
                    if isinstance(info.get("summary"), dict)],
        "commands": [_command(c) for c in step.commands],
    }


def _stability(s: dict | None) -> dict[str, Any] | None:
    """The over-time verdict, then each series' sentence (its figures when it has none)."""
    if not s:
        return None
    verdict = str(s.get("verdict", "no verdict"))
    parts = s.get("parts") or [{k: v for k, v in s.items() if k != "verdict"}]
    lines = [str(p.get("sentence") or ", ".join(f"{k} {v}" for k, v in _flatten(p)))
             for p in parts if isinstance(p, dict)]
    return {"verdict": verdict, "lines": [x for x in lines if x], "good": verdict == "stable"}


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """A nested summary as (dotted key, text) pairs, empty values left out:
    [('cpu.busy_max_pct', '91.5'), ('disks.vda.util_max_pct', '57.2'), ...]."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _flatten(v, f"{prefix}{k}.")]
    if value is None or value == [] or value == {}:
        return []
    text = f"{value:.3g}" if isinstance(value, float) else str(value)
    return [(prefix.rstrip("."), text)]


def _command(c) -> dict[str, Any]:
    rc = "timed out" if c.timed_out else "interrupted" if c.interrupted else f"exit {c.returncode}"
    return {"command": c.command, "host": c.host, "result": rc,
            "duration": f"{c.duration_s:.1f} s", "ok": c.returncode == 0}
