"""Ending a fio step at steady state never ends it during a burst.

By hand (a flat burst, a flat device, a slow drift, a burst longer than the rule can see),
against a brute-force reading of the rule on random series, on a real fio status stream of
a device whose burst credits run out (recorded by bench/steady_state.py, RECORDED.md), and
through the bench itself on a real loop device and cgroup (root, fio).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, ROOT
from stackprobe.analysis.steady_state import check_window, held_level, is_steady_now, ready_to_stop
from stackprobe.kinds.fio.steady import SteadyMonitor, SteadySpec
from stackprobe.parsers.fio.fio_json import JsonStream, interval_series, status_totals

BURST_STREAM = (FIXTURES / "recorded" / "fio-steady"
                / "fio-3.33_status-interval-1_jsonplus_randread_burst-credits.txt.gz")


def _first_stop(values, k=5, rule=ready_to_stop):
    """The number of samples at which `rule` first says steady, None if never."""
    times = [float(i + 1) for i in range(len(values))]
    for n in range(k, len(values) + 1):
        if rule(values[:n], times[:n], k=k).steady:
            return n
    return None


# --- by hand -------------------------------------------------------------------------------

BURST = [3000, 3010, 2990, 3005, 2995, 3000, 3002, 2998]  # 8 s of burst credits
BASE = [1000, 1004, 996, 1001, 999] * 10  # then the baseline


def test_the_window_alone_stops_inside_a_burst_and_the_held_level_does_not():
    values = BURST + [1900] + BASE  # one second half at each rate
    assert _first_stop(values, rule=is_steady_now) == 5, "five flat seconds of burst pass SNIA"
    n = _first_stop(values)
    # The level holds from the 10th second (index 9) and must hold for two windows (10
    # samples) and half the run: at 19 samples it has held for 10.
    assert n == 19
    state = ready_to_stop(values[:n], [float(i + 1) for i in range(n)])
    assert state.held_from_s == 10.0 and state.held_samples == 10 and state.reached_at_s == 19.0
    assert state.held_mean == pytest.approx(1000.0, rel=0.002)
    assert state.reason.startswith("steady from 10 s: IOPS held at 1000 IOPS over 10 samples, 9 s")


def test_a_device_steady_from_the_start_stops_after_two_windows():
    values = BASE[:30]
    assert _first_stop(values) == 10
    early = ready_to_stop(values[:9], k=5)
    assert not early.steady and early.reached_at_s is None
    assert early.reason == ("not yet: the level has held for 9 of 9 samples; ending the run "
                            "needs 10 (two windows, and half of the run so far)")


def test_a_burst_longer_than_two_windows_is_taken_for_the_steady_state():
    """The documented limit: nothing in 10 flat seconds says a drop is coming."""
    values = BURST + BURST[:4] + BASE
    assert _first_stop(values) == 10 and ready_to_stop(values[:10]).held_mean > 2900


def test_a_drift_no_window_sees_cuts_the_held_span():
    # 0.4% a sample: every window trends by 1.6%, 60 samples by 24% of their mean.
    values = [1000 * (1 - 0.004 * i) for i in range(60)]
    assert all(check_window(values[i:i + 5])[0] for i in range(56))
    held = held_level(values)
    assert held.steady and 5 <= held.held_samples < 60
    span = values[-held.held_samples:]
    slope = np.polyfit(np.arange(len(span)), span, 1)[0]
    assert abs(slope) * (len(span) - 1) / np.mean(span) <= 0.10


def test_a_stall_is_never_a_level():
    assert not held_level([0.0] * 20).steady
    assert not ready_to_stop([0.0] * 20).steady
    assert _first_stop(BASE[:8] + [0.0] * 20) is None


def test_a_run_that_ended_unsteady_has_no_level():
    state = held_level(BASE + [1300, 1700, 2200, 2800, 3400])
    assert not state.steady and state.held_mean is None
    assert state.reason.startswith("not steady: the last 5 samples vary by")


def test_the_final_reports_fraction_of_an_interval_is_kept_but_not_judged():
    """fio's final report 0.15 s after its last status document (a recorded stream): the
    record keeps that sample, the verdict leaves it out (a throttled device delivers in
    slices, and 0.15 s of one says little about the level)."""
    monitor = SteadyMonitor(SteadySpec(window=3))
    monitor((FIXTURES / "recorded" / "fio-stream"
             / "fio-3.33_status-interval-1_jsonplus_randrw70.txt").read_text())
    assert [p.t_s for p in monitor.series()] == [0.999, 1.999, 2.153]
    assert monitor.verdict().reason == "not steady: only 2 samples, a window needs 3"


# --- the rule, brute force -----------------------------------------------------------------


def _brute_held_start(values, k, range_limit=0.20, slope_limit=0.10):
    """The held span's start from the definition: every k-window steady (check_window's
    polyfit) and the span's own trend within the limit; None if the last window is not."""
    n = len(values)
    ok = [check_window(values[i:i + k], range_limit=range_limit, slope_limit=slope_limit)[0]
          for i in range(n - k + 1)]
    if not ok[-1]:
        return None
    first = n - k
    while first > 0 and ok[first - 1]:
        first -= 1
    for s in range(first, n - k + 1):
        span = np.asarray(values[s:], dtype=float)
        t = np.arange(len(span), dtype=float)
        if abs(np.polyfit(t, span, 1)[0]) * t[-1] / span.mean() <= slope_limit:
            return s
    raise AssertionError("the last window alone always passes")


