"""Drift in a figure's history: has the latest run left the band the runs before it set?

A figure measured run after run scatters; a gate against one baseline run mistakes that
scatter for change, or needs a threshold wide enough to hide a real one. The band here is
set by the runs themselves, robustly, so one odd run neither widens it much nor moves it:

    band = median(previous) ± max(K · 1.4826 · MAD(previous), FLOOR · |median(previous)|)

over the previous N_PREVIOUS runs (fewer at the start, but at least MIN_PREVIOUS: with
two runs there is no spread to speak of, so nothing is judged). 1.4826 · MAD estimates the
standard deviation of normal scatter, so K = 3 is the usual "three sigma" and leaves
ordinary noise unmarked. The floor keeps a band when the previous runs agree exactly
(MAD = 0): a figure that read 1000 five times is not drifting at 1001.

After a step change the next runs are marked too, until most of the window has the new
level (the median moves once more than half the previous runs are new): a lasting shift
shows as a short run of marks, a one-off spike as a single mark.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

N_PREVIOUS = 5  # runs the band is taken from
K = 3.0  # band half-width in scaled MADs
MAD_SCALE = 1.4826  # MAD of normal data x 1.4826 = its standard deviation
FLOOR = 0.02  # smallest half-width, as a fraction of the median (2%)
MIN_PREVIOUS = 3  # fewer previous runs: no judgement


@dataclass(frozen=True)
class Band:
    median: float
    half_width: float
    runs: int  # previous runs it was taken from

    @property
    def lo(self) -> float:
        return self.median - self.half_width

    @property
    def hi(self) -> float:
        return self.median + self.half_width


@dataclass(frozen=True)
class Judged:
    """One value of a history: the band of the runs before it (None: too few) and whether
    it left that band, 'up' or 'down' ('' when it did not or could not be judged)."""

    value: float
    band: Band | None
    drift: str = ""


def band_of(previous: Sequence[float], k: float = K, floor: float = FLOOR) -> Band | None:
    """The band the values in `previous` set; None when there are fewer than MIN_PREVIOUS."""
    if len(previous) < MIN_PREVIOUS:
        return None
    median = statistics.median(previous)
    mad = statistics.median(abs(v - median) for v in previous)
    return Band(median, max(k * MAD_SCALE * mad, floor * abs(median)), len(previous))


def judge(values: Sequence[float], n: int = N_PREVIOUS, k: float = K,
          floor: float = FLOOR) -> list[Judged]:
    """Each value of a history (oldest first) against the band of the n values before it."""
    out = []
    for i, value in enumerate(values):
        band = band_of(values[max(0, i - n):i], k, floor)
        drift = ""
        if band is not None and value > band.hi:
            drift = "up"
        elif band is not None and value < band.lo:
            drift = "down"
        out.append(Judged(value, band, drift))
    return out
