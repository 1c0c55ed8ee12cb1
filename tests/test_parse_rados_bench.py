"""rados bench parser on public outputs (2017 Jewel/Luminous, 2019 Octopus-dev) and on
runs recorded on the 16.2.15 lab cluster (tests/fixtures/recorded/ceph, RECORDED.md)."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

from stackprobe.parsers.ceph.rados_bench import parse_rados_bench

FIX = Path(__file__).parent / "fixtures"
PUBLIC = FIX / "public" / "rados"
REC = FIX / "recorded" / "ceph"
MIB = 1024**2

RUNS = sorted(PUBLIC.glob("*")) + sorted(
    p for p in REC.glob("rados-bench-*") if "_error_" not in p.name
)
ERRORS = sorted(REC.glob("rados-bench-*_error_*"))


def read(path: Path | str) -> str:
    return (path if isinstance(path, Path) else REC / path).read_text()


def printed(text: str, text_key: str, json_key: str) -> float | None:
    """A summary figure as the tool printed it, in either format."""
    m = re.search(rf"^{re.escape(text_key)}:\s+(\S+)", text, re.MULTILINE) or re.search(
        rf'"{json_key}":"([^"]+)"', text
    )
    return float(m[1]) if m else None


def stats_of(rec):
    (direction, stats), = rec.directions()
    return direction, stats


def test_all_runs_found():
    assert len(RUNS) == 4 + 11 and len(ERRORS) == 2


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_every_run_parses_consistently(path):
    text = read(path)
    rec = parse_rados_bench(text)
    direction, s = stats_of(rec)
    bs = rec.workload["bs"]
    assert rec.tool == "rados bench" and rec.job == rec.workload["mode"]
    assert rec.source_format == ("json" if path.suffix == ".json" else "text")
    assert direction == ("write" if rec.job == "write" else "read")
    assert s.io_bytes == s.total_ios * bs
    assert s.bw_bytes == pytest.approx(s.iops * bs, rel=1e-12)
    # "MB" is MiB: the printed Bandwidth is ops x size / time / 2^20 (6 significant digits).
    assert s.bw_bytes / MIB == pytest.approx(
        printed(text, "Bandwidth (MB/sec)", "bandwidth"), rel=1e-5
    )
    # Average IOPS is printed truncated to an integer.
    assert int(s.iops) == printed(text, "Average IOPS", "average_iops")
    assert s.lat_ns["mean"] / 1e9 == pytest.approx(
        printed(text, "Average Latency(s)", "average_latency"), rel=1e-5
    )
    assert s.lat_ns["min"] <= s.lat_ns["mean"] <= s.lat_ns["max"]
    # One point per second of the run; the last second may end before its row is printed.
    runtime_s = s.runtime_ms / 1000
    assert int(runtime_s) - 1 <= len(rec.series) <= int(runtime_s) + 1
    assert [p.t_s for p in rec.series] == list(range(1, len(rec.series) + 1))
    for p in rec.series:
        assert p.bw_bytes == pytest.approx(p.iops * bs)
    assert sum(p.iops for p in rec.series) <= s.total_ios


def test_public_2017_seq_read():
    text = read(PUBLIC / "rados-bench_seq-read_4M_60s_2017_stfc.log")
    rec = parse_rados_bench(text, mode="seq")
    assert rec.job == "seq" and rec.workload == {"mode": "seq", "bs": 4 * MIB, "object_size": 4 * MIB}
    assert rec.write.total_ios is None
    s = rec.read
    assert s.total_ios == 1640 and s.runtime_ms == pytest.approx(60475.957)
    assert s.iops == pytest.approx(1640 / 60.475957)
    assert s.bw_bytes / MIB == pytest.approx(108.473, rel=1e-5)
    assert s.lat_ns == pytest.approx({"mean": 588458e3, "min": 62379.9e3, "max": 3925210e3})
    assert "stddev" not in s.lat_ns  # seq/rand print no latency stddev
    assert len(rec.series) == 60
    first = rec.series[0]
    assert (first.iops, first.bw_bytes) == (21, 84 * MIB)
    assert first.lat_mean_ns == pytest.approx(0.342206e9)
    # second interval: (0.512468 x 51 - 0.342206 x 21) / 30 ops
    assert rec.series[1].lat_mean_ns == pytest.approx((0.512468 * 51 - 0.342206 * 21) / 30 * 1e9)


def test_read_mode_defaults_and_validation():
    text = read(PUBLIC / "rados-bench_seq-read_4M_60s_2017_stfc.log")
    assert parse_rados_bench(text).job == "read"  # text does not say seq or rand
    assert parse_rados_bench(text, mode="rand").workload["mode"] == "rand"
    with pytest.raises(ValueError, match="read run"):
        parse_rados_bench(text, mode="write")
    with pytest.raises(ValueError, match="write run"):
        parse_rados_bench(read(PUBLIC / "rados-bench_write_4M_60s_2017_stfc.log"), mode="seq")


def test_public_2017_write_with_wrapper_lines():
    rec = parse_rados_bench(read(PUBLIC / "rados-bench_write_4M_60s_2017_stfc.log"))
    assert rec.workload == {"mode": "write", "bs": 4 * MIB, "object_size": 4 * MIB,
                            "threads": 16, "seconds": 60}
    s = rec.write
    assert s.total_ios == 1693 and s.bw_bytes / MIB == pytest.approx(112.149, rel=1e-5)
    assert s.lat_ns["stddev"] == pytest.approx(0.175997e9)
    bws = [p.bw_bytes / MIB for p in rec.series]
    # Without stalls the series holds exactly the samples of rados bench's own statistics.
    assert statistics.stdev(bws) == pytest.approx(7.32275, rel=1e-5)
    assert (max(bws), min(bws)) == (128, 96)


def test_public_2019_octopus_timestamps_and_stall():
    rec = parse_rados_bench(read(PUBLIC / "rados-bench_write_4K_qd16_180s_ceph15-octopus-dev_2019.txt"))
    s = rec.write
    assert rec.workload["threads"] == 16 and rec.workload["seconds"] == 180
    assert s.total_ios == 17500 and s.runtime_ms == pytest.approx(180638)
    assert s.lat_ns["stddev"] == pytest.approx(0.318777e9)
    assert len(rec.series) == 180
    by_sec = {p.t_s: p for p in rec.series}
    # 'Min bandwidth 0': second 123 completed nothing, and has no latency of its own.
    assert by_sec[123].iops == 0 and by_sec[123].lat_mean_ns is None
    # rados bench prints 0.232422 MB/s at 124 (119 ops spread over 2 s); the series keeps
    # them in the second they completed in.
    assert by_sec[124].iops == 119
    assert max(p.iops for p in rec.series) == 299  # = 'Max IOPS'


def test_public_2017_64M_long_stall():
    rec = parse_rados_bench(read(PUBLIC / "rados-bench_write_64M_60s_2017_stfc.log"))
    assert rec.workload["bs"] == 64 * MIB
    assert [p.iops for p in rec.series[:12]] == [0] * 12
    # 2 writes complete in second 13 (the tool prints 9.84615 MB/s: 128 MiB over 13 s)
    assert rec.series[12].bw_bytes == 128 * MIB
    assert rec.series[12].lat_mean_ns == pytest.approx(12.5136e9)
    assert sum(p.iops for p in rec.series) == 75  # 'finished' of the last row
    assert rec.series[-1].bw_bytes == 960 * MIB
    assert rec.write.total_ios == 76 and rec.write.iops == pytest.approx(76 / 61.312555)


def test_recorded_text_and_json_agree_on_structure():
    text = parse_rados_bench(read("rados-bench-16.2.15_write_4M_t16_3s_text.txt"))
    js = parse_rados_bench(read("rados-bench-16.2.15_write_4M_t16_3s.json"))
    assert (text.source_format, js.source_format) == ("text", "json")
    assert text.workload == js.workload == {"mode": "write", "bs": 4 * MIB,
                                            "object_size": 4 * MIB, "threads": 16, "seconds": 3}
    assert text.write.lat_ns.keys() == js.write.lat_ns.keys() == {"mean", "stddev", "min", "max"}
    assert len(text.series) == len(js.series) == 3
    for a, b in (("rand_4M_t16_3s_text.txt", "rand_4M_t16_3s.json"),
                 ("seq_4M_t16_3s_text.txt", "seq_4M_t16_3s.json")):
        ra = parse_rados_bench(read(f"rados-bench-16.2.15_{a}"), mode=a.split("_")[0])
        rb = parse_rados_bench(read(f"rados-bench-16.2.15_{b}"), mode=b.split("_")[0])
        assert ra.workload == rb.workload and "threads" not in ra.workload
        assert ra.read.lat_ns.keys() == rb.read.lat_ns.keys() == {"mean", "min", "max"}
        assert len(ra.series) == len(rb.series)


def test_recorded_json_write_figures():
    rec = parse_rados_bench(read("rados-bench-16.2.15_write_4M_t16_3s.json"))
    s = rec.write
    assert s.total_ios == 302 and s.runtime_ms == pytest.approx(3067.061)
    assert s.lat_ns == pytest.approx({"mean": 0.160984e9, "stddev": 0.067031e9,
                                      "min": 0.033305e9, "max": 0.392369e9})
    assert [p.iops for p in rec.series] == [88, 97, 101]
    assert rec.series[0].lat_mean_ns == pytest.approx(0.164167e9)
    assert rec.series[1].lat_mean_ns == pytest.approx((0.168001 * 185 - 0.164167 * 88) / 97 * 1e9)


def test_json_write_stddev_iops_is_garbage_and_is_derived_from_bandwidth():
    """16.2.15 prints the write `stddev_iops` with "%d" from a double: a random number."""
    for name in ("rados-bench-16.2.15_write_4M_t16_3s.json",
                 "rados-bench-16.2.15_write_4K_t16_5s_cleanup.json"):
        text = read(name)
        rec = parse_rados_bench(text)
        bs = rec.workload["bs"]
        garbage = printed(text, "-", "stddev_iops")
        max_iops = printed(text, "-", "max_iops")
        assert abs(garbage) > 1000 * max_iops  # nonsense
        # IOPS samples are the bandwidth samples / op size; the series carries them.
        from_bw = printed(text, "-", "stddev_bandwidth") * MIB / bs
        assert statistics.stdev(p.iops for p in rec.series) == pytest.approx(from_bw, rel=1e-4)
    # The text of an equal run prints a sane figure, which the series reproduces too.
    text = read("rados-bench-16.2.15_write_4M_t16_3s_text.txt")
    rec = parse_rados_bench(text)
    assert statistics.stdev(p.iops for p in rec.series) == pytest.approx(
        printed(text, "Stddev IOPS", "-"), rel=1e-4)


def test_json_with_cleanup_lines_inside_the_document():
    text = read("rados-bench-16.2.15_write_4K_t16_5s_cleanup.json")
    assert "Cleaning up (deleting benchmark objects)" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text.split("\n", 1)[1])  # what the tool printed is not valid JSON
    rec = parse_rados_bench(text)
    assert rec.write.total_ios == 8945 and len(rec.series) == 5
    assert rec.workload == {"mode": "write", "bs": 4096, "object_size": 4096, "threads": 16,
                            "seconds": 5}


def test_show_time_and_op_smaller_than_object():
    rec = parse_rados_bench(read("rados-bench-16.2.15_write_64K-in-4M-objects_t8_3s_show-time_text.txt"))
    assert rec.workload == {"mode": "write", "bs": 65536, "object_size": 4 * MIB, "threads": 8,
                            "seconds": 3}
    assert rec.write.total_ios == 4567 and rec.write.runtime_ms == pytest.approx(3003.74)
    assert [p.iops for p in rec.series] == [1594, 1500, 1465]
    assert rec.error == 0 and rec.error_message is None


def test_read_shorter_than_a_second_has_no_series():
    rec = parse_rados_bench(read("rados-bench-16.2.15_seq_4M_t16_3s_text.txt"), mode="seq")
    assert rec.series == []
    assert rec.read.total_ios == 303 and rec.read.iops == pytest.approx(303 / 0.830989)


def test_seq_read_runs_out_of_objects():
    rec = parse_rados_bench(read("rados-bench-16.2.15_seq_4K_t1_5s_text.txt"), mode="seq")
    assert rec.read.total_ios == 9000  # all that the 4K write left, in 2.6 of the 5 s
    assert rec.read.runtime_ms == pytest.approx(2588.25)
    assert [p.iops for p in rec.series] == [3612, 3374]


def test_coarse_json_latency_still_gives_interval_means():
    rec = parse_rados_bench(read("rados-bench-16.2.15_rand_4K_t16_5s.json"), mode="rand")
    assert all(p.lat_mean_ns is not None for p in rec.series)
    assert rec.series[0].lat_mean_ns == pytest.approx(0.000737e9)


def test_interval_latency_dropped_when_rounding_dominates():
    doc = {"datas": [{"sec": "1", "finished": "1000000", "avg_lat": "0.000700"},
                     {"sec": "2", "finished": "1000010", "avg_lat": "0.000700"}],
           "total_time_run": "2.0", "total_reads_made": "1000010", "read_size": "4096",
           "object_size": "4096", "average_latency": "0.000700"}
    rec = parse_rados_bench("hints = 1\n" + json.dumps(doc) + "\n")
    assert rec.series[0].lat_mean_ns == pytest.approx(0.0007e9)
    # 10 ops between two rounded means of a million: +-0.1 s each, worthless.
    assert rec.series[1].iops == 10 and rec.series[1].lat_mean_ns is None


@pytest.mark.parametrize("name, message", [
    ("rados-bench-16.2.15_error_no-such-pool.txt",
     "error opening pool nosuchpool: (2) No such file or directory"),
    ("rados-bench-16.2.15_error_seq-without-write.txt",
     "Must write data before running a read benchmark!"),
])
def test_failed_runs_raise_with_the_tool_message(name, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_rados_bench(read(name))


def test_malformed_input():
    with pytest.raises(ValueError, match="empty output"):
        parse_rados_bench("")
    whole = read("rados-bench-16.2.15_write_4M_t16_3s_text.txt")
    with pytest.raises(ValueError, match="no summary"):
        parse_rados_bench(whole.split("Total time run")[0])
    with pytest.raises(ValueError, match="total time run is not a number"):
        parse_rados_bench(whole.replace("Total time run:         3.04468", "Total time run: x3"))
    with pytest.raises(ValueError, match="no total ops"):
        parse_rados_bench(re.sub(r"Total writes made:.*\n", "", whole))
