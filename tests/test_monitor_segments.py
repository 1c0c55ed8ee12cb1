"""A step of hours is monitored in segments: each folded as it comes (monitor/stream_fold.py,
monitor/segments.py), what is kept bounded, the summary the one a whole series gives.

The real sadc's segments on this machine are in test_monitor.py; here a recorded sadf
document (tests/fixtures/recorded/sysstat) is replayed as a day of seconds.
"""

from __future__ import annotations

import gzip
import json

import pytest

from conftest import FIXTURES
from stackprobe.monitor.segments import HostFold
from stackprobe.monitor.stream_fold import SampleKeeper, SummaryFold
from stackprobe.monitor.summary import summarise
from stackprobe.parsers.host.sadf_json import MonitorSample, MonitorSeries, parse_sadf_json

SADF = sorted((FIXTURES / "recorded" / "sysstat").glob("*.json"))


@pytest.fixture(scope="module")
def recorded() -> tuple[str, MonitorSeries]:
    text = max(SADF, key=lambda p: p.stat().st_size).read_text()
    return text, parse_sadf_json(text)


def _shifted(series: MonitorSeries, by: float) -> list[MonitorSample]:
    return [s.model_copy(update={"t": s.t + by}) for s in series.samples]


def _day(series: MonitorSeries, seconds: int) -> list[MonitorSample]:
    """The recorded seconds repeated, one after the other, for `seconds`."""
    n = len(series.samples)
    base = series.samples[0].t
    return [series.samples[i % n].model_copy(update={"t": base + i}) for i in range(seconds)]


def test_the_fold_of_a_series_is_its_summary_in_pieces(recorded):
    """Folding a series in two segments gives the summary of the whole series."""
    _, series = recorded
    assert len(series.samples) >= 4
    whole = summarise(series, {"eth0": 1000.0})
    fold = SummaryFold()
    half = len(series.samples) // 2
    for part in (series.samples[:half], series.samples[half:]):
        for s in part:
            fold.add(s)
    assert fold.result(series.host, series.ncpu, {"eth0": 1000.0}) == whole


def test_a_day_keeps_its_ends_per_second_and_its_middle_in_minutes(recorded):
    _, series = recorded
    keeper = SampleKeeper(keep_s=600, bucket_s=60, max_buckets=1440)
    day = _day(series, 86_400)
    for s in day:
        keeper.add(s)
    kept = keeper.samples()
    assert len(kept) <= 600 + 600 + 1440 + 1
    assert kept[:600] == day[:600] and kept[-600:] == day[-600:]
    middle = kept[600:-600]
    assert all(s.interval_s == 60 for s in middle[:-1])
    assert [s.t for s in kept] == sorted({s.t for s in kept})  # in order, none twice
    # a bucket is its seconds' mean
    first = day[600:660]
    assert middle[0].cpu.idle == pytest.approx(sum(s.cpu.idle for s in first) / 60)
    assert middle[0].mem.used_bytes == round(sum(s.mem.used_bytes for s in first) / 60)
    assert sum(s.interval_s for s in kept) == pytest.approx(sum(s.interval_s for s in day))


def test_past_the_bucket_limit_buckets_widen(recorded):
    _, series = recorded
    keeper = SampleKeeper(keep_s=10, bucket_s=1, max_buckets=100)
    for s in _day(series, 1_000):
        keeper.add(s)
    assert len(keeper.buckets) <= 100 and keeper.bucket_s >= 8


def test_host_fold_keeps_each_segment_raw_and_counts_a_second_read_twice_once(recorded, tmp_path):
    text, series = recorded
    fold = HostFold("h1", tmp_path / "monitor-h1.sadf.json.gz")
    second = MonitorSeries(host="h1", interval_s=series.interval_s, ncpu=series.ncpu,
                           samples=_shifted(series, len(series.samples) - 1))  # one overlaps
    fold.add(series, text)
    fold.add(second, text)
    assert fold.fold.samples == 2 * len(series.samples) - 1
    kept = fold.series()
    assert kept.host == "h1" and kept.ncpu == series.ncpu and kept.interval_s == series.interval_s
    assert len({s.t for s in kept.samples}) == len(kept.samples)
    raw = gzip.decompress((tmp_path / "monitor-h1.sadf.json.gz").read_bytes()).decode()
    decoder, docs, at = json.JSONDecoder(), [], 0
    while at < len(raw.rstrip()):
        doc, at = decoder.raw_decode(raw, at)
        docs.append(doc)
        while at < len(raw) and raw[at].isspace():
            at += 1
    assert docs == [json.loads(text)] * 2
    assert fold.summary(None)["samples"] == fold.fold.samples


def test_a_soaks_keep_is_its_monitors_and_bounds_it_from_twice_keep_on(recorded, tmp_path):
    """A soak keeps its first and last `keep` seconds whole, and so does its monitor: what
    the monitor holds stops growing by the second once 2 x keep seconds have passed."""
    from stackprobe.kinds import registry
    from stackprobe.suite.loader import parse_suite

    suite = parse_suite("name: k\nsteps:\n  - {kind: fio, name: s, rw: read, bs: 4k, size: 16M, "
                            "soak: {duration: 2h, chunk: 10m, period: 30m, keep: 90s}}\n"
                            "  - {kind: fio, name: short, rw: read, bs: 4k, size: 16M, "
                            "soak: {duration: 20m, chunk: 1m, period: 5m}}\n"
                            "  - {kind: fio, name: long, rw: read, bs: 4k, size: 16M, runtime: 2h, time_based: true}\n"
                            "  - {kind: fio, name: plain, rw: read, bs: 4k, size: 16M, runtime: 5}\n", "k.yaml")
    soaked, short, long, plain = suite.steps
    fio = registry.kind("fio")
    # a segment is parsed whole (an hour's sadf JSON took 90 MB): ten minutes at most
    assert (fio.monitor_segment_s(soaked), fio.monitor_keep_s(soaked)) == (600.0, 90.0)
    assert fio.monitor_segment_s(short) == 300.0  # a shorter period: the period
    assert fio.monitor_segment_s(long) == 600.0 and fio.monitor_keep_s(long) is None
    assert fio.monitor_keep_s(plain) is None and fio.monitor_segment_s(plain) is None
    assert registry.kind("memory").monitor_keep_s(None) is None  # the kinds without soak: none
    _, series = recorded
    fold = HostFold("h1", tmp_path / "unused.gz", keep_s=90)
    held = []
    for n, s in enumerate(_day(series, 1800), start=1):
        fold.take(MonitorSeries(host="h1", interval_s=1, ncpu=series.ncpu, samples=[s]))
        if n in (400, 1800):
            held.append(len(fold.series().samples))
    assert held[0] <= 90 + 90 + 5 and held[1] <= 90 + 90 + 1800 // 60, held  # 400, 1210 at 10 min
