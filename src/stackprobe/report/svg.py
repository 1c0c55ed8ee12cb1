"""The drawing kit behind the HTML report's charts: scales, ticks, colours and an SVG canvas.

The report has to be one file that opens offline, years later, on a machine with nothing
installed: charts are therefore inline SVG strings built here, not images from a plotting
library or a script from a CDN. Everything a chart shows comes through `esc`, so a step
title or host name is always text, never markup. Hover details are SVG <title> elements,
which browsers show as tooltips without any JavaScript.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape

# Colour-blind-safe series colours, in the order lines and bars take them.
PALETTE = ("#0a64a4", "#e07b00", "#12906f", "#c43b2f", "#8d5aa6", "#4aa3d9", "#8a6d1f",
           "#5a5a5a")
INK = "#222"
GRID = "#e3e3e3"
MUTED = "#6b6b6b"


def esc(text: object) -> str:
    """Text as it may stand inside an SVG element or attribute."""
    return escape(str(text), quote=True)


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def num(v: float) -> str:
    """A coordinate, short: '12.5', '300'."""
    return f"{v:.1f}".rstrip("0").rstrip(".") if math.isfinite(v) else "0"


# -- scales -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Scale:
    """Maps data values in [lo, hi] to pixels in [px_lo, px_hi]; log scales map log10."""

    lo: float
    hi: float
    px_lo: float
    px_hi: float
    log: bool = False

    def __call__(self, v: float) -> float:
        a, b, x = self.lo, self.hi, v
        if self.log:
            a, b, x = math.log10(a), math.log10(b), math.log10(max(v, self.lo))
        frac = 0.5 if b == a else (x - a) / (b - a)
        return self.px_lo + frac * (self.px_hi - self.px_lo)


def domain(values: Iterable[float], *, log: bool = False, zero: bool = True,
           binary: bool = False) -> tuple[float, float]:
    """A range holding all values, safe to draw: never empty, never zero-width, positive
    on a log scale (non-positive values are left out there); from zero when asked and
    the values are not all negative; ends on round binary units (MiB, GiB) when binary."""
    vals = [v for v in values if v is not None and math.isfinite(v) and (v > 0 or not log)]
    if not vals:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = min(vals), max(vals)
    if log:
        if hi / lo < 10:  # at least one decade, around the data
            mid = math.sqrt(hi * lo)
            lo, hi = min(lo, mid / math.sqrt(10)), max(hi, mid * math.sqrt(10))
        return 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
    if zero and lo >= 0:
        lo = 0.0
    if hi == lo:
        pad = abs(hi) * 0.1 or 1.0
        lo, hi = (lo if zero and lo == 0 else lo - pad), hi + pad
    base = unit_base(max(abs(lo), abs(hi)), binary)
    step = nice_step((hi - lo) / base / 5) * base
    return math.floor(lo / step) * step, math.ceil(hi / step) * step


def unit_base(magnitude: float, binary: bool) -> float:
    """1, or the power of 1024 a binary-unit label of this magnitude is written in."""
    if not binary or magnitude < 1024:
        return 1.0
    return 1024.0 ** min(int(math.log(magnitude, 1024)), 4)


def nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least `raw`."""
    if raw <= 0 or not math.isfinite(raw):
        return 1.0
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw * 0.999:
            return m * power
    return 10 * power


def linear_ticks(lo: float, hi: float, count: int = 5, binary: bool = False) -> list[float]:
    base = unit_base(max(abs(lo), abs(hi)), binary)
    step = nice_step((hi - lo) / base / max(count, 1)) * base
    first = math.ceil(lo / step - 1e-9) * step
    ticks, v = [], first
    while v <= hi + step * 1e-6 and len(ticks) < 50:
        ticks.append(0.0 if abs(v) < step * 1e-9 else v)
        v += step
    return ticks


def log_ticks(lo: float, hi: float) -> list[float]:
    """Every decade; with 1-2-5 steps between when the range spans three decades or less."""
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mults = (1, 2, 5) if last - first <= 3 else (1,)
    ticks = [m * 10.0 ** e for e in range(first, last + 1) for m in mults]
    return [t for t in ticks if lo * 0.999 <= t <= hi * 1.001]


def nines(pct: float) -> float:
    """Position of a percentile on a 'nines' axis: p90 -> 1, p99 -> 2, p99.9 -> 3."""
    return -math.log10(max(1.0 - pct / 100.0, 1e-9))


