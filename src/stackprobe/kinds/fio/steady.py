"""Steady state for fio steps, from fio's --status-interval stream (SNIA PTS rule).

The monitor sees fio's stdout as it arrives, turns each cumulative status document into
per-interval IOPS, and — when the step asks to stop once steady — says so as soon as the
last `window` intervals meet the rule; the transport then ends fio gracefully (SIGINT), and
fio's final report covers everything it did. Otherwise the step is only marked.
"""

from __future__ import annotations

from pydantic import Field

from stackprobe.analysis.steady_state import SteadyState, first_steady, is_steady_now
from stackprobe.parsers.fio.fio_json import JsonStream, interval_series, status_totals
from stackprobe.schema.records import SeriesPoint
from stackprobe.spec.steps import StrictModel


class SteadySpec(StrictModel):
    """SNIA PTS steady state over fio's per-interval IOPS: in a window of `window` intervals,
    max - min <= `range` of the window's mean and the least-squares trend's excursion <=
    `slope` of it. stop: end the step once steady (the time saved is recorded);
    otherwise the step is only marked steady / not steady."""

    window: int = Field(default=5, ge=3, le=100)
    range: float = Field(default=0.20, gt=0, lt=1)
    slope: float = Field(default=0.10, gt=0, lt=1)
    interval: int = Field(default=1, ge=1, le=60)  # seconds between fio status reports
    stop: bool = False



class SteadyMonitor:
    def __init__(self, spec: SteadySpec):
        self.window = spec.window
        self.range_limit = spec.range
        self.slope_limit = spec.slope
        self.stop = spec.stop
        self._stream = JsonStream()
        self._totals: list[tuple[float, int, int]] = []
        self.stopped_at: SteadyState | None = None

    def __call__(self, text: str) -> bool:
        """Fed stdout; True once the step should end (only when asked to stop)."""
        new = self._stream.feed(text)
        self._totals += [status_totals(d) for d in new if "jobs" in d]
        if not new or not self.stop or self.stopped_at is not None:
            return False
        verdict = self._judge(is_steady_now)
        if verdict.steady:
            self.stopped_at = verdict
            return True
        return False

    def series(self) -> list[SeriesPoint]:
        return interval_series(self._totals)

    def verdict(self) -> SteadyState:
        """At a stop, the window that ended the step; otherwise the first steady window."""
        return self.stopped_at or self._judge(first_steady)

    def _judge(self, rule) -> SteadyState:
        points = self.series()
        return rule([p.iops or 0.0 for p in points], [p.t_s for p in points], k=self.window,
                    range_limit=self.range_limit, slope_limit=self.slope_limit)
