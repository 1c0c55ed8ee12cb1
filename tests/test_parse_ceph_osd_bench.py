"""`ceph tell osd.N bench` parser on outputs recorded on the 16.2.15 lab cluster, and on the
older formats (Jewel JSON, the pre-JSON `bench: wrote ...` line) written out from the
source that printed them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from stackprobe.parsers.ceph.osd_bench import parse_osd_bench

REC = Path(__file__).parent / "fixtures" / "recorded" / "ceph"
MIB = 1024**2
RESULTS = sorted(p for p in REC.glob("ceph-*_osd-bench_*") if "_error_" not in p.name)


def read(name: str) -> str:
    return (REC / name).read_text()


def test_all_recordings_found():
    assert len(RESULTS) == 3


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_every_recording_is_consistent(path):
    osd = int(re.search(r"_osd(\d+)_", path.name)[1])
    rec = parse_osd_bench(path.read_text(), osd)
    doc = json.loads(path.read_text())
    assert rec.osd == osd and rec.tool == "ceph tell osd bench"
    assert (rec.bytes_written, rec.block_bytes) == (doc["bytes_written"], doc["blocksize"])
    assert rec.bw_bytes == pytest.approx(rec.bytes_written / rec.elapsed_s, rel=1e-9)
    assert rec.iops == pytest.approx(rec.bw_bytes / rec.block_bytes, rel=1e-9)


def test_default_bench_1G_in_4M_blocks():
    rec = parse_osd_bench(read("ceph-16.2.15_osd-bench_osd0_default_1G_4M.json"), 0)
    assert rec.bytes_written == 1 << 30 and rec.block_bytes == 4 * MIB
    assert rec.elapsed_s == pytest.approx(0.292914401)
    assert rec.bw_bytes == pytest.approx(3665718791.3406825)
    assert rec.iops == pytest.approx(873.97546561734259)
    assert rec.host is None  # the output does not say; the caller may fill it from the tree


def test_small_blocks_json():
    rec = parse_osd_bench(read("ceph-16.2.15_osd-bench_osd1_12288000_4K.json"), 1)
    assert (rec.bytes_written, rec.block_bytes) == (12288000, 4096)
    assert rec.iops == pytest.approx(66766.00558, rel=1e-9)


def test_without_format_option_pacific_prints_pretty_json():
    text = read("ceph-16.2.15_osd-bench_osd2_64M_4M_no-format.txt")
    assert text.startswith("{\n    \"bytes_written\"")
    rec = parse_osd_bench(text, 2)
    assert rec.bytes_written == 64 * MIB and rec.elapsed_s == pytest.approx(0.034868379)


def test_jewel_json_without_elapsed():
    text = '{"bytes_written": 1073741824, "blocksize": 4194304, "bytes_per_sec": 710902112}'
    rec = parse_osd_bench(text, 3)
    assert rec.elapsed_s == pytest.approx((1 << 30) / 710902112)
    assert rec.iops == pytest.approx(710902112 / (4 * MIB))


def test_plain_line_of_old_releases():
    """Sizes by prettybyte_t: whole binary units, 'kB' below 100 MiB, 'MB' below 100 GiB."""
    text = "bench: wrote 1024 MB in blocks of 4096 kB in 1.510402 sec at 677 MB/sec\n"
    rec = parse_osd_bench(text, 0)
    assert (rec.bytes_written, rec.block_bytes) == (1 << 30, 4 * MIB)
    assert rec.elapsed_s == pytest.approx(1.510402)
    assert rec.bw_bytes == pytest.approx((1 << 30) / 1.510402)
    assert int(rec.bw_bytes / MIB) == 677  # what the OSD printed, truncated
    assert rec.iops == pytest.approx(rec.bw_bytes / (4 * MIB))
    # the cluster-log form of the same line, and small sizes in bytes
    rec = parse_osd_bench("osd.1 [INF] bench: wrote 4000 kB in blocks of 4096 bytes in "
                          "0.2 sec at 19 MB/sec", 1)
    assert (rec.bytes_written, rec.block_bytes) == (4000 * 1024, 4096)


@pytest.mark.parametrize("name, message", [
    ("ceph-16.2.15_osd-bench_osd0_error_block-128M.txt",
     "Error EINVAL: block 'size' values are capped at 64 MiB"),
    ("ceph-16.2.15_osd-bench_osd0_error_count-too-large-4K.txt",
     "Error EINVAL: 'count' values greater than 12288000 for a block size of 4 KiB"),
])
def test_refusals_raise_with_the_osd_message(name, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_osd_bench(read(name), 0)


def test_malformed_input():
    with pytest.raises(ValueError, match="empty output"):
        parse_osd_bench("\n", 0)
    with pytest.raises(ValueError, match="not JSON"):
        parse_osd_bench('{"bytes_written": 1', 0)
    with pytest.raises(ValueError, match="no 'blocksize'"):
        parse_osd_bench('{"bytes_written": 1, "bytes_per_sec": 2}', 0)
    with pytest.raises(ValueError, match="not a number"):
        parse_osd_bench('{"bytes_written": 1, "blocksize": "x", "bytes_per_sec": 2}', 0)
    with pytest.raises(ValueError, match="osd.5 bench failed: something else"):
        parse_osd_bench("something else\n", 5)
