"""All clients' figures over the window every client ran in (analysis/client_window.py),
and the start stamp of a Ceph fleet's commands (kinds/ceph/fleet.py)."""

from __future__ import annotations

import subprocess
import time

import pytest

from stackprobe.analysis.client_window import ClientRun, common_window, window_figures
from stackprobe.kinds.ceph.fleet import all_clients, stamped, start_of
from stackprobe.schema.records import IoRecord, IoStats, SeriesPoint
from stackprobe.schema.sentinels import FLEET_HOST


def _series(*iops, lat_ms=10.0, size=4096):
    return [SeriesPoint(t_s=i + 1.0, iops=v, bw_bytes=v * size, lat_mean_ns=lat_ms * 1e6)
            for i, v in enumerate(iops)]


def test_window_is_last_start_to_first_end_and_counts_only_it():
    a = ClientRun("a", 100.0, _series(10, 10, 10, 10))  # 100..104
    b = ClientRun("b", 101.0, _series(100, 100, 100, 100))  # 101..105
    w = common_window([a, b])
    assert (w.start, w.end, w.skew_s) == (101.0, 104.0, 1.0)
    f = window_figures([a, b], w)
    # a's seconds 2-4 (10 each) and b's seconds 1-3 (100 each): rates add up
    assert f.iops == pytest.approx(110) and f.seconds == 3.0 and f.ios == pytest.approx(330)
    assert f.bw_bytes == pytest.approx(110 * 4096)


def test_a_lonely_second_does_not_inflate_the_sum():
    early = ClientRun("early", 0.0, _series(500, 50, 50))  # alone in its first second
    late = ClientRun("late", 1.0, _series(50, 50, 50))
    f = window_figures([early, late], common_window([early, late]))
    assert f.iops == pytest.approx(100)  # not (600/3 + 50)


def test_latency_is_weighted_by_io():
    a = ClientRun("a", 0.0, _series(100, 100, lat_ms=1.0))
    b = ClientRun("b", 0.0, _series(300, 300, lat_ms=5.0))
    f = window_figures([a, b], common_window([a, b]))
    assert f.lat_mean_ns == pytest.approx((100 * 1e6 + 300 * 5e6) / 400)


def test_no_window_when_clients_never_overlap_or_report_nothing():
    assert common_window([ClientRun("a", 0.0, _series(1, 1)), ClientRun("b", 5.0, _series(1))]) is None
    assert common_window([ClientRun("a", 0.0, []), ClientRun("b", 0.0, _series(1))]) is None


def _client(host, start, iops, bw=None):
    stats = IoStats(iops=sum(iops) / len(iops), bw_bytes=bw or sum(iops) / len(iops) * 4096,
                    total_ios=int(sum(iops)), lat_ns={"mean": 2e6, "max": 9e6})
    return IoRecord(tool="rados", job="write", host=host, write=stats,
                    series=_series(*iops)), start


def test_all_clients_record_and_a_slow_client_named():
    clients = [_client("h1", 10.0, [100] * 4), _client("h2", 10.0, [100] * 4),
               _client("h3", 10.0, [20] * 4)]
    phase = all_clients(("write",), "rados bench write", clients, groupid=0)
    merged = phase.records[-1]
    assert merged.host == FLEET_HOST and merged.write.iops == pytest.approx(220)
    # the mean from the window's seconds (10 ms each), the max the clients' max
    assert merged.write.lat_ns == {"mean": pytest.approx(1e7), "max": 9e6}
    assert phase.skew_s == 0.0 and phase.window_s == 4.0
    assert [f["node"] for f in phase.spread["figures"] if f["flagged"]] == ["h3"]
    assert any(w.startswith("client h3 ") for w in phase.warnings), phase.warnings


def test_late_start_is_a_warning():
    clients = [_client("h1", 10.0, [100] * 4), _client("h2", 11.5, [100] * 4),
               _client("h3", 10.0, [100] * 4)]
    phase = all_clients(("write",), "rados bench write", clients, groupid=0)
    assert phase.skew_s == 1.5 and any("1.50 s apart" in w for w in phase.warnings)


def test_the_stamp_waits_for_the_agreed_start_then_says_when():
    """Not before the agreed start, and the stamp is the moment it went on (before the
    command ended). How soon after the start is the scheduler's: this test runs beside the
    system tests at nice 19 (tests/run_tiers.py), where it once woke 0.27 s late."""
    start_ns = time.time_ns() + 300_000_000
    proc = subprocess.run(stamped(["echo", "ran"], start_ns), capture_output=True, text=True,
                          check=True)
    ended = time.time()
    began = start_of(proc.stderr)
    assert proc.stdout == "ran\n"
    assert start_ns / 1e9 <= began <= ended
    assert start_of("no stamp here\n") is None
