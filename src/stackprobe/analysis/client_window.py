"""All clients' figures over the window in which every client was running.

Clients started "together" still start a little apart, and each runs a little longer or
shorter. Summing each client's own average would count a client's lonely seconds (when the
others had not started yet, or had finished) as if all were loading the cluster at once,
and overstate what the cluster sustains under the full load. So the all-clients figure is
taken from the tools' own per-second reports (rados bench, rbd bench, fio's logs), placed
on one clock by each client's start time, over [the last start, the first end]:

- a client's interval (t - dt, t] counts when its middle lies inside the window;
- each client's rate is its I/O in the counted intervals over their length, and the
  all-clients rate is the sum of the clients' rates;
- the mean latency is weighted by I/O (each interval's mean latency times its I/O count);
- the start skew is the spread of the start times: the last start minus the first.

Start times come from each host's clock; on one machine (the lab) they share one, on a
cluster they differ by the hosts' clock offsets (NTP keeps them within milliseconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stackprobe.schema.records import SeriesPoint

SKEW_GOAL_S = 1.0  # clients further apart than this did not start together


@dataclass(frozen=True)
class ClientRun:
    host: str
    start: float  # epoch seconds on the host's clock: when its tool started
    series: list[SeriesPoint]  # t_s: seconds since `start`, end of each interval

    @property
    def end(self) -> float:
        return self.start + (self.series[-1].t_s if self.series else 0.0)


@dataclass(frozen=True)
class Window:
    start: float
    end: float
    skew_s: float  # last start - first start

    @property
    def seconds(self) -> float:
        return max(0.0, self.end - self.start)


@dataclass(frozen=True)
class WindowFigures:
    iops: float
    bw_bytes: float
    lat_mean_ns: float | None
    seconds: float  # the window's length
    ios: float  # I/O counted in it, all clients


def start_skew(starts: Sequence[float]) -> float:
    return max(starts) - min(starts) if starts else 0.0


def common_window(runs: Sequence[ClientRun]) -> Window | None:
    """[last start, first end] of clients that reported per-second figures, or None when
    some client has none or they never all ran at once."""
    if not runs or any(not r.series for r in runs):
        return None
    w = Window(max(r.start for r in runs), min(r.end for r in runs),
               start_skew([r.start for r in runs]))
    return w if w.seconds > 0 else None


def _intervals(run: ClientRun):
    """(absolute middle, length, point) of each interval of a client's series."""
    previous = 0.0
    for p in run.series:
        dt = p.t_s - previous
        if dt > 0:
            yield run.start + previous + dt / 2, dt, p
        previous = p.t_s


def window_figures(runs: Sequence[ClientRun], window: Window) -> WindowFigures | None:
    """The all-clients rates and I/O-weighted mean latency over `window`; None when a
    client has no interval in it (its figures would be missing from the sum)."""
    iops = bw = ios_total = 0.0
    lat_sum = lat_ios = 0.0
    lat_known = True
    for run in runs:
        counted = [(dt, p) for mid, dt, p in _intervals(run) if window.start <= mid <= window.end]
        seconds = sum(dt for dt, _ in counted)
        if seconds <= 0:
            return None
        ios = sum((p.iops or 0.0) * dt for dt, p in counted)
        iops += ios / seconds
        bw += sum((p.bw_bytes or 0.0) * dt for dt, p in counted) / seconds
        ios_total += ios
        for dt, p in counted:
            n = (p.iops or 0.0) * dt
            if n <= 0:
                continue
            if p.lat_mean_ns is None:
                lat_known = False
            else:
                lat_sum += p.lat_mean_ns * n
                lat_ios += n
    lat = lat_sum / lat_ios if lat_known and lat_ios > 0 else None
    return WindowFigures(iops, bw, lat, window.seconds, ios_total)