levels = st.lists(st.tuples(st.floats(100, 5000), st.integers(1, 15)), min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(levels, st.integers(3, 8), st.integers(0, 2**31 - 1))
def test_the_held_span_is_what_the_definition_says(steps, k, seed):
    rng = np.random.default_rng(seed)
    values = [lvl * (1 + rng.uniform(-0.08, 0.08)) for lvl, count in steps for _ in range(count)]
    if len(values) < k:
        return
    start = _brute_held_start(values, k)
    state = held_level(values, k=k)
    if start is None:
        assert not state.steady
    else:
        assert state.steady and state.held_samples == len(values) - start
        assert state.held_mean == pytest.approx(np.mean(values[start:]))


@settings(max_examples=150, deadline=None)
@given(st.floats(1.5, 4.0), st.integers(3, 8), st.data(), st.integers(0, 2**31 - 1))
def test_never_stops_in_a_burst_shorter_than_two_windows(ratio, k, data, seed):
    """A flat burst of under 2k samples, then the baseline: whenever the rule stops, the
    level it reports is the baseline's, held from after the burst."""
    burst_n = data.draw(st.integers(1, 2 * k - 1))
    rng = np.random.default_rng(seed)
    base = 1000.0
    values = ([base * ratio * (1 + rng.uniform(-0.03, 0.03)) for _ in range(burst_n)]
              + [base * (1 + rng.uniform(-0.03, 0.03)) for _ in range(60)])
    n = _first_stop(values, k=k)
    assert n is not None and n > burst_n
    state = ready_to_stop(values[:n], [float(i + 1) for i in range(n)], k=k)
    assert state.held_from_s > burst_n and state.held_mean == pytest.approx(base, rel=0.03)


# --- a real burst, recorded ----------------------------------------------------------------


def _documents(text: str) -> list[str]:
    """The stream cut into the pieces fio wrote: one status document each."""
    decoder, pieces, pos = json.JSONDecoder(), [], 0
    while (start := text.find("{", pos)) >= 0:
        _, end = decoder.raw_decode(text, start)
        pieces.append(text[pos:end])
        pos = end
    return pieces + [text[pos:]]


@pytest.fixture(scope="module")
def burst_stream() -> str:
    with gzip.open(BURST_STREAM, "rt") as f:
        return f.read()


def test_the_recorded_stream_has_a_burst_then_a_drop(burst_stream):
    totals = [status_totals(d) for d in JsonStream().feed(burst_stream) if "jobs" in d]
    iops = [p.iops for p in interval_series(totals)]
    assert len(iops) >= 50
    burst, level = np.median(iops[:5]), held_level(iops).held_mean
    assert burst > 2 * level, (burst, level)


def test_the_monitor_stops_after_the_recorded_burst_at_its_level(burst_stream):
    monitor = SteadyMonitor(SteadySpec(window=5, stop=True))
    pieces = _documents(burst_stream)
    stopped_after = next((i for i, p in enumerate(pieces) if monitor(p)), None)
    assert stopped_after is not None
    series = interval_series([status_totals(d) for d in JsonStream().feed(burst_stream) if "jobs" in d])
    iops, times = [p.iops for p in series], [p.t_s for p in series]
    full = held_level(iops, times)
    middle = (np.median(iops[:5]) + full.held_mean) / 2
    drop = times[max(i for i, v in enumerate(iops) if v >= middle) + 1]
    naive = next(t for n, t in enumerate(times, 1) if n >= 5 and is_steady_now(iops[:n], times[:n]).steady)
    assert naive < drop, "the plain SNIA window would have ended this run inside the burst"
    at = monitor.stopped_at
    assert at.reached_at_s > drop and at.held_from_s >= drop
    assert at.held_mean == pytest.approx(full.held_mean, rel=0.05)
    assert at.reached_at_s < times[-1] / 2, "and it still ends well before the fixed runtime"


# --- the bench on a real loop device and cgroup --------------------------------------------


def _leftovers() -> tuple[set, set, set]:
    cgroups = {p for root in ("/sys/fs/cgroup/blkio", "/sys/fs/cgroup")
               for p in Path(root).glob("stackprobe-steady-*")}
    loops = {line for line in subprocess.run(["losetup", "-a"], capture_output=True,
                                             text=True).stdout.splitlines() if "stackprobe-steady-" in line}
    scratch = set(Path(tempfile.gettempdir()).glob("stackprobe-steady-*"))
    return cgroups, loops, scratch


def _bench(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(ROOT / "bench" / "steady_state.py"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "src")})


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a loop device and a cgroup need root")


@needs_root
@pytest.mark.bench
@pytest.mark.root
@pytest.mark.tools
def test_bench_short_stops_after_the_burst_and_cleans_up():
    before = _leftovers()
    proc = _bench("--short")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, (out[-2000:], err[-2000:])
    lines = out.strip().splitlines()
    assert re.fullmatch(r"ss_time_ratio=\d+\.\d+ ss_answer_diff=\d+\.\d+", lines[-1]), out
    m = re.search(r"^stop: .*drop at ([\d.]+) s, stopped at ([\d.]+) s", out, re.MULTILINE)
    assert m and float(m.group(2)) > float(m.group(1)), out
    assert _leftovers() == before


@needs_root
@pytest.mark.bench
@pytest.mark.root
@pytest.mark.tools
def test_bench_stopped_midway_removes_its_loop_device_cgroup_and_files():
    before = _leftovers()
    proc = _bench("--runtime", "60")
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _leftovers()[0] == before[0]:
            time.sleep(0.2)
        assert _leftovers()[0] != before[0], "the bench never made its cgroup"
        time.sleep(2)  # fio is running now
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0, out
    assert _leftovers() == before, err[-2000:]