# -- colour ramps -----------------------------------------------------------------------

_LOW, _MID, _HIGH = (0xc4, 0x3b, 0x2f), (0xf4, 0xf1, 0xea), (0x1f, 0x6f, 0xb4)


def diverging(t: float) -> str:
    """t in [-1, 1]: red (worse) through pale (as expected) to blue (better)."""
    t = max(-1.0, min(1.0, t))
    a, b = (_MID, _HIGH) if t >= 0 else (_MID, _LOW)
    rgb = [round(x + (y - x) * abs(t)) for x, y in zip(a, b)]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def text_on(fill: str) -> str:
    """Dark or white text, whichever reads on the fill."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#fff"


# -- canvas -----------------------------------------------------------------------------

@dataclass
class Canvas:
    """SVG elements collected in drawing order; `svg()` wraps them with a title."""

    width: float
    height: float
    title: str
    parts: list[str] = field(default_factory=list)

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = INK,
             width: float = 1, dash: str | None = None, cls: str | None = None) -> None:
        extra = (f' stroke-dasharray="{dash}"' if dash else "") + (f' class="{cls}"' if cls else "")
        self.parts.append(f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" '
                          f'stroke="{stroke}" stroke-width="{width}"{extra}/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str, tip: str | None = None,
             stroke: str | None = None, stroke_width: float = 1, cls: str | None = None) -> None:
        border = f' stroke="{stroke}" stroke-width="{stroke_width}"' if stroke else ""
        klass = f' class="{cls}"' if cls else ""
        body = f"<title>{esc(tip)}</title>" if tip else ""
        self.parts.append(f'<rect x="{num(x)}" y="{num(y)}" width="{num(max(w, 0))}" '
                          f'height="{num(max(h, 0))}" fill="{fill}"{border}{klass}>{body}</rect>')

    def circle(self, x: float, y: float, r: float, fill: str, tip: str | None = None,
               stroke: str | None = None) -> None:
        border = f' stroke="{stroke}" stroke-width="1.5"' if stroke else ""
        body = f"<title>{esc(tip)}</title>" if tip else ""
        self.parts.append(f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(r)}" fill="{fill}"'
                          f"{border}>{body}</circle>")

    def path(self, points: Sequence[tuple[float, float]], stroke: str, width: float = 2,
             dash: str | None = None, tip: str | None = None) -> None:
        if not points:
            return
        d = "M" + " L".join(f"{num(x)} {num(y)}" for x, y in points)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        body = f"<title>{esc(tip)}</title>" if tip else ""
        self.parts.append(f'<path d="{d}" fill="none" stroke="{stroke}" stroke-width="{width}" '
                          f'stroke-linejoin="round"{extra}>{body}</path>')

    def text(self, x: float, y: float, text: str, anchor: str = "start", size: float = 11,
             fill: str = INK, bold: bool = False, rotate: bool = False, tip: str | None = None) -> None:
        weight = ' font-weight="600"' if bold else ""
        turn = f' transform="rotate(-90 {num(x)} {num(y)})"' if rotate else ""
        body = esc(text) + (f"<title>{esc(tip)}</title>" if tip else "")
        self.parts.append(f'<text x="{num(x)}" y="{num(y)}" text-anchor="{anchor}" '
                          f'font-size="{size}" fill="{fill}"{weight}{turn}>{body}</text>')

    def svg(self) -> str:
        return (f'<svg class="chart" role="img" '
                f'viewBox="0 0 {num(self.width)} {num(self.height)}" '
                f'width="{num(self.width)}" height="{num(self.height)}" aria-label="{esc(self.title)}">'
                f"<title>{esc(self.title)}</title>" + "".join(self.parts) + "</svg>")


_TRAILING_ZEROS = re.compile(r"(\d)\.0+(?!\d)|(\.\d*?[1-9])0+(?!\d)")


def tidy(label: str) -> str:
    """A tick label without zeros that say nothing: '10.0 ms' -> '10 ms', '2.50k' -> '2.5k'."""
    return _TRAILING_ZEROS.sub(lambda m: m.group(1) or m.group(2), label)


def shorten(text: str, limit: int) -> str:
    """A label that fits: cut with an ellipsis (the full text goes in the tooltip)."""
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"
