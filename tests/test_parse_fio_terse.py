"""fio terse parser on fio 3.33 runs recorded with `--output-format=terse,json` (terse v3, v4,
v5; the JSON of the same run is the reference) and in client mode, plus the refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackprobe.parsers.fio.fio_json import parse_fio_json
from stackprobe.parsers.fio.fio_terse import parse_fio_terse

REC = Path(__file__).parent / "fixtures" / "recorded"
TERSE_JSON = {v: REC / f"fio-3.33_terse-v{v}+json_randrw_2jobs_trimwrite.txt" for v in (3, 4, 5)}
CLIENT = REC / "fio-3.33_client_terse-v3_randread.txt"


def _read(path: Path) -> str:
    """The file as fio wrote it: read_text() would turn carriage returns into newlines."""
    return path.read_bytes().decode()


def _terse_line(version: int, index: int = 0) -> str:
    return _read(TERSE_JSON[version]).splitlines()[index]


@pytest.mark.parametrize("version", [3, 4, 5])
def test_terse_agrees_with_json_of_same_run(version):
    text = _read(TERSE_JSON[version])
    terse, js = parse_fio_terse(text), parse_fio_json(text)
    assert [(r.job, r.groupid, r.error) for r in terse] == [
        ("randrw", 0, 0), ("trimwrite-falloc", 1, 0)]
    assert [(r.job, r.groupid, r.error) for r in js] == [(r.job, r.groupid, r.error) for r in terse]
    for t, j in zip(terse, js):
        assert (t.tool_version, t.source_format) == ("fio-3.33", f"terse v{version}")
        assert t.cpu.usr_pct == pytest.approx(j.cpu.usr_pct, abs=1e-6)
        assert t.cpu.sys_pct == pytest.approx(j.cpu.sys_pct, abs=1e-6)
        names = ("read", "write") if version == 3 else ("read", "write", "trim")
        assert [d for d, _ in t.directions()] == [d for d, _ in j.directions() if d in names]
        for name, ts in t.directions():
            _same_direction(ts, getattr(j, name), f"v{version}:{t.job}:{name}")


def _same_direction(ts, js, where: str) -> None:
    assert ts.runtime_ms == js.runtime_ms, where
    assert ts.iops == pytest.approx(js.iops, rel=0.01), where
    assert int(ts.iops) == int(js.iops), where  # fio truncates iops to an integer
    assert ts.bw_bytes == pytest.approx(js.bw_bytes, rel=0.01), where
    assert 0 <= js.io_bytes - ts.io_bytes < 1024, where  # io in KiB, truncated
    for lat in ("clat_ns", "lat_ns", "slat_ns"):
        t, j = getattr(ts, lat), getattr(js, lat)
        assert set(t) == set(j), (where, lat)
        for key, value in j.items():
            if key in ("mean", "stddev"):  # 6 decimals of a microsecond
                assert t[key] == pytest.approx(value, abs=0.001), (where, lat, key)
            else:  # min, max, percentiles: whole microseconds, truncated
                assert 0 <= value - t[key] < 1000, (where, lat, key, t[key], value)


def test_v5_field_positions_read_from_the_file():
    """Figures read by hand from the first v5 line (randrw, 2 jobs, group_reporting)."""
    (record,) = parse_fio_terse(_terse_line(5))
    assert record.read.io_bytes == 524364 * 1024
    assert record.read.iops == 65512
    assert record.read.runtime_ms == 2001
    assert record.read.bw_bytes == pytest.approx(524364 * 1024 * 1000 / 2001)
    assert record.read.slat_ns == pytest.approx(
        {"min": 2000, "max": 206000, "mean": 5130.644, "stddev": 4104.859})
    assert record.read.clat_ns["min"] == 15000 and record.read.clat_ns["max"] == 1673000
    assert record.read.clat_ns["p1"] == 104000 and record.read.clat_ns["p99.99"] == 1499000
    assert len(record.read.clat_ns) == 4 + 17  # 17 percentiles, 3 unused '0%=0' slots
    assert record.read.lat_ns["mean"] == pytest.approx(164420.484)
    assert record.write.io_bytes == 224436 * 1024 and record.write.iops == 28040
    assert record.write.clat_ns["p99.9"] == 317000
    assert record.trim is None  # the randrw job does no trim: zeros in v5's trim fields
    assert (record.cpu.usr_pct, record.cpu.sys_pct) == (3.6, 28.975)


def test_v3_and_v4_field_positions_read_from_the_files():
    (v3,) = parse_fio_terse(_terse_line(3))
    assert (v3.read.io_bytes, v3.read.iops, v3.read.slat_ns["max"]) == (437092 * 1024, 54609,
                                                                         1647000)
    assert v3.read.lat_ns["mean"] == pytest.approx(197009.620)
    assert v3.write.lat_ns["mean"] == pytest.approx(221647.308)
    assert (v3.cpu.usr_pct, v3.cpu.sys_pct) == (3.075, 25.4)
    (trimwrite,) = parse_fio_terse(_terse_line(4, 1))
    assert trimwrite.job == "trimwrite-falloc" and trimwrite.groupid == 1
    assert trimwrite.trim.io_bytes == 2237120 * 1024 and trimwrite.trim.iops == 17468
    assert trimwrite.trim.clat_ns["min"] == 35000 and trimwrite.trim.clat_ns["p1"] == 42000
    assert trimwrite.trim.slat_ns == {}  # falloc: no submission latency, all zeros


def test_client_mode_progress_glued_with_cr_and_disk_line():
    text = _read(CLIENT)
    assert text.startswith("Jobs: 1 (f=1)\r3;fio-3.33;randread;")
    assert "\n;vda;" in text
    (record,) = parse_fio_terse(text)
    assert (record.job, record.source_format, record.error) == ("randread", "terse v3", 0)
    assert record.read.iops == 14967 and record.read.io_bytes == 59928 * 1024
    assert record.read.slat_ns == {}  # psync: fio writes zeros
    assert record.read.clat_ns["min"] == 41000 and record.read.clat_ns["p99.99"] == 2113000
    assert not record.write.active


def test_non_record_lines_are_skipped():
    line = _terse_line(4)
    text = f"\nfio: some warning\n{{\n  \"jobs\" : []\n}}\n\n{line}\n;vda;1;2;3;4;5;6;7;8.00%\n"
    assert parse_fio_terse(text) == parse_fio_terse(line)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no fio terse record"),
        ("Jobs: 1 (f=1)\n{\n}\n", "no fio terse record"),
        ("2;job;0;0;1;2;3", "terse version 2 is not supported"),
        ("9;fio-9.0;job;0;0;1;2;3", "unknown terse version 9"),
        ("3;job;0;0;1;2;3", "not a fio version"),
        ("3;fio-3.33;job;0;0;1;2;3", "fields, terse v3 needs at least"),
    ],
)
def test_malformed_input_raises_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        parse_fio_terse(text)


def test_shifted_or_one_direction_line_is_refused():
    fields = _terse_line(3).split(";")
    one_direction = ";".join(fields[:5] + fields[5:46] + fields[87:])  # as with unified mixed
    with pytest.raises(ValueError, match="expected a percentile"):
        parse_fio_terse(one_direction)
    shifted = _terse_line(5).replace(";randrw;", ";rand;rw;", 1)
    with pytest.raises(ValueError, match="line 1"):
        parse_fio_terse(shifted)
    bad_number = _terse_line(3).replace(";437092;", ";4370x92;", 1)
    with pytest.raises(ValueError, match="read fields"):
        parse_fio_terse(bad_number)
