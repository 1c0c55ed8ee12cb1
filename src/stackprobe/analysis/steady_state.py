"""Has a workload reached steady state? The SNIA PTS rule on a per-interval series.

A figure measured before a storage system settles (caches filling, SSDs still fresh, a
cluster still creating placement groups) describes the warm-up, not the system. SNIA's
Performance Test Specification calls a measurement window steady when, over k consecutive
samples (5 in the PTS):

- the data excursion, max - min, is within 20% of the window's mean, and
- the slope excursion, how far the least-squares line rises or falls across the window
  (|slope| x its duration), is within 10% of the window's mean.

The first bounds the noise, the second a drift too slow for the first to see. Both are
relative to the mean, so a verdict does not depend on the unit (IOPS or bytes/s) nor on
how fast the system is. A window averaging zero or less is never steady: zero I/O is a
stall, and a stall held for k seconds is not a level to report.

The window alone is short-sighted. A device that bursts — cloud volumes spending burst
credits, a write-back cache absorbing writes, a controller before its throttle engages — is
flat at its burst rate for as long as the burst lasts, and five flat seconds of a burst meet
the rule as well as five of the steady state after it. Ending a run on that window reports
the burst. So ending a run asks more (`held_level`, `ready_to_stop`): the level must have
held — every k-window since it began within the limits, and the whole span's own trend within
the slope limit — for at least two windows and for at least half of the run so far. A change
seen before then starts the span again. That bounds what can be mistaken for the steady
state: a burst from the start shorter than two windows, or a change coming before the level
has lasted as long as everything before it, is always seen. A flat burst longer than that is
indistinguishable, from inside the run, from the steady state (no rule on the series so far
can see a drop that has not happened yet); SNIA's answer is preconditioning, stackprobe's a
`window` of more than half the burst.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from stackprobe.units import fmt_bw, fmt_iops


@dataclass(frozen=True)
class SteadyState:
    """A verdict on a series, with the window it is about.

    Steady: the window is the first (or, for `is_steady_now`, the last) one that met the
    limits and reached_at_s the time of its last sample. Not steady: the window is the last
    k samples, the figures are theirs (what the run ended with) and reached_at_s is None.
    With fewer than k samples there is no window and every figure is None. range_pct and
    excursion_pct are percentages of the window's mean (infinite for a mean <= 0).
    """

    steady: bool
    window_start: int | None  # index of the window's first sample
    window_end: int | None  # index of its last sample (inclusive)
    reached_at_s: float | None
    mean: float | None
    range_pct: float | None
    excursion_pct: float | None
    reason: str
    # `held_level` and `ready_to_stop` only: since when the level has held (the time of the
    # span's first sample), its mean over the whole span (the steady figure) and its length.
    held_from_s: float | None = None
    held_mean: float | None = None
    held_samples: int = 0


def check_window(
    values: Sequence[float],
    times: Sequence[float] | None = None,
    *,
    range_limit: float = 0.20,
    slope_limit: float = 0.10,
) -> tuple[bool, float, float]:
    """(steady?, (max - min) / mean, |slope| x duration / mean) for one window.

    Fractions, not percentages. A mean <= 0 gives (False, inf, inf).
    """
    v, t = _arrays(values, times)
    if len(v) < 2:
        raise ValueError("a window needs at least 2 samples")
    mean = float(np.mean(v))
    if mean <= 0:
        return False, math.inf, math.inf
    range_frac = float(v.max() - v.min()) / mean
    slope = float(np.polyfit(t, v, 1)[0])
    excursion_frac = abs(slope) * float(t[-1] - t[0]) / mean
    return range_frac <= range_limit and excursion_frac <= slope_limit, range_frac, excursion_frac


def first_steady(
    values: Sequence[float],
    times: Sequence[float] | None = None,
    *,
    k: int = 5,
    range_limit: float = 0.20,
    slope_limit: float = 0.10,
    unit: str = "IOPS",
) -> SteadyState:
    """The first window of k samples, scanning from the start, that is steady.

    This is the question a finished run asks: from when on can its figures be trusted?
    `times` default to 0, 1, 2, ... (sample numbers); `unit` ("IOPS", "B/s" or a name)
    only words the reason.
    """
    v, t = _arrays(values, times)
    _check_k(k)
    if len(v) < k:
        return _too_few(len(v), k)
    limits = (range_limit, slope_limit)
    for start in range(len(v) - k + 1):
        state = _verdict(v, t, start, k, limits, unit, times is not None)
        if state.steady:
            return state
    return _verdict(v, t, len(v) - k, k, limits, unit, times is not None,
                    prefix=f"not steady: no {k}-sample window met the limits; ")


def is_steady_now(
    values: Sequence[float],
    times: Sequence[float] | None = None,
    *,
    k: int = 5,
    range_limit: float = 0.20,
    slope_limit: float = 0.10,
    unit: str = "IOPS",
) -> SteadyState:
    """The verdict on the last k samples only: what a live monitor asks every interval
    (a system can leave steady state, so an early steady window says nothing about now)."""
    v, t = _arrays(values, times)
    _check_k(k)
    if len(v) < k:
        return _too_few(len(v), k)
    return _verdict(v, t, len(v) - k, k, (range_limit, slope_limit), unit, times is not None)


def held_level(
    values: Sequence[float],
    times: Sequence[float] | None = None,
    *,
    k: int = 5,
    range_limit: float = 0.20,
    slope_limit: float = 0.10,
    unit: str = "IOPS",
) -> SteadyState:
    """The level the series ended at and since when it has held: what a finished run
    reports as its steady state.

    The held span is the longest end of the series in which every window of k samples meets
    the limits and whose own least-squares trend moves by no more than `slope_limit` of its
    mean (a drift too slow for any one window). Steady when the span has at least k samples;
    then `window_start`..`window_end` is the span's first window, reached_at_s the time that
    window ended, `held_mean` the mean of the whole span. Not steady: the verdict on the last
    window, as `is_steady_now` words it.
    """
    v, t = _arrays(values, times)
    _check_k(k)
    if len(v) < k:
        return _too_few(len(v), k)
    start = _held_start(v, t, k, range_limit, slope_limit)
    if start is None:
        return _verdict(v, t, len(v) - k, k, (range_limit, slope_limit), unit, times is not None)
    return _held(v, t, start, k, (range_limit, slope_limit), unit, times is not None)


def ready_to_stop(
    values: Sequence[float],
    times: Sequence[float] | None = None,
    *,
    k: int = 5,
    range_limit: float = 0.20,
    slope_limit: float = 0.10,
    unit: str = "IOPS",
) -> SteadyState:
    """May a live run end now? Steady only when the level has held (`held_level`) for at
    least 2k samples and for at least half of the samples so far: a burst from the start
    must outlast two windows, and a level reached after a change must outlast what came
    before it, to be taken as the steady state (module docstring). reached_at_s is then the
    time of the last sample: when the run may end."""
    held = held_level(values, times, k=k, range_limit=range_limit, slope_limit=slope_limit, unit=unit)
    if not held.steady:
        return held
    n = len(values)
    needed = max(2 * k, math.ceil(n / 2))
    last = float(times[-1]) if times is not None else float(n - 1)
    if held.held_samples < needed:
        return replace(held, steady=False, reached_at_s=None, reason=(
            f"not yet: the level has held for {held.held_samples} of {n} samples; ending the run "
            f"needs {needed} (two windows, and half of the run so far)"))
    return replace(held, reached_at_s=last, reason=(
        f"{held.reason}; held for {held.held_samples} of {n} samples: the run may end"))


def _held_start(v: np.ndarray, t: np.ndarray, k: int, range_limit: float,
                slope_limit: float) -> int | None:
    """Index of the held span's first sample, None when the last window is not steady.

    Every k-window at once from running sums (the least-squares slope needs only the sums
    of t, v, t² and tv), then the earliest start from which the span's own trend is within
    the limit — O(n) per call, so a live monitor can ask every interval of a long run."""
    n = len(v)
    t = t - t[0]
    win = np.lib.stride_tricks.sliding_window_view(v, k)
    mean = win.mean(axis=1)
    slope = _slopes(t, v, np.arange(n - k + 1), np.arange(k - 1, n))
    dur = t[k - 1:] - t[:n - k + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = ((mean > 0) & ((win.max(axis=1) - win.min(axis=1)) / mean <= range_limit)
              & (np.abs(slope) * dur / mean <= slope_limit))
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    first = int(bad[-1]) + 1 if len(bad) else 0  # the windows from here to the end are steady
    starts = np.arange(first, n - k + 1)
    ends = np.full(len(starts), n - 1)
    span_mean = (np.cumsum(v[::-1])[::-1][starts]) / (n - starts)
    span_slope = _slopes(t, v, starts, ends)
    with np.errstate(divide="ignore", invalid="ignore"):
        trend_ok = np.abs(span_slope) * (t[-1] - t[starts]) / span_mean <= slope_limit
    return int(starts[np.argmax(trend_ok)])  # the last start (one steady window) always passes


def _slopes(t: np.ndarray, v: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Least-squares slopes of v over t[s..e] for each pair (s, e), from running sums."""
    def sums(x: np.ndarray) -> np.ndarray:
        c = np.concatenate(([0.0], np.cumsum(x)))
        return c[ends + 1] - c[starts]

    m = (ends - starts + 1).astype(float)
    st, sv, stt, stv = sums(t), sums(v), sums(t * t), sums(t * v)
    den = m * stt - st * st
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, (m * stv - st * sv) / den, 0.0)


