"""Live figures from the tools' own streams: fio's --status-interval documents (recorded
here), rados bench's and rbd bench's per-second rows (recorded fixtures). Every expected
figure is computed from the recording itself: fio's own totals and percentiles, and the
series the parsers store for the same output."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from stackprobe.analysis.live_ceph import RadosLive, RbdLive
from stackprobe.analysis.live_figures import FioLive, fio_status_interval
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench
from stackprobe.parsers.ceph.rbd_bench import parse_rbd_bench
from stackprobe.parsers.fio.fio_json import json_documents

STREAMS = FIXTURES / "recorded" / "fio-stream"
MIXED = STREAMS / "fio-3.33_status-interval-1_jsonplus_randrw70.txt"
RAMP = STREAMS / "fio-3.33_status-interval-1_jsonplus_2jobs_ramp1.txt"
CEPH = FIXTURES / "recorded" / "ceph"


def feed(feeder, text: str, chunk: int) -> list:
    out = []
    for at in range(0, len(text), chunk):
        out += feeder.feed(text[at: at + chunk])
    return out


def test_fio_intervals_add_up_to_fios_totals_per_direction():
    text = MIXED.read_text()
    docs = json_documents(text)
    intervals = feed(FioLive(), text, 4096)
    assert len(intervals) == len(docs)  # the first from the job's start, then one per document
    for direction in ("read", "write"):
        figures = [f for fs in intervals for f in fs if f.direction == direction]
        assert len(figures) == len(docs)
        last = docs[-1]["jobs"][0][direction]
        done = sum(f.iops * (f.end_s - f.start_s) for f in figures)
        moved = sum(f.bw_bytes * (f.end_s - f.start_s) for f in figures)
        assert done == pytest.approx(last["total_ios"], rel=1e-6)
        assert moved == pytest.approx(last["io_bytes"], rel=1e-6)
        weighted = sum(f.lat_mean_ns * f.iops * (f.end_s - f.start_s) for f in figures)
        assert weighted / done == pytest.approx(last["clat_ns"]["mean"], rel=1e-6)
        assert all(a.end_s == b.start_s for a, b in zip(figures, figures[1:], strict=False))


def test_first_interval_p99_is_fios_own_and_later_ones_are_the_intervals():
    docs = json_documents(MIXED.read_text())
    intervals = FioLive().feed(MIXED.read_text())
    first = {f.direction: f for f in intervals[0]}
    for direction in ("read", "write"):
        clat = docs[0]["jobs"][0][direction]["clat_ns"]
        # the first interval's histogram is the first document's: fio's p99 must agree
        assert first[direction].p99_ns == clat["percentile"]["99.000000"]
        assert first[direction].lat_mean_ns == pytest.approx(clat["mean"], rel=1e-9)
    # a later interval's p99 is its own, not fio's cumulative p99 of that document
    later = {f.direction: f for f in intervals[2]}
    cumulative = docs[2]["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"]
    assert later["read"].p99_ns is not None and later["read"].p99_ns != cumulative


def test_chunking_does_not_change_the_figures():
    text = MIXED.read_text()
    assert feed(FioLive("n01"), text, 97) == feed(FioLive("n01"), text, len(text))
    assert {f.host for fs in FioLive("n01").feed(text) for f in fs} == {"n01"}


def test_the_interval_across_ramp_time_end_is_left_out():
    text = RAMP.read_text()
    docs = json_documents(text)
    intervals = FioLive().feed(text)
    # ramp: counted I/O but no latency yet; then fio restarts its statistics
    assert docs[0]["jobs"][0]["read"]["clat_ns"]["N"] == 0
    # fio's final report came 22 ms after its last status, with nothing more done
    assert [j["read"]["total_ios"] for j in docs[-1]["jobs"]] == \
        [j["read"]["total_ios"] for j in docs[-2]["jobs"]]
    assert len(intervals) == len(docs) - 2  # no interval across the ramp's end, none empty
    ramp, after = intervals[0][0], intervals[1][0]
    assert ramp.lat_mean_ns is None and ramp.p99_ns is None
    assert after.start_s > ramp.end_s  # the straddling interval is not there
    ios = sum(j["read"]["total_ios"] for j in docs[-1]["jobs"])
    done = sum(fs[0].iops * (fs[0].end_s - fs[0].start_s) for fs in intervals[1:])
    assert done == pytest.approx(ios - sum(j["read"]["total_ios"] for j in docs[1]["jobs"]))


def test_fio_live_passes_over_what_it_cannot_read():
    live = FioLive()
    assert live.feed('{"jobs": "x", "timestamp_ms": "soon"}\nnot json\n{"jobs": [') == []
    assert live.feed('{"jobs": [{"read": {"total_ios": 5}}], "timestamp_ms": 1e400}\n') == []


@pytest.mark.parametrize("estimate, interval", [(3, 1), (120, 1), (300, 3), (7200, 10)])
def test_status_interval_keeps_a_long_steps_stdout_bounded(estimate, interval):
    assert fio_status_interval(estimate) == interval


@pytest.mark.parametrize("name", ["rados-bench-16.2.15_write_4M_t16_3s.json",
                                  "rados-bench-16.2.15_write_4K_t16_5s_text.txt",
                                  "rados-bench-16.2.15_seq_4K_t1_5s_text.txt",
                                  "rados-bench-16.2.15_rand_4K_t16_5s.json",
                                  # rows behind --show-time's timestamps
                                  "rados-bench-16.2.15_write_64K-in-4M-objects_t8_3s_show-time_text.txt"])
def test_rados_bench_rows_give_the_parsers_series(name):
    text = (CEPH / name).read_text()
    stored = parse_rados_bench(text)
    op_size = int(stored.workload["bs"])
    direction = "write" if stored.write.total_ios else "read"
    figures = [fs[0] for fs in feed(RadosLive(None, direction, op_size), text, 50)]
    assert figures, "rows seen"
    assert [(f.end_s, f.iops, f.bw_bytes, f.lat_mean_ns) for f in figures] == [
        (p.t_s, p.iops, p.bw_bytes, p.lat_mean_ns) for p in stored.series]
    assert {f.direction for f in figures} == {direction}
    assert all(f.p99_ns is None for f in figures)  # rados bench has no interval percentile


@pytest.mark.parametrize("name, direction", [
    ("rbd-bench-16.2.15_write_rand_4K_t16_64M.txt", "write"),
    ("rbd-bench-16.2.15_read_seq_4K_t16_256M.txt", "read"),
    ("rbd-bench-16.2.15_readwrite_rand_4K_t16_mix70_64M.txt", "all"),
])
def test_rbd_bench_rows_give_the_parsers_series(name, direction):
    text = (CEPH / name).read_text()
    stored = parse_rbd_bench(text)
    figures = [fs[0] for fs in feed(RbdLive("c1"), text, 33)]
    assert [(f.end_s, f.iops, f.bw_bytes) for f in figures] == [
        (p.t_s, p.iops, p.bw_bytes) for p in stored.series]
    assert {(f.direction, f.host, f.lat_mean_ns) for f in figures} == {(direction, "c1", None)}
