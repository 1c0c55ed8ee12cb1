"""The parsers of Ceph's own view, on outputs recorded from the lab (fixtures/ceph_view).

Figures checked against the raw JSON by hand; bad input is one ValueError line (the fuzz
targets in test_fuzz_parsers.py try much more).
"""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from stackprobe.parsers.ceph.health_detail import parse_health_detail
from stackprobe.parsers.ceph.osd_perf import OsdPerf, parse_osd_perf
from stackprobe.parsers.ceph.perf_dump import (
    LatencyTotal,
    parse_osd_ids,
    parse_perf_dump,
    split_tell_all,
)
from stackprobe.parsers.ceph.pool_stats import parse_pool_stats

VIEW = FIXTURES / "ceph_view"


def _text(name: str) -> str:
    return (VIEW / name).read_text()


def test_osd_perf_pacific_in_osd_order_and_ns():
    assert parse_osd_perf(_text("osd-perf-slow-osd1.json")) == [
        OsdPerf(0, 8e6, 8e6), OsdPerf(1, 1643e6, 1643e6), OsdPerf(2, 8e6, 8e6)]
    assert [p.commit_ns for p in parse_osd_perf(_text("osd-perf-idle.json"))] == [0, 0, 0]


def test_osd_perf_before_pacific_reads_milliseconds_at_the_top():
    old = '{"osd_perf_infos":[{"id":3,"perf_stats":{"commit_latency_ms":7,"apply_latency_ms":2}}]}'
    assert parse_osd_perf(old) == [OsdPerf(3, 7e6, 2e6)]


def test_pool_stats_missing_rates_are_zero():
    idle = parse_pool_stats(_text("pool-stats-idle.json"))
    assert [p.pool for p in idle] == ["labfs-meta", "labfs-data", "device_health_metrics"]
    assert all(p.read_bps == p.write_bps == p.read_ops == p.write_ops == 0 for p in idle)
    loaded = {p.pool: p for p in parse_pool_stats(_text("pool-stats-read.json"))}["cvexp3"]
    assert (loaded.read_bps, loaded.write_bps, loaded.read_ops, loaded.write_ops) == \
        (695328, 145323770, 0, 34)


def test_perf_dump_keeps_the_counters_a_delta_needs():
    c = parse_perf_dump(_text("slow-osd1/perf-dump-after-osd.1.json"))
    assert c.counts["op"] == 221 and c.counts["op_w"] == 221 and c.counts["subop_w"] == 365
    assert c.latencies["op_latency"] == LatencyTotal(221, 116.639900507)
    assert c.latencies["subop_w_latency"] == LatencyTotal(365, 112.394610863)
    assert c.latencies["bluestore.commit_lat"] == LatencyTotal(1037, 91.76438956)
    assert set(c.latencies) >= {"op_before_dequeue_op_lat", "op_r_latency", "op_w_latency"}


def test_perf_dump_of_another_daemon_is_refused():
    with pytest.raises(ValueError, match="no 'osd' section"):
        parse_perf_dump('{"mds": {"request": 3}}')


def test_osd_ids():
    assert parse_osd_ids(_text("osd-ls.json")) == [0, 1, 2]
    with pytest.raises(ValueError, match="not an OSD id"):
        parse_osd_ids('["osd.0"]')


def test_tell_all_osds_splits_into_each_osds_own_dump():
    parts = split_tell_all(_text("tell-all-osds-perf-dump.json"))
    assert sorted(parts) == [0, 1, 2]
    for osd, part in parts.items():
        assert parse_perf_dump(part).counts["op"] > 0, osd
    # an OSD that did not answer has no prefix: the others are still there
    assert sorted(split_tell_all("\nosd.0: {}\n\nosd.2: {}\n")) == [0, 2]
    with pytest.raises(ValueError, match="without its `osd.N: ` prefix"):
        split_tell_all("\n" + parts[0] + "\n")  # one OSD answers unprefixed
    with pytest.raises(ValueError, match="osd.0 answered twice"):
        split_tell_all("osd.0: {}\nosd.0: {}\n")


def test_health_ok_and_slow_ops_with_their_daemons():
    ok = parse_health_detail(_text("health-detail-ok.json"))
    assert ok.status == "HEALTH_OK" and ok.checks == [] and ok.slow is None
    many = parse_health_detail(_text("health-detail-slow-ops.json"))
    assert [c.code for c in many.checks] == ["POOL_APP_NOT_ENABLED", "SLOW_OPS"]
    assert (many.slow.count, many.slow.oldest_s, many.slow.daemons) == \
        (15, 10, ["osd.0", "osd.1", "osd.2"])
    one = parse_health_detail(_text("health-detail-slow-one-osd.json"))
    assert (one.slow.count, one.slow.oldest_s, one.slow.daemons) == (6, 6, ["osd.1"])


def test_slow_requests_of_older_releases_from_their_detail_lines():
    doc = ('{"status":"HEALTH_WARN","checks":{"REQUEST_SLOW":{"severity":"HEALTH_WARN",'
           '"summary":{"message":"4 slow requests are blocked > 32 sec"},"detail":['
           '{"message":"osd.4 has blocked requests > 32 sec"},'
           '{"message":"osd.7 has blocked requests > 64 sec"}]}}}')
    slow = parse_health_detail(doc).slow
    assert (slow.count, slow.oldest_s, slow.daemons) == (4, None, ["osd.4", "osd.7"])


@pytest.mark.parametrize("parse", [parse_osd_perf, parse_pool_stats, parse_perf_dump,
                                   parse_health_detail, parse_osd_ids])
@pytest.mark.parametrize("text", ["", "Error ETIMEDOUT: timed out", '{"a": [1, 2', "[]x"])
def test_bad_input_is_one_line(parse, text):
    with pytest.raises(ValueError) as err:
        parse(text)
    assert "\n" not in str(err.value)