def _held(v: np.ndarray, t: np.ndarray, start: int, k: int, limits: tuple[float, float], unit: str,
          timed: bool) -> SteadyState:
    """The steady SteadyState of the span v[start:], about its first window."""
    first = _verdict(v, t, start, k, limits, unit, timed)
    span = v[start:]
    mean = float(np.mean(span))
    seconds = f", {float(t[-1] - t[start]):g} s" if timed else ""
    reason = (f"steady from {_when(t[start], start, timed)}: {_quantity(unit)} held at "
              f"{_fmt(mean, unit)} over {len(span)} samples{seconds} (every {k}-sample window "
              f"within the limits {_pct(limits[0])}, {_pct(limits[1])}; the span's trend within "
              f"{_pct(limits[1])})")
    return replace(first, steady=True, reached_at_s=float(t[start + k - 1]), reason=reason,
                   held_from_s=float(t[start]), held_mean=mean, held_samples=len(span))


def _verdict(v: np.ndarray, t: np.ndarray, start: int, k: int, limits: tuple[float, float], unit: str,
             timed: bool, prefix: str = "not steady: ") -> SteadyState:
    """The SteadyState of the window v[start:start+k], with its reason worded."""
    range_limit, slope_limit = limits
    end = start + k - 1
    wv, wt = v[start:end + 1], t[start:end + 1]
    ok, range_frac, excursion_frac = check_window(wv, wt, range_limit=range_limit, slope_limit=slope_limit)
    mean = float(np.mean(wv))
    what = _quantity(unit)
    if ok:
        reason = (f"steady by {_when(wt[-1], end, timed)} (window from {_when(wt[0], start, timed)}): "
                  f"{what} range {_pct(range_frac)} of their mean {_fmt(mean, unit)}, "
                  f"trend {_pct(excursion_frac)} (limits {_pct(range_limit)}, {_pct(slope_limit)})")
    elif mean <= 0:
        reason = f"{prefix}the last {k} samples average {_fmt(mean, unit)}: I/O stalled"
    else:
        why = []
        if range_frac > range_limit:
            why.append(f"vary by {_pct(range_frac)} (limit {_pct(range_limit)})")
        if excursion_frac > slope_limit:
            why.append(f"trend by {_pct(excursion_frac)} (limit {_pct(slope_limit)})")
        reason = f"{prefix}the last {k} samples " + " and ".join(why)
        stalled = [i for i in range(k) if wv[i] <= 0]
        if stalled:
            i = stalled[0]
            reason += f", with a stall ({_fmt(float(wv[i]), unit)} at {_when(wt[i], start + i, timed)})"
    return SteadyState(
        steady=ok,
        window_start=start,
        window_end=end,
        reached_at_s=float(wt[-1]) if ok else None,
        mean=mean,
        range_pct=range_frac * 100,
        excursion_pct=excursion_frac * 100,
        reason=reason,
    )


