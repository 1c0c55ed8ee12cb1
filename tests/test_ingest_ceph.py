"""`stackprobe ingest` of Ceph bench outputs: every rados bench and rbd bench fixture (public
and recorded, text and --format json) and `ceph tell osd.N bench` gives the figures of the
file's own summary lines — read here by plain regexes, not by the parsers — and a file cut
short is one line naming the file, the line and the field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.ingest.detect import detect
from stackprobe.ingest.files import ingest_file
from stackprobe.schema.records import IoRecord, OsdBenchRecord

RECORDED = FIXTURES / "recorded" / "ceph"
SHARED = FIXTURES.parents[2] / "shared" / "fixtures" / "public"


def _public(tool: str) -> list[Path]:
    found = {p.name: p for p in sorted((FIXTURES / "public" / tool).iterdir())}
    if (SHARED / tool).is_dir():
        found.update({p.name: p for p in sorted((SHARED / tool).iterdir())})
    return sorted(found.values())


def _recorded(pattern: str) -> list[Path]:
    return [p for p in sorted(RECORDED.glob(pattern)) if "error" not in p.name]


RADOS = _public("rados") + _recorded("rados-bench-*")
RBD = _public("rbd") + _recorded("rbd-bench-*")
OSD = _recorded("ceph-*osd-bench*")
MIB = 2**20
UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def _half_ulp(printed: str) -> float:
    """The most a printed number can be off by rounding: half its last digit."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return 0.5 * 10**-decimals


def _summary(text: str) -> dict[str, str]:
    """rados bench's summary figures as the file prints them (text or JSON)."""
    if '"total_time_run"' in text:
        pick = {"bw": r'"bandwidth":"([^"]+)"', "iops": r'"average_iops":"([^"]+)"',
                "lat": r'"average_latency":"([^"]+)"', "time": r'"total_time_run":"([^"]+)"'}
    else:
        pick = {"bw": r"^Bandwidth \(MB/sec\):\s+(\S+)", "iops": r"^Average IOPS:\s+(\S+)",
                "lat": r"^Average Latency\(s\):\s+(\S+)", "time": r"^(?:\S+ )?Total time run:\s+(\S+)"}
    return {k: re.search(p, text, re.MULTILINE)[1] for k, p in pick.items()}


def _stats(rec: IoRecord):
    (direction,) = rec.directions()
    return direction[1]


def test_the_fixtures_are_there():
    assert len(_public("rados")) >= 4 and len(_public("rbd")) >= 1
    assert any(p.suffix == ".json" for p in RADOS) and len(OSD) == 3


@pytest.mark.parametrize("path", RADOS, ids=lambda p: p.name)
def test_rados_bench_figures_are_the_summary_lines(path):
    text = path.read_text()
    found = ingest_file(path)
    assert found.format == "rados bench"
    (rec,) = found.records
    s, printed = _stats(rec), _summary(text)
    # the figures come from the exact op count over the printed time, which is rounded too
    rel = _half_ulp(printed["time"]) / float(printed["time"])
    bw = float(printed["bw"])
    assert abs(s.bw_bytes / MIB - bw) <= _half_ulp(printed["bw"]) + bw * rel
    iops = int(printed["iops"])  # printed truncated to an integer
    assert iops * (1 - rel) <= s.iops < (iops + 1) * (1 + rel)
    assert s.lat_ns["mean"] / 1e9 == pytest.approx(float(printed["lat"]), rel=1e-12)


def _rbd_rate(printed: str) -> float:
    """bytes/sec as rbd bench prints it: a plain number (2019) or '15 MiB/s'."""
    value, _, unit = printed.partition(" ")
    return float(value) * UNITS[unit.removesuffix("/s")] if unit else float(value)


@pytest.mark.parametrize("path", RBD, ids=lambda p: p.name)
def test_rbd_bench_figures_are_the_total_lines(path):
    text = path.read_text()
    found = ingest_file(path)
    assert found.format == "rbd bench"
    (rec,) = found.records
    lines = {m[1] or "total": m for m in re.finditer(
        r"^(?:(read|write)_)?(?:elapsed:\s*\d+\s+)?ops:\s*(\d+)\s+(?:\w+_)?ops/sec:\s*(\S+)\s+"
        r"(?:\w+_)?bytes/sec:\s*(.+?)\s*$", text, re.MULTILINE)}
    dirs = dict(rec.directions())
    parts = {d: lines[d] for d in ("read", "write") if d in lines} or {
        next(iter(dirs)): lines["total"]}
    assert set(parts) == set(dirs)
    for d, m in parts.items():
        assert dirs[d].total_ios == int(m[2])
        assert abs(dirs[d].iops - float(m[3])) <= _half_ulp(m[3]) + 1e-5 * float(m[3])
        value, _, unit = m[4].partition(" ")
        scale = UNITS[unit.removesuffix("/s")] if unit else 1
        assert abs(dirs[d].bw_bytes - _rbd_rate(m[4])) <= (_half_ulp(value) + 1e-9) * scale
    assert all(not s.lat_ns for s in dirs.values())  # rbd bench prints no latency


