"""Steady state for fio steps, from fio's --status-interval stream (SNIA PTS rule).

The monitor sees fio's stdout as it arrives, turns each cumulative status document into
per-interval IOPS, and — when the step asks to stop once steady — says so as soon as the
last `window` intervals meet the rule; the transport then ends fio gracefully (SIGINT), and
fio's final report covers everything it did. Otherwise the step is only marked.
"""

from __future__ import annotations

from typing import Any

from stackprobe.analysis.steady_state import SteadyState, first_steady, is_steady_now
from stackprobe.parsers.fio.fio_json import JsonStream, interval_series, status_totals
from stackprobe.schema.records import SeriesPoint


class SteadyMonitor:
    def __init__(self, spec: dict[str, Any]):
        self.window = int(spec.get("window", 5))
        self.range_limit = float(spec.get("range", 0.20))
        self.slope_limit = float(spec.get("slope", 0.10))
        self.stop = bool(spec.get("stop", False))
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