def _too_few(n: int, k: int) -> SteadyState:
    return SteadyState(False, None, None, None, None, None, None,
                       f"not steady: only {n} samples, a window needs {k}")


def _arrays(values: Sequence[float], times: Sequence[float] | None) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(values, dtype=float)
    if v.ndim != 1:
        raise ValueError("values must be a flat sequence")
    if not np.all(np.isfinite(v)):
        raise ValueError("non-finite value in the series")
    if times is None:
        return v, np.arange(len(v), dtype=float)
    t = np.asarray(times, dtype=float)
    if t.shape != v.shape:
        raise ValueError(f"{len(t)} times for {len(v)} values")
    if not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ValueError("times must be finite and strictly increasing")
    return v, t


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ValueError(f"a window needs k >= 2 samples, not {k!r}")


def _when(t: float, index: int, timed: bool) -> str:
    return f"{float(t):g} s" if timed else f"sample {index}"


def _pct(frac: float) -> str:
    pct = frac * 100
    return f"{pct:.1f}%" if pct < 10 else f"{pct:.0f}%"


def _quantity(unit: str) -> str:
    return "bandwidth" if unit == "B/s" else unit


def _fmt(value: float, unit: str) -> str:
    if value == 0:
        return f"0 {unit}"
    if unit == "IOPS":
        return f"{fmt_iops(value)} IOPS"
    if unit == "B/s":
        return fmt_bw(value)
    return f"{value:.3g} {unit}"