@pytest.mark.parametrize("path", OSD, ids=lambda p: p.name)
def test_osd_bench_json_is_its_own_figures(path):
    doc = json.loads(path.read_text())
    (rec,) = ingest_file(path).records
    assert isinstance(rec, OsdBenchRecord) and rec.osd == -1  # the output names no OSD
    assert rec.bw_bytes == doc["bytes_per_sec"] and rec.iops == doc["iops"]
    assert (rec.bytes_written, rec.block_bytes) == (doc["bytes_written"], doc["blocksize"])


def test_osd_star_bench_names_each_osd(tmp_path):
    joined = "".join(f"osd.{i}: {p.read_text().strip()}\n" for i, p in enumerate(OSD))
    (tmp_path / "all").write_text(joined)
    recs = ingest_file(tmp_path / "all").records
    assert [r.osd for r in recs] == [0, 1, 2]
    assert [r.bw_bytes for r in recs] == [json.loads(p.read_text())["bytes_per_sec"] for p in OSD]


@pytest.mark.parametrize("path", sorted(RECORDED.glob("ceph-*tell-osd-star-bench*")),
                         ids=lambda p: p.name)
def test_ceph_tell_osd_star_bench_as_recorded(path):
    text = path.read_text()
    printed = {int(m[1]): float(m[2]) for m in re.finditer(
        r'^osd\.(\d+):\s*\{[^}]*?"bytes_per_sec":\s*([\d.]+)', text, re.MULTILINE)}
    recs = ingest_file(path).records
    assert len(printed) == 3 and {r.osd: r.bw_bytes for r in recs} == printed


def test_detection_reads_content_not_names(tmp_path):
    misnamed = tmp_path / "fio-results.json"
    misnamed.write_text((RECORDED / "rados-bench-16.2.15_seq_4M_t16_3s_text.txt").read_text())
    assert ingest_file(misnamed).format == "rados bench"
    assert detect((RECORDED / "rbd-bench-16.2.15_write_seq_4M_t16_1G.txt").read_text()
                  ).name == "rbd bench"


def test_tool_errors_are_the_tools_words():
    with pytest.raises(ValueError, match="Must write data before running a read benchmark"):
        ingest_file(RECORDED / "rados-bench-16.2.15_error_seq-without-write.txt")
    with pytest.raises(ValueError, match="^osd bench failed: Error EINVAL: block 'size'"):
        ingest_file(RECORDED / "ceph-16.2.15_osd-bench_osd0_error_block-128M.txt")


def _cut(src: Path, tmp_path: Path, keep: int | str) -> Path:
    """The file cut after `keep` lines, or just before the text `keep`."""
    text = src.read_text()
    out = tmp_path / f"cut-{src.name}"
    out.write_text("".join(text.splitlines(True)[:keep]) if isinstance(keep, int)
                   else text[:text.index(keep)])
    return out


SEQ_2017 = FIXTURES / "public" / "rados" / "rados-bench_seq-read_4M_60s_2017_stfc.log"
WRITE_JSON = RECORDED / "rados-bench-16.2.15_write_4M_t16_3s.json"


@pytest.mark.parametrize(("src", "keep", "line", "field"), [
    (SEQ_2017, 40, 40, "Total time run"),  # in the per-second table
    (SEQ_2017, "Average Latency", 81, "Average Latency"),  # in the summary
    (WRITE_JSON, '"total_time_run"', 2, "total_time_run"),
    (WRITE_JSON, '"bandwidth"', 2, "bandwidth"),
    (RECORDED / "rbd-bench-16.2.15_read_rand_4M_t16_4G.txt", 4, 4,
     "elapsed/ops/ops/sec/bytes/sec"),
])
def test_a_file_cut_short_is_one_line_naming_line_and_field(src, keep, line, field, tmp_path):
    cut = _cut(src, tmp_path, keep)
    proc = run_cli(["ingest", cut, (RECORDED / "rbd-bench-16.2.15_write_seq_4M_t16_1G.txt")],
                   check=1)
    (err,) = proc.stderr.splitlines()
    assert err.startswith(f"stackprobe: {cut}: cannot ingest: line {line}: {field}: missing")
    assert "rbd bench" in proc.stdout  # the other file is still ingested


def test_a_summary_without_iops_lines_or_latency_units_is_whole(tmp_path):
    """Older releases print no IOPS lines and 'Average Latency:' without '(s)'."""
    src = FIXTURES / "public" / "rados" / "rados-bench_write_4M_60s_2017_stfc.log"
    old = "".join(ln.replace("(s):", ":") for ln in src.read_text().splitlines(True)
                  if "IOPS" not in ln)
    (tmp_path / "old.log").write_text(old)
    (rec,) = ingest_file(tmp_path / "old.log").records
    (same,) = ingest_file(src).records
    assert rec.write.bw_bytes == same.write.bw_bytes and rec.write.lat_ns == same.write.lat_ns
