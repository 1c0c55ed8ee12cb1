"""fio normal-output parser: public outputs of fio 2.2.10, 2.14 and 3.25 (figures read from the
files by hand) and fio 3.33 runs recorded with `--output-format=normal,json[+]`, where the
normal report must agree with fio's own JSON of the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackprobe.parsers.fio.fio_json import parse_fio_json
from stackprobe.parsers.fio.fio_normal import parse_fio_normal

FIX = Path(__file__).parent / "fixtures"
PUB = FIX / "public" / "fio"
REC = FIX / "recorded"
MiB, GiB = 2**20, 2**30


def _read(path: Path) -> str:
    """The file as fio wrote it: read_text() would turn carriage returns into newlines."""
    return path.read_bytes().decode()


# file -> (number of records, [(record index, field path, expected value, relative tolerance)])
PUBLIC_EXPECTED = {
    "fio-2.14_normal_freebsd-posixaio_rw-mixed.txt": (1, [
        (0, "job", "name=1M_seqrw", None),
        (0, "jobs", 4, None),
        (0, "tool_version", "fio-2.14", None),
        (0, "workload", {"rw": "rw", "bs": MiB, "ioengine": "posixaio", "iodepth": 32}, None),
        (0, "read.total_ios", 1131207, None),
        (0, "read.runtime_ms", 3600299, None),
        (0, "read.iops", 1131207 * 1000 / 3600299, 1e-9),  # printed iops=314
        (0, "read.bw_bytes", 321739 * 1024, 1e-9),  # bw=321739KB/s, KB = KiB in 2.x
        (0, "read.io_bytes", 1104.8 * GiB, 1e-3),  # io=1104.8GB
        (0, "read.clat_ns.p99", 529e6, 1e-9),  # clat percentiles (msec)
        (0, "read.slat_ns.mean", 460, 1e-9),  # avg= 0.46 usec
        (0, "read.lat_ns.max", 10371e6, 1e-9),
        (0, "write.total_ios", 1131578, None),
        (0, "write.bw_bytes", 321844 * 1024, 1e-9),
        (0, "write.clat_ns.p99.99", 1205e6, 1e-9),
        (0, "cpu.usr_pct", 0.61, 1e-9),
        (0, "cpu.sys_pct", 1.40, 1e-9),
    ]),
    "fio-2.2.10_normal_4groups_libaio.txt": (4, [
        (0, "job", "read4k-rand", None),
        (0, "jobs", 32, None),
        (0, "workload", {"rw": "randread", "bs": 4096, "ioengine": "libaio", "iodepth": 128},
         None),
        (0, "read.bw_bytes", 254727 * 1024, 1e-9),
        (0, "read.iops", 7638626 * 1000 / 120014, 1e-9),  # printed iops=63647
        (0, "read.slat_ns.max", 32311e3, 1e-9),
        (0, "read.clat_ns.p50", 62e6, 1e-9),
        (1, "job", "read64k-seq", None),
        (1, "groupid", 1, None),
        (1, "workload.bs", 512 * 1024, None),  # bs=512K-512K/... despite the name
        (1, "read.slat_ns.max", 2029.2e6, 1e-9),  # max=2029.2K usec (K = 1000)
        (1, "read.runtime_ms", 58410, None),
        (2, "write.total_ios", 7863179, None),
        (2, "write.lat_ns.mean", 49706.76e3, 1e-9),
        (2, "read.active", False, None),
        (3, "write.bw_bytes", 481128 * 1024, 1e-9),
        (3, "write.clat_ns.p99.99", 7373e6, 1e-9),
    ]),
    "fio-3.25_normal_8groups_nvme.txt": (8, [
        (0, "job", "Seq-Read", None),
        (0, "tool_version", "fio-3.25", None),
        (0, "workload", {"rw": "read", "bs": MiB, "ioengine": "libaio", "iodepth": 1}, None),
        (0, "read.iops", 20435 * 1000 / 10001, 1e-9),  # IOPS=2043
        (0, "read.bw_bytes", 2043 * MiB, 2.5e-4),  # BW=2043MiB/s
        (0, "read.bw_bytes", 2143e6, 2.5e-4),  # (2143MB/s)
        # io printed as '19.0GiB' (num2str carry slip); 20435 x 1 MiB were done
        (0, "read.io_bytes", 20435 * MiB, 1e-3),
        (0, "read.clat_ns.p1", 363e3, 1e-9),
        (0, "read.slat_ns.mean", 25670, 1e-9),
        (0, "cpu.sys_pct", 5.75, 1e-9),
        (4, "read.bw_bytes", 46.3 * MiB, 1.1e-3),  # BW=46.3MiB/s (48.6MB/s)
        (4, "read.bw_bytes", 48.6e6, 1.1e-3),
        (5, "job", "Rand-Write-4K", None),
        (5, "write.iops", 698239 * 1000 / 10001, 1e-9),  # IOPS=69.8k
        (5, "write.clat_ns.min", 250, 1e-9),  # clat (nsec): min=250
        (5, "write.clat_ns.p99.99", 27520, 1e-9),
        (5, "write.lat_ns.mean", 14.07e3, 1e-9),
        (5, "write.slat_ns.max", 161461, 1e-9),
        (5, "trim", None, None),
        (7, "workload.iodepth", 32, None),
        (7, "write.io_bytes", 3664636 * 4096, 1e-3),  # printed '13.0GiB' for 13.98 GiB
    ]),
}


def _value(record, path: str):
    """'read.clat_ns.p99.9' -> record.read.clat_ns['p99.9'] (a dict takes the rest as key)."""
    obj, rest = record, path
    while rest:
        if isinstance(obj, dict):
            return obj[rest]
        head, _, rest = rest.partition(".")
        obj = getattr(obj, head)
    return obj


def test_every_public_normal_file_has_expectations():
    files = {p.name for p in PUB.glob("*normal*.txt")}
    assert files == set(PUBLIC_EXPECTED)


@pytest.mark.parametrize("name", sorted(PUBLIC_EXPECTED))
def test_public_normal_outputs(name):
    count, checks = PUBLIC_EXPECTED[name]
    records = parse_fio_normal(_read(PUB / name))
    assert len(records) == count
    for index, path, expected, rel in checks:
        got = _value(records[index], path)
        if rel is None:
            assert got == expected, (index, path)
        else:
            assert got == pytest.approx(expected, rel=rel), (index, path)
    for record in records:
        assert record.source_format == "normal"
        assert record.directions()


COMBINED = sorted(REC.glob("fio-3.33_normal+json*.txt"))


def _latency_close(normal: dict, js: dict, where: str) -> None:
    """Within the rounding of the text: these runs print nsec or usec, so min/max (truncated)
    and percentiles (rounded up) are within 1 usec, mean/stddev (2 decimals) within 5 ns."""
    assert set(normal) == set(js), where
    for key, value in js.items():
        tol = 5.0 if key in ("mean", "stddev") else 1000.0
        assert abs(normal[key] - value) <= tol + 1e-4 * value, (where, key, normal[key], value)


def test_recorded_combined_files_exist():
    assert len(COMBINED) == 3


@pytest.mark.parametrize("path", COMBINED, ids=lambda p: p.name)
def test_recorded_normal_agrees_with_json_of_same_run(path):
    text = _read(path)
    normal, js = parse_fio_normal(text), parse_fio_json(text)
    assert [r.job for r in normal] == [r.job for r in js]
    for n, j in zip(normal, js):
        where = f"{path.name}:{n.job}"
        assert (n.groupid, n.jobs, n.error, n.tool_version) == (
            j.groupid, j.jobs, j.error, j.tool_version), where
        for key, value in j.workload.items():  # JSON keeps bs=8k,16k as a string
            if key in ("rw", "iodepth", "ioengine") or (key == "bs" and isinstance(value, int)):
                assert n.workload[key] == value, (where, key)
        assert n.cpu.usr_pct == pytest.approx(j.cpu.usr_pct, abs=0.005), where
        assert n.cpu.sys_pct == pytest.approx(j.cpu.sys_pct, abs=0.005), where
        assert [d for d, _ in n.directions()] == [d for d, _ in j.directions()], where
        for name, js_stats in j.directions():
            ns = getattr(n, name)
            assert ns.total_ios == js_stats.total_ios, (where, name)
            if not js_stats.runtime_ms:  # the failed job: one issued trim, no figures
                continue
            assert ns.runtime_ms == js_stats.runtime_ms, (where, name)
            assert ns.iops == pytest.approx(js_stats.iops, rel=0.01), (where, name)
            assert ns.bw_bytes == pytest.approx(js_stats.bw_bytes, rel=0.01), (where, name)
            assert ns.io_bytes == pytest.approx(js_stats.io_bytes, rel=0.01), (where, name)
            for lat in ("clat_ns", "lat_ns", "slat_ns"):
                _latency_close(getattr(ns, lat), getattr(js_stats, lat), f"{where}:{name}:{lat}")


def test_recorded_groups_numjobs_latpct_and_trim():
    path = REC / "fio-3.33_normal+json_4groups_stonewall_numjobs2_randrw.txt"
    records = parse_fio_normal(_read(path))
    assert [(r.job, r.groupid, r.jobs) for r in records] == [
        ("seq-read", 0, 1), ("rand-read-2jobs", 1, 1), ("rand-read-2jobs", 1, 1),
        ("randrw-latpct", 2, 1), ("trimwrite-falloc", 3, 1),
    ]
    seq, one, two, mixed, trim = records
    assert seq.read.total_ios == 1293 and seq.workload["bs"] == MiB
    assert (one.read.total_ios, two.read.total_ios) == (43717, 43644)
    assert mixed.workload["bs"] == "8192,16384,16384"  # (R) 8192B, (W) 16.0KiB, (T) 16.0KiB
    assert "rwmixread" not in mixed.workload  # the description line does not show the mix
    assert mixed.read.lat_ns["p99.99"] == 153e3  # lat percentiles (usec)
    assert mixed.write.slat_ns["p50"] == 9152  # slat percentiles (nsec)
    assert trim.trim is not None and trim.trim.total_ios == 16747
    assert trim.trim.clat_ns["p99.9999"] == 2835e3  # percentile_list=...:99.9999
    assert trim.write.clat_ns["p50"] == 5152


def test_recorded_failed_job_keeps_error_and_message():
    path = REC / "fio-3.33_normal+json_error_randtrim-on-file.txt"
    (record,) = parse_fio_normal(_read(path))
    assert record.error == 25
    assert record.error_message.endswith("error=Inappropriate ioctl for device")
    assert not record.read.active and not record.write.active
    assert record.trim is not None and record.trim.total_ios == 1 and record.trim.iops == 0


def test_recorded_client_mode_host_prefix_and_banner():
    (record,) = parse_fio_normal(_read(REC / "fio-3.33_client_normal_randread.txt"))
    assert (record.host, record.tool_version, record.job) == ("vm", "fio-3.33", "randread")
    assert record.workload == {"rw": "randread", "bs": 4096, "ioengine": "psync", "iodepth": 1}
    assert record.read.total_ios == 16601
    assert record.read.iops == pytest.approx(16601 * 1000 / 1001)
    assert record.read.slat_ns == {}  # psync: no slat line
    assert record.read.clat_ns["p99.99"] == 1745e3


def test_json_after_the_normal_text_is_skipped_too():
    """Older fio put the JSON of normal,json after the report; the order must not matter."""
    text = _read(REC / "fio-3.33_normal+jsonplus_randrw_2jobs.txt")
    start, end = text.index("\n{\n") + 1, text.index("\n}\n") + 3
    moved = text[:start] + text[end:] + text[start:end]
    assert parse_fio_normal(moved) == parse_fio_normal(text)
    (record,) = parse_fio_normal(text)
    assert (record.jobs, record.read.total_ios, record.write.total_ios) == (2, 122973, 52658)


def test_progress_glued_before_a_header_is_read():
    text = _read(REC / "fio-3.33_client_normal_randread.txt")
    glued = text.replace(
        "Jobs: 1 (f=1)\r<vm> \nrandread: (groupid",
        "Jobs: 1 (f=1): [r(1)][100.0%][r=64.8MiB/s][eta 00m:00s]   randread: (groupid",
    )
    assert glued != text
    assert parse_fio_normal(glued)[0].read.total_ios == 16601


def test_bandwidth_survives_num2str_carry_slip():
    """fio-3.25 printed the 20435 MiB of Seq-Read as '19.0GiB' (19.96 GiB: the fraction rounded
    to 1.0 and its carry was lost). Had the same io taken 1000 msec, BW would print the same way
    next to a correct decimal figure: the slipped binary figure must not win."""
    text = _read(PUB / "fio-3.25_normal_8groups_nvme.txt")
    line = "  read: IOPS=2043, BW=2043MiB/s (2143MB/s)(19.0GiB/10001msec)"
    slipped = "  read: IOPS=20.4k, BW=19.0GiB/s (21.4GB/s)(19.0GiB/1000msec)"
    assert line in text
    record = parse_fio_normal(text.replace(line, slipped))[0]
    assert record.read.bw_bytes == pytest.approx(20435 * MiB, rel=3e-3)
    assert record.read.iops == pytest.approx(20435)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no fio job report"),
        ("Jobs: 1 (f=1): [R(1)][eta 00m:01s]\nRun status group 0 (all jobs):\n", "no fio job"),
        ("j: (groupid=0, jobs=1): err= 0: pid=1: x\n  read: IOPZ=1, BW=1MiB/s\n", "line 2"),
        ("j: (groupid=0, jobs=1): err= 0: pid=1: x\n  read: IOPS=1, BW=1MiB/s (1MB/s)(1XB/1msec)\n",
         "line 2"),
    ],
)
def test_malformed_input_raises_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        parse_fio_normal(text)


def test_unified_mixed_report_is_refused_not_misread():
    text = _read(REC / "fio-3.33_client_normal_randread.txt")
    mixed = text.replace("  read: IOPS=", "  mixed: IOPS=")
    with pytest.raises(ValueError, match="mixed"):
        parse_fio_normal(mixed)
