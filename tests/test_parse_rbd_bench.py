"""rbd bench parser on a public 2019 Octopus-dev output and on runs recorded on the 16.2.15
lab cluster (tests/fixtures/recorded/ceph, RECORDED.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stackprobe.parsers.ceph.rbd_bench import parse_rbd_bench
from stackprobe.units import parse_size

FIX = Path(__file__).parent / "fixtures"
PUBLIC = FIX / "public" / "rbd"
REC = FIX / "recorded" / "ceph"
MIB = 1024**2
OCTOPUS = PUBLIC / "rbd-bench_write_128K_rand_threads1_ceph15-octopus-dev_2019.txt"

RUNS = sorted(PUBLIC.glob("*")) + sorted(p for p in REC.glob("rbd-bench-*") if "_error_" not in p.name)


def read(path: Path | str) -> str:
    return (path if isinstance(path, Path) else REC / path).read_text()


def final_line(text: str, prefix: str = "") -> dict[str, str]:
    """The `elapsed:`/`read_ops:`/`write_ops:` line as printed: {field: value}."""
    line = next(ln for ln in text.splitlines() if ln.startswith(prefix or "elapsed:"))
    return dict(re.findall(r"(\S+):\s+(\S+(?: [KMGT]?i?B/s)?)", line))


def half_last_digit(number: str) -> float:
    """The most a printed rate can be off from rounding: '23.00' -> 0.005, '23814' -> 0.5."""
    decimals = len(number.split(".")[1]) if "." in number else 0
    return 0.5 * 10.0**-decimals


def test_all_runs_found():
    assert len(RUNS) == 1 + 9


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_every_run_parses_consistently(path):
    text = read(path)
    rec = parse_rbd_bench(text)
    w = rec.workload
    size = w["io_size"]
    printed = final_line(text)
    assert rec.tool == "rbd bench" and rec.job == w["io_type"]
    ops = int(printed["ops"])
    assert sum(s.total_ios for _, s in rec.directions()) == ops
    runtime_s = None
    for _, s in rec.directions():
        assert s.bw_bytes == pytest.approx(s.iops * size, rel=1e-12)
        assert s.io_bytes == s.total_ios * size
        assert s.lat_ns == {} and s.clat_ns == {}  # rbd bench measures no latency
        runtime_s = runtime_s or s.runtime_ms / 1000
        assert s.runtime_ms / 1000 == runtime_s  # one run time for both directions
    # whole seconds, truncated
    assert int(runtime_s) == int(printed["elapsed"])
    total_iops = ops / runtime_s
    assert abs(total_iops - float(printed["ops/sec"])) <= half_last_digit(printed["ops/sec"])
    # bytes/sec as printed: a plain number (2019) or rounded to its unit ("15 MiB/s")
    rate = printed["bytes/sec"]
    if rate.endswith("/s"):
        number, unit = rate[:-2].split()
        step = parse_size("1" + unit) if "." not in number else parse_size("0.1" + unit)
        assert abs(total_iops * size - parse_size(rate[:-2])) <= step / 2 + 1
    else:
        assert total_iops * size == pytest.approx(float(rate), rel=1e-9)
    # series: per-interval rates, strictly later, never past the end
    secs = [p.t_s for p in rec.series]
    assert secs == sorted(set(secs)) and all(t <= runtime_s for t in secs)
    for p in rec.series:
        assert p.bw_bytes == pytest.approx(p.iops * size) and p.lat_mean_ns is None


def test_octopus_2019_raw_rates_and_log_lines():
    text = read(OCTOPUS)
    assert text.count("WARNING: all dangerous and experimental features are enabled.") == 3
    rec = parse_rbd_bench(text)
    assert rec.workload == {"io_type": "write", "io_size": 131072, "io_threads": 1,
                            "io_total": 1 << 30, "io_pattern": "rand"}
    s = rec.write
    # runtime from the raw bytes/sec (more digits than 'ops/sec: 23.00')
    assert s.runtime_ms / 1000 == pytest.approx(8192 * 131072 / 3015193.89, rel=1e-12)
    assert s.bw_bytes == pytest.approx(3015193.89) and s.iops == pytest.approx(23.004, abs=1e-3)
    assert s.total_ios == 8192 and s.io_bytes == 1 << 30
    # rows only exist for seconds in which something completed: 325 has none
    by_sec = {p.t_s: p for p in rec.series}
    assert 325 not in by_sec and len(rec.series) == 300
    assert by_sec[326].iops == (7245 - 7235) / 2
    assert by_sec[1].iops == 199 and by_sec[2].iops == 2


def test_series_is_per_interval_not_the_tool_rolling_average():
    rec = parse_rbd_bench(read("rbd-bench-16.2.15_write_rand_4K_t16_64M.txt"))
    # OPS column 4688, 8272, 11696, 15136; the tool's OPS/SEC (5-row average) 4685.26,
    # 4135.73, 3873.02, 3776.67
    assert [p.iops for p in rec.series] == [4688, 3584, 3424, 3440]
    assert rec.write.iops == pytest.approx(3459.46, rel=1e-6)
    assert rec.workload["io_pattern"] == "rand"


def test_readwrite_split():
    text = read("rbd-bench-16.2.15_readwrite_rand_4K_t16_mix70_64M.txt")
    rec = parse_rbd_bench(text)
    assert rec.job == "readwrite"
    assert rec.workload == {"io_type": "readwrite", "io_size": 4096, "io_threads": 16,
                            "io_total": 64 * MIB, "io_pattern": "rand", "rw_mix_read": 70}
    assert (rec.read.total_ios, rec.write.total_ios) == (11491, 4893)
    assert rec.read.total_ios / 16384 == pytest.approx(0.70, abs=0.02)
    total = final_line(text)["ops/sec"]  # the run time comes from it, with its rounding
    for direction, s in rec.directions():
        rate = final_line(text, f"{direction}_ops:")[f"{direction}_ops/sec"]
        slack = half_last_digit(rate) + s.iops * half_last_digit(total) / float(total)
        assert abs(s.iops - float(rate)) <= slack
    assert rec.read.bw_bytes + rec.write.bw_bytes == pytest.approx(3889.84 * 4096, rel=1e-5)
    assert len(rec.series) == 4  # read and write together


def test_readwrite_seq_4M():
    rec = parse_rbd_bench(read("rbd-bench-16.2.15_readwrite_seq_4M_t16_mix70_2G.txt"))
    assert rec.workload["io_pattern"] == "seq" and rec.workload["io_size"] == 4 * MIB
    assert (rec.read.total_ios, rec.write.total_ios) == (369, 143)
    assert rec.read.bw_bytes / MIB == pytest.approx(369 * 4 * 194.529 / 512, rel=1e-5)


@pytest.mark.parametrize("name, io_type, pattern, ops", [
    ("rbd-bench-16.2.15_write_seq_4K_t16_256M.txt", "write", "seq", 65536),
    ("rbd-bench-16.2.15_read_seq_4K_t16_256M.txt", "read", "seq", 65536),
    ("rbd-bench-16.2.15_read_rand_4K_t16_256M.txt", "read", "rand", 65536),
    ("rbd-bench-16.2.15_write_seq_4M_t16_1G.txt", "write", "seq", 256),
    ("rbd-bench-16.2.15_read_rand_4M_t16_4G.txt", "read", "rand", 1024),
])
def test_recorded_single_direction_runs(name, io_type, pattern, ops):
    rec = parse_rbd_bench(read(name))
    assert (rec.job, rec.workload["io_pattern"]) == (io_type, pattern)
    (direction, s), = rec.directions()
    assert direction == io_type and s.total_ios == ops
    assert s.total_ios * rec.workload["io_size"] == rec.workload["io_total"]


def test_deprecated_bench_write_with_stderr():
    text = read("rbd-bench-16.2.15_bench-write_4K_t16_32M_with-stderr.txt")
    assert text.startswith("rbd: bench-write is deprecated")
    rec = parse_rbd_bench(text)
    assert rec.job == "write" and rec.write.total_ios == 8192
    assert rec.write.iops == pytest.approx(23814) and rec.series == []


def test_legacy_bench_write_header():
    """Jewel's `rbd bench-write` header (no type); the format is from its Bench source."""
    text = ("bench-write  io_size 4096 io_threads 16 bytes 1073741824 pattern seq\n"
            "  SEC       OPS   OPS/SEC   BYTES/SEC\n"
            "    1     11000  11016.00  45121536.00\n"
            "    2     22000  11008.00  45088768.00\n"
            "elapsed:    23  ops:   262144  ops/sec: 11001.25  bytes/sec: 45060096.00\n")
    rec = parse_rbd_bench(text)
    assert rec.workload == {"io_type": "write", "io_size": 4096, "io_threads": 16,
                            "io_total": 1 << 30, "io_pattern": "seq"}
    assert rec.write.bw_bytes == pytest.approx(45060096.00)
    assert [p.iops for p in rec.series] == [11000, 11000]


def test_failed_run_raises_with_the_tool_message():
    with pytest.raises(ValueError, match=re.escape(
            "rbd: error opening image nosuchimage: (2) No such file or directory")):
        parse_rbd_bench(read("rbd-bench-16.2.15_error_no-such-image.txt"))


def test_malformed_input():
    text = read("rbd-bench-16.2.15_readwrite_rand_4K_t16_mix70_64M.txt")
    with pytest.raises(ValueError, match="empty output"):
        parse_rbd_bench("")
    with pytest.raises(ValueError, match="cut short"):
        parse_rbd_bench(text.split("elapsed:")[0])
    with pytest.raises(ValueError, match="header"):
        parse_rbd_bench(text.split("\n", 1)[1])
    with pytest.raises(ValueError, match="read_ops/write_ops"):
        parse_rbd_bench(text.split("read_ops:")[0])
    with pytest.raises(ValueError, match="ops/sec"):
        parse_rbd_bench(text.replace("ops/sec: 3889.84", "ops/sec: 0"))
