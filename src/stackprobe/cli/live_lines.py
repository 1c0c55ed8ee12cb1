"""The words of the live display (docs/live.md): one interval's figures as one line, how
often a log gets one, and what a step that gives no figures shows instead.

Kept apart from the display itself (cli/progress.py) so they are plain functions of their
inputs: the tests feed them recorded intervals and times.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.analysis.live_figures import LiveFigures
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns, fmt_seconds

PLAIN_EVERY_S = 10.0  # not a terminal: at most one line per host this often
_JITTER = 0.25  # of an interval: how early an interval may end and still count as due


def live_text(figures: Sequence[LiveFigures]) -> str:
    """'n01: 12-13 s  read 2.00k IOPS 7.81 MiB/s mean 68.0 µs p99 120 µs | write ...'."""
    first = figures[0]
    head = f"{first.host}: " if first.host else ""
    span = f"{_t(first.start_s)}-{_t(first.end_s)} s"
    return f"{head}{span}  " + " | ".join(_direction(f) for f in figures)


def _t(s: float) -> str:
    """Whole seconds as such ('12'), others with a tenth ('3.2': fio's last, short interval)."""
    return f"{s:.0f}" if abs(s - round(s)) < 0.05 else f"{s:.1f}"


def _direction(f: LiveFigures) -> str:
    bits = [] if f.direction == "all" else [f.direction]
    if f.iops is not None or f.bw_bytes is None:  # a NIC's counter gives bytes alone
        bits.append(f"{fmt_iops(f.iops)} IOPS")
    bits.append(fmt_bw(f.bw_bytes))
    if f.lat_mean_ns is not None:
        bits.append(f"mean {fmt_ns(f.lat_mean_ns)}")
    if f.p99_ns is not None:
        bits.append(f"p99 {fmt_ns(f.p99_ns)}")
    return " ".join(bits)


def elapsed_text(elapsed_s: float, estimate_s: float) -> str:
    """What a step without live figures shows: its time so far against the plan's estimate."""
    left = estimate_s - elapsed_s
    if left >= 1:
        return f"{fmt_seconds(elapsed_s)} elapsed, about {fmt_seconds(left)} left"
    return f"{fmt_seconds(elapsed_s)} elapsed, past the estimate of {fmt_seconds(estimate_s)}"


class Throttle:
    """Which intervals a log prints: one per host every PLAIN_EVERY_S seconds of the tool's
    own time, so a 2-hour soak logs 720 lines, not 7,200; every interval when intervals
    are that long themselves. A tool that starts again (rados bench's next mode, a
    repetition) has its first interval printed."""

    def __init__(self, every_s: float = PLAIN_EVERY_S):
        self.every_s = every_s
        self._printed: dict[str | None, float] = {}  # host -> end of its last printed interval
        self._seen: dict[str | None, float] = {}  # host -> end of its last interval

    def reset(self) -> None:
        self._printed.clear()
        self._seen.clear()

    def due(self, figures: Sequence[LiveFigures]) -> bool:
        f = figures[0]
        printed, seen = self._printed.get(f.host), self._seen.get(f.host)
        self._seen[f.host] = f.end_s
        restarted = seen is not None and f.end_s < seen
        slack = _JITTER * max(0.0, f.end_s - f.start_s)
        if printed is not None and not restarted and f.end_s < printed + self.every_s - slack:
            return False
        self._printed[f.host] = f.end_s
        return True
