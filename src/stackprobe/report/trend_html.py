"""`stackprobe history --format html`: one offline page of trend charts.

Like the run report, one self-contained file: inline SVG from report/svg_charts.py, no
script, no font or stylesheet from elsewhere, so it opens from a mail attachment years
later. One chart per figure key: the value run after run, the band of the runs before each
(dashed), and the values that left it marked — red when the change is for the worse
(latency up, throughput down), green when for the better — each followed by its table.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from stackprobe.analysis import drift
from stackprobe.report.figure_keys import value_text
from stackprobe.report.history import Series, drift_mark
from stackprobe.report.svg import MUTED, colour
from stackprobe.report.svg_charts import Axis, Line, Point, line_chart
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns

WORSE, BETTER = "#c43b2f", "#12906f"
MAX_TICKS = 12

_CSS = """
body { margin: 0; color: #222; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto,
  "Noto Sans", sans-serif; }
main { max-width: 1000px; margin: 0 auto; padding: 0 20px 48px; }
h1 { font-size: 22px; margin: 24px 0 4px; }
h2 { font-size: 14px; margin: 30px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #0a64a4;
  font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; word-break: break-all; }
.note { color: #666; margin: 4px 0; font-size: 13px; }
svg.chart { display: block; max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; margin-top: 6px; }
th, td { border: 1px solid #d9d9d9; padding: 2px 8px; text-align: left; }
td.num { text-align: right; white-space: nowrap; }
.worse { color: #b3261e; font-weight: 600; } .better { color: #17794a; font-weight: 600; }
"""


def _fmt(unit: str):
    return {"IOPS": fmt_iops, "B/s": fmt_bw, "ns": fmt_ns}.get(unit, lambda v: f"{v:g}")


def _x_axis(n: int) -> Axis:
    step = max(1, -(-n // MAX_TICKS))
    ticks = [(float(i), str(i)) for i in range(1, n + 1, step)]
    return Axis("run, oldest → newest", lo=0.5, hi=n + 0.5, ticks=ticks, zero=False)


def trend_chart(s: Series) -> str:
    """The series' chart: values, the band of previous runs, the drift marks."""
    pts = [Point(i, p.value, tip=f"{p.started} {p.run_id}: {value_text(p.value, s.unit)}")
           for i, p in enumerate(s.points, start=1)]
    banded = [(i, p.judged.band) for i, p in enumerate(s.points, start=1) if p.judged.band]
    band_name = f"band of the {drift.N_PREVIOUS} runs before (see above)"
    lines = [Line("value", pts, colour(0))]
    if banded:
        lines += [Line(band_name, [Point(i, b.hi) for i, b in banded], MUTED, markers=False, dash="5 4"),
                  Line("", [Point(i, b.lo) for i, b in banded], MUTED, markers=False, dash="5 4")]
    named: set[str] = set()
    for i, p in enumerate(s.points, start=1):
        if not p.judged.drift:
            continue
        worse = s.worse(p.judged.drift)
        name = "drift, worse" if worse else "drift, better"
        lines.append(Line("" if name in named else name,
                          [Point(i, p.value, tip=f"{p.run_id}: {drift_mark(s, p.judged.drift)}",
                                 label="▲" if p.judged.drift == "up" else "▼")],
                          WORSE if worse else BETTER))
        named.add(name)
    y = Axis(s.unit, fmt=_fmt(s.unit), zero=False, binary=s.unit == "B/s")
    return line_chart(f"{s.key.rsplit(':', 1)[-1]} ({s.unit})", lines, _x_axis(len(s.points)), y)


def _table(s: Series) -> str:
    rows = []
    for i, p in enumerate(s.points, start=1):
        band = p.judged.band
        mark = drift_mark(s, p.judged.drift)
        cls = "" if not mark else ("worse" if s.worse(p.judged.drift) else "better")
        rows.append(
            f"<tr><td class=num>{i}</td><td>{escape(p.started)}</td><td>{escape(p.run_id)}</td>"
            f"<td class=num>{escape(value_text(p.value, s.unit))}</td><td class=num>"
            + ("" if band is None else escape(f"{value_text(band.lo, s.unit)} – {value_text(band.hi, s.unit)}"))
            + f'</td><td class="{cls}">{escape(mark)}</td></tr>')
    return ("<table><thead><tr><th>#</th><th>time</th><th>run</th><th>value</th>"
            "<th>band</th><th>drift</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def to_html(series: Sequence[Series], title: str, source: str) -> str:
    """The whole page; `title` says what was asked for, `source` where the runs are."""
    rule = (f"A value is marked when it leaves median ± max({drift.K:g} × 1.4826 × MAD, "
            f"{drift.FLOOR * 100:g}% of the median) of the {drift.N_PREVIOUS} runs before it; "
            f"with fewer than {drift.MIN_PREVIOUS} runs before it, it is not judged.")
    body = [f"<h1>History: {escape(title)}</h1>",
            f'<p class="note">Runs in {escape(source)}. {escape(rule)}</p>']
    if not series:
        body.append('<p class="note">No figure in the index matches.</p>')
    for s in series:
        body += [f"<section><h2>{escape(s.key)}</h2>", trend_chart(s), _table(s), "</section>"]
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f"<title>stackprobe history: {escape(title)}</title>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{_CSS}</style></head><body><main>" + "\n".join(body) + "</main></body></html>\n")
