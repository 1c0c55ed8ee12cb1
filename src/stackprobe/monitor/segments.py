"""One host of a segmented monitor (a step of hours): each segment folded as sadc's reader
hands it over, its raw output appended compressed.

The segment's sadf JSON goes into `monitor-<host>.sadf.json.gz` as one more gzip member, so
the file stays one file (`zcat` prints the segments' documents one after the other) at a
tenth of the text's size; its samples go through the summary fold and the bounded keeper
(stream_fold.py) and are then dropped. What the step keeps of a day is a few MB.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

from stackprobe.monitor.stream_fold import SampleKeeper, SummaryFold
from stackprobe.parsers.host.sadf_json import MonitorSeries


class HostFold:
    def __init__(self, host: str, raw_path: Path, keep_s: float | None = None):
        self.host = host
        self.raw_path = raw_path
        self.fold = SummaryFold()
        self.keeper = SampleKeeper() if keep_s is None else SampleKeeper(keep_s=keep_s)
        self.interval_s: float | None = None
        self.ncpu: int | None = None
        self._last_t: float | None = None

    def add(self, series: MonitorSeries, raw_json: str) -> None:
        """One segment: its raw output kept, its new seconds folded."""
        self.raw_path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(self.raw_path, "ab") as f:
            f.write(raw_json.encode("utf-8"))
        self.take(series)

    def take(self, series: MonitorSeries) -> None:
        """The series' seconds folded (a second two segments both read counted once)."""
        self.interval_s = self.interval_s or series.interval_s
        self.ncpu = self.ncpu or series.ncpu
        for sample in series.samples:
            if self._last_t is not None and sample.t <= self._last_t:
                continue
            self._last_t = sample.t
            self.fold.add(sample)
            self.keeper.add(sample)

    def series(self) -> MonitorSeries:
        """What the report draws: the bounded samples."""
        return MonitorSeries(host=self.host, interval_s=self.interval_s, ncpu=self.ncpu,
                             samples=self.keeper.samples())

    def summary(self, link_speeds_mbps: dict[str, float] | None) -> dict[str, Any]:
        return self.fold.result(self.host, self.ncpu, link_speeds_mbps)
