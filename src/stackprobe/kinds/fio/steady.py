"""Steady state for fio steps, from fio's --status-interval stream (SNIA PTS rule).

The monitor sees fio's stdout as it arrives, turns each cumulative status document into
per-interval IOPS, and — when the step asks to stop once steady — says so once the level
has held long enough to be the steady state rather than a burst (`ready_to_stop`: the
SNIA window met by every window since the level began, for two windows and for half of the
run so far); the transport then ends fio gracefully (SIGINT), and fio's final report covers
everything it did. The plain SNIA test on the last window alone would end a run five seconds
into any flat burst (burst credits, a write-back cache) and report the burst's rate.
Otherwise the step is only marked, with the level the run ended at (`held_level`).
"""

from __future__ import annotations

from pydantic import Field

from stackprobe.analysis.steady_state import SteadyState, held_level, ready_to_stop
from stackprobe.parsers.fio.fio_json import JsonStream, interval_series, status_totals
from stackprobe.schema.records import SeriesPoint
from stackprobe.spec.steps import StrictModel


class SteadySpec(StrictModel):
    """SNIA PTS steady state over fio's per-interval IOPS: in a window of `window` intervals,
    max - min <= `range` of the window's mean and the least-squares trend's excursion <=
    `slope` of it. stop: end the step once the level has held for two windows and half of
    the run so far (the time saved is recorded); otherwise the step is only marked steady /
    not steady."""

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
        self.interval_s = spec.interval
        self._stream = JsonStream()
        self._totals: list[tuple[float, int, int]] = []
        self.stopped_at: SteadyState | None = None

    def __call__(self, text: str) -> bool:
        """Fed stdout; True once the step should end (only when asked to stop)."""
        new = self._stream.feed(text)
        self._totals += [status_totals(d) for d in new if "jobs" in d]
        if not new or not self.stop or self.stopped_at is not None:
            return False
        verdict = self._judge(ready_to_stop)
        if verdict.steady:
            self.stopped_at = verdict
            return True
        return False

    def series(self) -> list[SeriesPoint]:
        return interval_series(self._totals)

    def verdict(self) -> SteadyState:
        """At a stop, the span that ended the step; otherwise the level the run ended at."""
        return self.stopped_at or self._judge(held_level)

    def _judge(self, rule) -> SteadyState:
        points = self.series()
        if len(points) >= 2 and points[-1].t_s - points[-2].t_s < self.interval_s / 2:
            # fio's final report, a fraction of an interval after the last status document:
            # too short a sample to judge (a throttled device delivers in slices), kept on
            # the record but not in the verdict
            points = points[:-1]
        return rule([p.iops or 0.0 for p in points], [p.t_s for p in points], k=self.window,
                    range_limit=self.range_limit, slope_limit=self.slope_limit)
