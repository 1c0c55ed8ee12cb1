"""The three chart shapes of the HTML report, drawn with report/svg.py's kit.

- horizontal bars: one figure per test, the way a reader compares workloads at a glance;
- x/y lines: curves (IOPS against latency, latency against percentile) and time series,
  with log axes, fixed domains (panels that must share a time axis) and reference lines
  (a latency limit);
- heatmaps: hosts against hosts or metrics, a cell's colour saying how far it is from what
  was expected;
- bar pairs: per item a reference (muted) and a measured value (strong), each item on its
  own scale and in its own unit (the ladder: a ceiling and what was measured).

They take plain values and return SVG text; what the values mean is the caller's business
(report/html_figures.py, report/html_timeline.py). Empty data gives a chart that says so.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from stackprobe.report.svg import (
    GRID,
    INK,
    MUTED,
    Canvas,
    Scale,
    colour,
    domain,
    linear_ticks,
    log_ticks,
    shorten,
    text_on,
    tidy,
)

Fmt = Callable[[float], str]
CHAR_PX = 6.2  # average width of an 11px sans-serif character, for layout


@dataclass
class Axis:
    label: str
    fmt: Fmt = lambda v: f"{v:g}"
    log: bool = False
    lo: float | None = None  # a fixed domain (panels aligned in time), else from the data
    hi: float | None = None
    ticks: list[tuple[float, str]] | None = None  # fixed ticks (the 'nines' axis)
    zero: bool = True  # a linear domain computed from data starts at zero
    binary: bool = False  # bytes: ticks on round KiB/MiB/GiB


@dataclass
class Point:
    x: float
    y: float
    tip: str = ""
    label: str = ""  # drawn beside the marker
    hollow: bool = False


@dataclass
class Line:
    name: str
    points: list[Point]
    colour: str | None = None
    markers: bool = True
    dash: str | None = None


@dataclass
class RefLine:
    """A horizontal reference line, e.g. a latency limit."""

    y: float
    label: str
    colour: str = "#c43b2f"


@dataclass
class Bar:
    label: str
    value: float
    tip: str = ""
    err_lo: float | None = None  # a confidence interval drawn as a whisker
    err_hi: float | None = None


@dataclass
class HeatCell:
    text: str
    fill: str
    tip: str = ""
    flagged: bool = False


@dataclass
class BarPair:
    """One item of a bar-pair chart: its figures come formatted, since every item has its
    own unit and scale."""

    label: str
    value: float  # drawn strong
    value_text: str
    ref: float | None  # drawn muted; None: no reference, the value alone
    ref_text: str
    share: str = ""  # written large beside the pair, e.g. '34%'
    note: str = ""  # written under the share, e.g. the layer named as the bottleneck
    tip: str = ""
    over: bool = False  # the value is above the reference: drawn in the warning colour


REF_FILL = "#c9d6e3"
OVER_FILL = "#c43b2f"


@dataclass
class _Frame:
    """The plot area inside a canvas."""

    left: float
    top: float
    right: float
    bottom: float
    legend: list[tuple[str, str]] = field(default_factory=list)


def empty_chart(title: str, width: float = 720, message: str = "no data") -> str:
    c = Canvas(width, 70, title)
    c.text(8, 18, title, bold=True, size=12)
    c.text(width / 2, 48, message, anchor="middle", fill=MUTED)
    return c.svg()


def hbar_chart(title: str, bars: Sequence[Bar], fmt: Fmt, width: float = 720,
               binary: bool = False) -> str:
    """One bar per item, longest label on the left, value at the bar's end. A whisker
    reaching past twice the largest bar (a CI from two runs) is cut there, its end left open."""
    bars = [b for b in bars if b.value is not None and b.value >= 0]
    if not bars:
        return empty_chart(title, width)
    label_px = min(width * 0.45, max(len(b.label) for b in bars) * CHAR_PX + 12)
    row, top = 22, 30
    c = Canvas(width, top + row * len(bars) + 30, title)
    c.text(8, 18, title, bold=True, size=12)
    top_value = max(b.value for b in bars)
    hi = max(top_value, min(max(b.err_hi or 0 for b in bars), 2 * top_value))
    lo_hi = domain([hi], zero=True, binary=binary)
    x = Scale(0, lo_hi[1], label_px, width - 70)
    bottom = top + row * len(bars)
    for t in linear_ticks(0, lo_hi[1], 4, binary):
        c.line(x(t), top - 4, x(t), bottom, stroke=GRID)
        c.text(x(t), bottom + 14, "0" if t == 0 else tidy(fmt(t)), anchor="middle", size=10, fill=MUTED)
    for i, b in enumerate(bars):
        y = top + i * row
        c.text(label_px - 8, y + 15, shorten(b.label, int((label_px - 12) / CHAR_PX)),
               anchor="end", tip=b.label)
        c.rect(x(0), y + 4, x(b.value) - x(0), row - 8, colour(0), tip=b.tip or b.label)
        if b.err_lo is not None and b.err_hi is not None:
            cut = b.err_hi > x.hi
            lo_px, hi_px = x(max(b.err_lo, 0)), x(min(b.err_hi, x.hi))
            c.line(lo_px, y + row / 2, hi_px, y + row / 2, stroke=INK, width=1.2,
                   dash="3 2" if cut else None)
            for end in (lo_px,) if cut else (lo_px, hi_px):
                c.line(end, y + 7, end, y + row - 7, stroke=INK, width=1.2)
        end = max(x(b.value), x(min(b.err_hi, x.hi)) if b.err_hi is not None else 0)
        c.text(min(end + 4, width - 66), y + 15, fmt(b.value), size=10)
    c.line(x(0), top - 4, x(0), bottom, stroke=INK)
    return c.svg()


def line_chart(title: str, lines: Sequence[Line], x: Axis, y: Axis,
               refs: Sequence[RefLine] = (), width: float = 720, height: float = 280) -> str:
    """Lines with markers over two axes; a single point is drawn as a marker."""
    points = [p for ln in lines for p in ln.points]
    if not points:
        return empty_chart(title, width)
    legend = [(ln.name, ln.colour or colour(i)) for i, ln in enumerate(lines) if ln.name]
    legend_rows = _legend_rows(legend, width - 80)
    frame = _Frame(left=74, top=30, right=width - 18, bottom=height - 40 - 16 * len(legend_rows))
    c = Canvas(width, height, title)
    c.text(8, 18, title, bold=True, size=12)
    xs = _scale(x, [p.x for p in points], frame.left, frame.right)
    ys = _scale(y, [p.y for p in points] + [r.y for r in refs], frame.bottom, frame.top)
    _axes(c, frame, x, xs, y, ys)
    for r in refs:
        if ys.lo <= r.y <= ys.hi:
            c.line(frame.left, ys(r.y), frame.right, ys(r.y), stroke=r.colour, width=1.5, dash="6 4")
            # at the left end: curves rise to the right, so that end is the free one
            c.text(frame.left + 4, ys(r.y) - 4, r.label, size=10, fill=r.colour)
    for i, ln in enumerate(lines):
        stroke = ln.colour or colour(i)
        drawn = [p for p in ln.points if _inside(p, xs, ys)]
        at = [(xs(p.x), min(max(ys(p.y), frame.top), frame.bottom)) for p in drawn]
        c.path(at, stroke, dash=ln.dash, tip=ln.name or None)
        for p, (px, py) in zip(drawn, at):
            if ln.markers or len(drawn) == 1:
                c.circle(px, py, 3.5, "#fff" if p.hollow else stroke, tip=p.tip or None, stroke=stroke)
            if p.label:  # beside the marker, on its left near the right edge
                left = px + 6 + len(p.label) * 5.2 > frame.right
                c.text(px - 6 if left else px + 6, py - 6, p.label, size=9, fill=MUTED,
                       anchor="end" if left else "start")
    _legend(c, legend_rows, frame.bottom + 36)
    return c.svg()


def heatmap(title: str, rows: Sequence[str], cols: Sequence[str],
            cells: dict[tuple[str, str], HeatCell], note: str = "", width: float = 720) -> str:
    """rows x cols coloured cells; flagged cells get a heavy border; missing cells are grey."""
    if not rows or not cols:
        return empty_chart(title, width)
    label_px = min(180.0, max(len(r) for r in rows) * CHAR_PX + 16)
    widest = max(len(col) for col in cols) * CHAR_PX + 12
    cell_w = max(56.0, min(180.0, widest, (width - label_px - 10) / len(cols)))
    cell_h, top = 30, 48
    height = top + cell_h * len(rows) + (34 if note else 14)
    used = max(label_px + cell_w * len(cols) + 10, (len(title) * 7.2 + 16), len(note) * 5.6 + 16)
    c = Canvas(used, height, title)
    c.text(8, 18, title, bold=True, size=12)
    for j, col in enumerate(cols):
        c.text(label_px + (j + 0.5) * cell_w, top - 8, shorten(col, int((cell_w - 4) / 5.8)),
               anchor="middle", size=10, tip=col)
    for i, row in enumerate(rows):
        y = top + i * cell_h
        c.text(label_px - 8, y + cell_h / 2 + 4, shorten(row, int((label_px - 12) / CHAR_PX)),
               anchor="end", tip=row)
        for j, col in enumerate(cols):
            x = label_px + j * cell_w
            cell = cells.get((row, col)) or HeatCell("—", "#eeeeee")
            c.rect(x + 1, y + 1, cell_w - 2, cell_h - 2, cell.fill, tip=cell.tip or None,
                   stroke=INK if cell.flagged else None, stroke_width=2.5)
            text = ("⚠ " if cell.flagged else "") + cell.text
            c.text(x + cell_w / 2, y + cell_h / 2 + 4, shorten(text, int(cell_w / 6.6)),
                   anchor="middle", size=10, fill=_text_colour(cell.fill), bold=cell.flagged,
                   tip=cell.tip or None)
    if note:
        c.text(8, height - 12, note, size=10, fill=MUTED)
    return c.svg()


def bar_pairs(title: str, pairs: Sequence[BarPair], ref_name: str = "reference",
              value_name: str = "value", width: float = 860) -> str:
    """Per item: its label, a muted bar for the reference and a strong one for the value,
    both scaled to the larger of the two (items are not compared with each other), a dashed
    mark where the reference ends, and the share and note on the right. Each pair is a
    <g class="bar-pair">; the bars are rects of class bar-ref and bar-value."""
    pairs = [p for p in pairs if p.value is not None and p.value >= 0]
    if not pairs:
        return empty_chart(title, width)
    top, row, bar_h = 30, 64, 13
    bar_x, bar_w = 80.0, width * 0.46
    side_x = bar_x + bar_w + 118
    side_chars = max(int((width - side_x - 8) / CHAR_PX), 12)
    c = Canvas(width, top + row * len(pairs) + 28, title)
    c.text(8, 18, title, bold=True, size=12)
    for i, p in enumerate(pairs):
        y = top + i * row
        c.parts.append('<g class="bar-pair">')
        c.text(8, y + 12, shorten(p.label, int((side_x - 16) / CHAR_PX)), bold=True, tip=p.label)
        hi = max(p.value, p.ref or 0.0) or 1.0
        x = Scale(0, hi, bar_x, bar_x + bar_w)
        tip = p.tip or p.label
        for j, (name, value, text, fill, cls) in enumerate((
                (ref_name, p.ref, p.ref_text, REF_FILL, "bar-ref"),
                (value_name, p.value, p.value_text, OVER_FILL if p.over else colour(0), "bar-value"))):
            by = y + 19 + j * (bar_h + 4)
            c.text(bar_x - 6, by + 10, name, anchor="end", size=10, fill=MUTED)
            if value is None:
                c.text(bar_x + 2, by + 10, text, size=10, fill=MUTED, tip=tip)
                continue
            c.rect(bar_x, by, x(value) - bar_x, bar_h, fill, tip=f"{tip}: {name} {text}", cls=cls)
            c.text(x(value) + 4, by + 10, text, size=10, bold=j == 1)
        if p.ref is not None:
            c.line(x(p.ref), y + 16, x(p.ref), y + 19 + 2 * bar_h + 7, stroke=INK, width=1, dash="3 2")
        if p.share:
            c.text(side_x, y + 34, p.share, size=16, bold=True, fill=OVER_FILL if p.over else INK)
        lines = textwrap.wrap(p.note, side_chars)
        for k, line in enumerate(lines[:2]):
            more = k == 1 and len(lines) > 2
            c.text(side_x + (0 if not p.share else 52), y + 28 + k * 13,
                   shorten(line + (" …" if more else ""), side_chars), size=10, tip=p.note)
        c.parts.append("</g>")
    legend_y = top + row * len(pairs) + 12
    lx = bar_x
    for name, fill in ((ref_name, REF_FILL), (value_name, colour(0))):
        c.rect(lx, legend_y - 9, 14, 10, fill)
        c.text(lx + 18, legend_y, name, size=10)
        lx += 18 + len(name) * CHAR_PX + 24
    return c.svg()


def _inside(p: Point, xs: Scale, ys: Scale) -> bool:
    """Drawable: on the x domain (fixed domains cut the rest off), positive on log axes;
    y beyond a fixed domain is pinned to its edge by the caller."""
    if (xs.log and p.x <= 0) or (ys.log and p.y <= 0):
        return False
    span = (xs.hi - xs.lo) * 1e-9
    return xs.lo - span <= p.x <= xs.hi + span


def _text_colour(fill: str) -> str:
    return text_on(fill) if fill.startswith("#") and len(fill) == 7 else INK


def _scale(axis: Axis, values: list[float], px_lo: float, px_hi: float) -> Scale:
    lo, hi = domain(values, log=axis.log, zero=axis.zero, binary=axis.binary)
    if axis.ticks:
        tick_values = [t for t, _ in axis.ticks]
        lo, hi = min([lo, *tick_values]), max([hi, *tick_values])
    lo = axis.lo if axis.lo is not None else lo
    hi = axis.hi if axis.hi is not None else hi
    if hi <= lo:
        hi = lo + 1
    return Scale(lo, hi, px_lo, px_hi, log=axis.log)


def _ticks(axis: Axis, scale: Scale, count: int) -> list[tuple[float, str]]:
    if axis.ticks:
        return [(v, t) for v, t in axis.ticks if scale.lo <= v <= scale.hi]
    values = (log_ticks(scale.lo, scale.hi) if axis.log
              else linear_ticks(scale.lo, scale.hi, count, axis.binary))
    return [(v, "0" if v == 0 else tidy(axis.fmt(v))) for v in values]


def _axes(c: Canvas, f: _Frame, x: Axis, xs: Scale, y: Axis, ys: Scale) -> None:
    for v, text in _ticks(y, ys, 4):
        c.line(f.left, ys(v), f.right, ys(v), stroke=GRID)
        c.text(f.left - 6, ys(v) + 4, text, anchor="end", size=10, fill=MUTED)
    for v, text in _ticks(x, xs, 6):
        c.line(xs(v), f.top, xs(v), f.bottom, stroke=GRID)
        c.text(xs(v), f.bottom + 14, text, anchor="middle", size=10, fill=MUTED)
    c.line(f.left, f.bottom, f.right, f.bottom, stroke=INK)
    c.line(f.left, f.top, f.left, f.bottom, stroke=INK)
    c.text(f.right, f.bottom + 28, x.label, anchor="end", size=10, fill=INK)
    c.text(14, (f.top + f.bottom) / 2, y.label, anchor="middle", size=10, fill=INK, rotate=True)


def _legend_rows(items: list[tuple[str, str]], room: float) -> list[list[tuple[str, str]]]:
    rows: list[list[tuple[str, str]]] = []
    used = room + 1
    for name, stroke in items:
        need = 22 + min(len(name), 48) * CHAR_PX + 14
        if used + need > room:
            rows.append([])
            used = 0
        rows[-1].append((name, stroke))
        used += need
    return rows


def _legend(c: Canvas, rows: list[list[tuple[str, str]]], top: float) -> None:
    for r, items in enumerate(rows):
        x, y = 74.0, top + r * 16
        for name, stroke in items:
            c.line(x, y - 4, x + 16, y - 4, stroke=stroke, width=3)
            c.text(x + 20, y, shorten(name, 48), size=10, tip=name)
            x += 22 + min(len(name), 48) * CHAR_PX + 14
