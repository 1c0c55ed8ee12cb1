"""The HTML report's charts of measured figures: what a reader looks at before the tables.

- headline bars: each test's headline figure in a ladder section, one chart per kind of
  figure (IOPS are not compared with bandwidth, nor bogo ops with either);
- sweep curves: IOPS (or bandwidth) against latency along a sweep's concurrency, the
  same points as the sweep table (report/sweep_tables.py), with the advice's limit;
- the latency-bounded search's knee: every probe, the limit line, the answer;
- latency percentile curves on a 'nines' axis (p50, p90, p99, p99.9 ...), where tail
  latency, which means hide, shows.

Nothing is recomputed: the figures come from summaries, records and the sweep grouping the
tables use, so a chart and its table always agree.
"""

from __future__ import annotations

from stackprobe.kinds import registry
from stackprobe.report.svg import nines, tidy
from stackprobe.report.svg_charts import Axis, Bar, Line, Point, RefLine, hbar_chart, line_chart
from stackprobe.report.sweep_tables import sweep_workloads
from stackprobe.report.table import Row
from stackprobe.schema.records import SloRecord, percentile_value
from stackprobe.schema.results import DirectionSummary, RunResults, StepResult
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns, parse_duration_s

SECTION_WIDTH = 540  # two charts side by side on a laptop screen
MAX_LINES = 8  # lines per chart before it stops being readable
NINES_TICKS = [(nines(p), f"p{p:g}") for p in (50, 90, 99, 99.9, 99.99)]
METRICS = {  # headline -> (row attribute, chart title, formatter)
    "iops": ("iops", "IOPS / ops/s", fmt_iops),
    "bw": ("bw_bytes", "Bandwidth", fmt_bw),
    "lat": ("lat_mean_ns", "Mean latency, lower is better", fmt_ns),
}


def headline_bars(rows: list[Row], kinds: dict[str, str]) -> list[str]:
    """One bar chart per (headline, step kind) among a section's rows; kinds: step id -> kind."""
    groups: dict[tuple[str, str], list[Bar]] = {}
    for row in rows:
        metric = row.headline or _guess_metric(row)
        if metric is None or getattr(row, METRICS[metric][0]) is None:
            continue
        attr, _, fmt = METRICS[metric]
        value = getattr(row, attr)
        half = value * row.ci95_pct / 100 if row.ci95_pct is not None else None
        tip = f"{row.test} — {row.workload}: {fmt(value)}" + (
            f" ±{row.ci95_pct:.1f}% (95% CI, {row.runs} runs)" if half is not None else "")
        groups.setdefault((metric, kinds.get(row.step, "")), []).append(
            Bar(row.test, value, tip, value - half if half else None, value + half if half else None))
    return [hbar_chart(f"{METRICS[m][1]} ({kind})" if kind else METRICS[m][1], bars,
                       METRICS[m][2], width=SECTION_WIDTH, binary=m == "bw")
            for (m, kind), bars in groups.items()]


def _guess_metric(row: Row) -> str | None:
    return "iops" if row.iops is not None else "bw" if row.bw_bytes is not None else None


def sweep_curves(results: RunResults) -> list[str]:
    """Throughput against latency for each workload of each sweep (two or more settings)."""
    charts = []
    for series in sweep_workloads(results):
        title, unit, points, limit = series.title, series.unit, series.points, series.limit
        if len({p.concurrency for p in points}) < 2:
            continue
        points = sorted(points, key=lambda p: p.concurrency)
        fmt = fmt_iops if unit == "IOPS" else fmt_bw
        pct = f"p{float(limit['percentile']):g}" if limit else None
        refs = [RefLine(_limit_ns(limit), f"limit {pct} {tidy(fmt_ns(_limit_ns(limit)))}")] if limit else []
        charts.append(line_chart(f"Sweep: {title}", [_sweep_line(title, points, fmt)],
                                 Axis("IOPS" if unit == "IOPS" else "bandwidth", fmt,
                                      binary=unit != "IOPS"),
                                 Axis(f"{pct} latency" if pct else "mean latency", fmt_ns),
                                 refs, width=SECTION_WIDTH))
    return charts


def _sweep_line(title: str, points: list, fmt) -> Line:
    """The sweep's points in concurrency order, each labelled by the settings that change."""
    varying = _varying_keys([p.label for p in points])
    return Line(title, [Point(p.throughput, p.latency_ns,
                              tip=f"{p.label}: {fmt(p.throughput)}, latency {fmt_ns(p.latency_ns)}",
                              label=_short_label(p.label, varying))
                        for p in points if p.latency_ns is not None])


def _limit_ns(limit: dict) -> float:
    return parse_duration_s(limit["limit"]) * 1e9


def _varying_keys(labels: list[str]) -> set[str]:
    """Of 'iodepth=4, numjobs=1' labels, the keys whose values differ between points."""
    seen: dict[str, set[str]] = {}
    for label in labels:
        for part in label.split(", "):
            key, _, value = part.partition("=")
            seen.setdefault(key, set()).add(value)
    return {k for k, values in seen.items() if len(values) > 1}


def _short_label(label: str, varying: set[str]) -> str:
    parts = [p for p in label.split(", ") if p.partition("=")[0] in varying]
    return ", ".join(parts) or label


def slo_knees(step: StepResult) -> list[str]:
    """The latency-bounded search of an slo step: probes by setting, limit, answer."""
    charts = []
    for rec in step.records:
        if not isinstance(rec, SloRecord) or not rec.probes:
            continue
        pct = f"p{rec.percentile:g}"
        probes = sorted(rec.probes, key=lambda p: p["setting"])
        line = Line(f"probes ({rec.vary})", [
            Point(p["iops"], p["latency_ns"], hollow=not p["passed"], label=str(p["setting"]),
                  tip=f"{rec.vary}={p['setting']}: {fmt_iops(p['iops'])} IOPS, {pct} "
                      f"{fmt_ns(p['latency_ns'])} — {'meets' if p['passed'] else 'exceeds'} the limit")
            for p in probes if p.get("iops") is not None and p.get("latency_ns") is not None])
        lines = [line]
        if rec.answer:
            a = rec.answer
            lines.append(Line("answer", [Point(a["iops"], a["latency_ns"], label="answer",
                                               tip=f"answer: {rec.vary}={a['setting']}, "
                                                   f"{fmt_iops(a['iops'])} IOPS")],
                              colour="#12906f"))
        charts.append(line_chart(
            f"Latency-bounded IOPS: {step.title}", lines, Axis("IOPS", fmt_iops),
            Axis(f"{pct} {rec.latency} latency", fmt_ns),
            [RefLine(rec.limit_ns, f"limit {pct} {tidy(fmt_ns(rec.limit_ns))}")], width=SECTION_WIDTH))
    return charts


def percentile_lines(step: StepResult, prefix: str = "") -> list[Line]:
    """One line per io group and direction that has latency percentiles (total latency
    where fio reported it, else completion latency)."""
    lines = []
    groups = step.summary.io if step.summary else []
    for group in groups:
        for name, d in (("read", group.read), ("write", group.write), ("trim", group.trim)):
            if d is None or not (d.lat_ns or d.clat_ns):
                continue
            kind, pcts = _percentiles(d)
            if not pcts:
                continue
            who = group.label if len(groups) > 1 else ""
            label = " ".join(x for x in (prefix, who, name) if x) + f" ({kind})"
            lines.append(Line(label, [Point(nines(p), v, tip=f"{label} p{p:g}: {fmt_ns(v)}")
                                      for p, v in pcts], markers=False))
    return lines


def _percentiles(d: DirectionSummary) -> tuple[str, list[tuple[float, float]]]:
    source, kind = (d.lat_ns, "total") if d.lat_ns else (d.clat_ns, "completion")
    pcts = sorted((percentile_value(k), v) for k, v in source.items()
                  if k.startswith("p") and v is not None)
    return kind, pcts


def percentile_charts(title: str, lines: list[Line]) -> list[str]:
    """Latency against percentile ('nines' x axis), log latency when the tail is long;
    more than MAX_LINES lines go to several charts."""
    charts = []
    for start in range(0, len(lines), MAX_LINES):
        chunk = lines[start:start + MAX_LINES]
        values = [p.y for ln in chunk for p in ln.points if p.y > 0]
        log = bool(values) and max(values) / min(values) > 20
        part = f" ({start // MAX_LINES + 1})" if len(lines) > MAX_LINES else ""
        charts.append(line_chart(f"Latency percentiles: {title}{part}", chunk,
                                 Axis("percentile", ticks=NINES_TICKS),
                                 Axis("latency", fmt_ns, log=log), width=SECTION_WIDTH,
                                 height=280 + 16 * ((len(chunk) + 1) // 2)))
    return charts


def swept_together(steps: list[StepResult]) -> dict[str, list[StepResult]]:
    """The sweeps among these steps with two or more finished settings, by sweep."""
    by_sweep: dict[str, list[StepResult]] = {}
    for step in steps:
        if step.sweep and step.status == "ok" and not registry.kind(step.kind).probe_groups:
            by_sweep.setdefault(step.sweep, []).append(step)
    return {k: v for k, v in by_sweep.items() if len(v) >= 2}


def sweep_percentiles(members: list[StepResult]) -> list[str]:
    """A sweep's percentile curves together: how the tail grows with concurrency."""
    lines = [ln for s in members
             for ln in percentile_lines(s, ", ".join(f"{k}={v}" for k, v in s.swept.items()))]
    return percentile_charts(f"sweep {members[0].title.split(' (')[0]}", lines) if lines else []


def step_percentiles(step: StepResult) -> list[str]:
    """A lone step's percentile curves (slo probes are drawn in the knee chart)."""
    lines = percentile_lines(step) if not registry.kind(step.kind).probe_groups else []
    return percentile_charts(step.title, lines) if lines else []
