"""sadf -j parser, summary and monitoring file, on sysstat 12.6.1 outputs recorded here
(tests/fixtures/recorded/RECORDED.md, "sysstat"). Figures were read from the files."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from stackprobe.monitor import summarise, write_samples_json
from stackprobe.parsers.host.sadf_json import parse_sadf_json

REC = Path(__file__).parent / "fixtures" / "recorded" / "sysstat"
LOAD = REC / "sadf-12.6.1_j_sadc-XALL_1s_randwrite+iperf3.json"
PLAIN = REC / "sadf-12.6.1_j_sadc-XALL_1s_randwrite+iperf3_plain-options.json"
ONE = REC / "sadf-12.6.1_j_sadc-XALL_1-reading.json"
CUT_RECORD = REC / "sadf-12.6.1_j_cut-record.stdout"
CUT_HEADER = REC / "sadf-12.6.1_j_cut-header.stdout"
KIB = 1024


def _epoch(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()


@pytest.fixture(scope="module")
def load():
    return parse_sadf_json(LOAD.read_text())


def test_header_and_timestamps(load):
    assert (load.host, load.ncpu, load.interval_s, load.kernel) == ("vm", 2, 1.0, "6.18.44-fc-v509")
    assert len(load.samples) == 7
    assert load.samples[0].t == _epoch("2026-11-22 07:02:24") == 1795330944.0
    assert [s.t - load.samples[0].t for s in load.samples] == [0, 1, 2, 3, 4, 5, 6]
    assert all(s.interval_s == 1.0 for s in load.samples)


def test_cpu_all_and_per_core(load):
    s = load.samples[2]  # 07:02:26, fio at full speed
    assert (s.cpu.usr, s.cpu.sys, s.cpu.iowait, s.cpu.idle) == (13.76, 65.61, 0.53, 13.76)
    assert (s.cpu.soft, s.cpu.irq, s.cpu.steal, s.cpu.nice) == (6.35, 0.0, 0.0, 0.0)
    assert s.cpu.busy == 86.24
    assert sorted(s.cpus) == ["0", "1"]
    assert (s.cpus["0"].usr, s.cpus["0"].idle) == (20.21, 14.89)
    assert (s.cpus["1"].sys, s.cpus["1"].iowait, s.cpus["1"].soft) == (67.37, 1.05, 11.58)


def test_memory_in_bytes_and_total(load):
    m = load.samples[2].mem
    # memfree 18831088 + memused 2822072 + buffers 24372 + cached 2825144 + slab 181424 kB
    # = 24684100 kB, /proc/meminfo's MemTotal on the recording machine
    assert m.total_bytes == 24684100 * KIB
    assert m.used_bytes == 2822072 * KIB
    assert m.cached_bytes == 2825144 * KIB
    assert m.avail_bytes == 21503460 * KIB
    assert (m.free_bytes, m.buffers_bytes, m.slab_bytes) == (18831088 * KIB, 24372 * KIB, 181424 * KIB)
    assert {s.mem.total_bytes for s in load.samples} == {24684100 * KIB}


def test_disks_bytes_and_ms(load):
    s = load.samples[2]
    assert sorted(s.disks) == ["loop0", "vda"]  # zram0 never did I/O: sadc leaves it out
    vda = s.disks["vda"]
    assert vda.iops == 59139.0
    assert vda.write_bps == 347380.0 * KIB == 694760.0 * 512  # wkB/s, = sectors/s x 512
    assert vda.read_bps == 0.0
    assert (vda.util_pct, vda.await_ms, vda.aqu_sz) == (78.4, 0.06, 3.53)
    assert load.samples[1].disks["vda"].read_bps == 16.0 * KIB
    assert s.disks["loop0"].iops == 0.0


def test_nics_bytes_packets_errors(load):
    s = load.samples[2]
    assert sorted(s.nics) == ["eth0", "ifb0", "ifb1", "lo"]
    lo = s.nics["lo"]
    assert lo.rx_bps == pytest.approx(208636.16 * KIB)
    assert lo.tx_bps == pytest.approx(208636.16 * KIB)
    assert (lo.rx_pps, lo.tx_pps) == (5316.0, 5316.0)
    assert (lo.rx_errs, lo.tx_errs, lo.rx_drop, lo.tx_drop) == (0.0, 0.0, 0.0, 0.0)


def test_plain_options_names():
    """Plain `-u` names usr/sys `user`/`system`, and system includes irq and soft; plain
    `-r` has no slab, so the total comes from memused-percent (2 decimals); no EDEV."""
    plain = parse_sadf_json(PLAIN.read_text())
    s = plain.samples[2]
    assert (s.cpu.usr, s.cpu.sys, s.cpu.idle) == (13.76, 71.96, 13.76)  # 65.61 + 6.35 soft
    assert s.cpu.irq is s.cpu.soft is None
    assert s.mem.slab_bytes is None
    assert s.mem.total_bytes == pytest.approx(24684100 * KIB, rel=5e-4)
    assert s.nics["lo"].rx_errs is None
    assert s.disks["vda"].iops == 59139.0


def test_one_reading_gives_no_sample():
    one = parse_sadf_json(ONE.read_text())
    assert (one.host, one.ncpu, one.samples, one.interval_s) == ("vm", 2, [], None)
    text = write_samples_json(one)
    assert json.loads(text) == {"host": "vm", "interval_s": None, "ncpu": 2, "samples": []}
    summary = summarise(one)
    assert summary["samples"] == 0 and summary["disks"] == {} and summary["nics"] == {}
    assert summary["cpu"]["busy_max_pct"] is None


def test_cut_last_record_keeps_the_complete_ones(load):
    cut = parse_sadf_json(CUT_RECORD.read_text())
    assert cut.samples == load.samples[:6]
    assert "End of system activity file unexpected" in CUT_RECORD.with_suffix(".stderr").read_text()


def test_cut_header_is_an_error():
    with pytest.raises(ValueError, match="not complete JSON"):
        parse_sadf_json(CUT_HEADER.read_text())


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("End of system activity file unexpected\n", "not complete JSON"),
    ("[1, 2]", "document is not an object"),
    ('{"foo": 1}', "sysstat is not an object"),
    ('{"sysstat": {"hosts": []}}', "expected one host, found 0"),
    ('{"sysstat": {"hosts": [{"statistics": []}]}}', "without nodename"),
])
def test_garbage(text, message):
    with pytest.raises(ValueError, match=message):
        parse_sadf_json(text)


def _edited(edit) -> str:
    doc = json.loads(LOAD.read_text())
    edit(doc["sysstat"]["hosts"][0])
    return json.dumps(doc)


def test_bad_values_are_errors():
    def text_number(host):
        host["statistics"][0]["disk"][1]["tps"] = "many"

    def local_time(host):
        host["timezone"] = "CET"
        host["statistics"][0]["timestamp"]["utc"] = 0

    def no_idle(host):
        del host["statistics"][0]["cpu-load"][0]["idle"]

    with pytest.raises(ValueError, match=r"disk\[vda\].tps is not a number"):
        parse_sadf_json(_edited(text_number))
    with pytest.raises(ValueError, match="local timestamps"):
        parse_sadf_json(_edited(local_time))
    with pytest.raises(ValueError, match="has no idle"):
        parse_sadf_json(_edited(no_idle))


def test_summary_figures(load):
    s = summarise(load, {"lo": 10000.0})
    assert (s["host"], s["samples"], s["seconds"], s["ncpu"]) == ("vm", 7, 7.0, 2)
    cpu = s["cpu"]
    idles = [47.13, 36.56, 13.76, 17.44, 19.68, 24.08, 46.63]
    assert cpu["busy_max_pct"] == 86.24
    assert cpu["busy_mean_pct"] == pytest.approx(100 - sum(idles) / 7)
    assert cpu["iowait_max_pct"] == 0.57
    assert cpu["iowait_mean_pct"] == pytest.approx((0.57 + 0 + 0.53 + 0.51 + 0.53 + 0.52 + 0.56) / 7)
    assert cpu["core_busy_max_pct"] == {"0": 85.11, "1": 89.36}
    assert list(s["disks"]) == ["vda"]  # loop0 did no I/O
    vda = s["disks"]["vda"]
    assert vda["util_max_pct"] == 81.2
    assert vda["iops_max"] == 59139.0
    assert vda["iops_mean"] == pytest.approx((318 + 4534 + 59139 + 58962 + 56723 + 52329 + 284) / 7)
    wkb = [111404, 103832, 347380, 321552, 324800, 307252, 99028]
    assert vda["write_bps_mean"] == pytest.approx(sum(wkb) / 7 * KIB)
    assert vda["read_bps_mean"] == pytest.approx((4 + 16 + 0 + 4 + 0 + 4 + 0) / 7 * KIB)
    assert list(s["nics"]) == ["lo"]  # eth0, ifb0, ifb1 moved nothing
    lo = s["nics"]["lo"]
    assert lo["rx_bps_max"] == pytest.approx(208636.16 * KIB)
    assert lo["rx_max_pct_of_link"] == pytest.approx(208636.16 * KIB * 8 / 1e10 * 100)
    assert lo["speed_mbps"] == 10000.0
    assert (lo["rx_errs"], lo["tx_errs"], lo["rx_drop"], lo["tx_drop"]) == (0, 0, 0, 0)
    assert s["mem"]["used_max_bytes"] == 2832848 * KIB
    assert s["mem"]["total_bytes"] == 24684100 * KIB
    assert summarise(load)["nics"]["lo"]["rx_max_pct_of_link"] is None


def test_error_totals_use_the_intervals(load):
    """EDEV rates are per second: the summary counts them over each sample's interval."""
    def errors(host):
        for i, stat in enumerate(host["statistics"][:3]):
            stat["timestamp"]["interval"] = 2 if i == 0 else 1
            stat["network"]["net-edev"][0]["rxdrop"] = 1.5
            stat["network"]["net-edev"][3]["txerr"] = 2.0  # eth0: no traffic, but errors

    s = summarise(parse_sadf_json(_edited(errors)))
    assert s["nics"]["lo"]["rx_drop"] == 6  # 1.5 x (2 + 1 + 1)
    assert s["nics"]["eth0"]["tx_errs"] == 8
    assert s["seconds"] == 8.0


def test_samples_file_shape(load):
    doc = json.loads(write_samples_json(load))
    assert list(doc) == ["host", "interval_s", "ncpu", "samples"]
    assert (doc["host"], doc["interval_s"], doc["ncpu"], len(doc["samples"])) == ("vm", 1.0, 2, 7)
    s = doc["samples"][2]
    assert list(s) == ["t", "cpu", "cpus", "mem", "disks", "nics"]
    assert s["t"] == 1795330946.0
    assert s["cpu"] == {"usr": 13.76, "sys": 65.61, "iowait": 0.53, "idle": 13.76}
    assert s["cpus"]["1"] == {"usr": 7.37, "sys": 67.37, "iowait": 1.05, "idle": 12.63}
    assert s["mem"] == {"total_bytes": 24684100 * KIB, "used_bytes": 2822072 * KIB,
                        "cached_bytes": 2825144 * KIB, "avail_bytes": 21503460 * KIB}
    assert s["disks"]["vda"] == {"iops": 59139.0, "read_bps": 0.0, "write_bps": 347380.0 * KIB,
                                 "util_pct": 78.4, "await_ms": 0.06}
    assert list(s["nics"]["lo"]) == ["rx_bps", "tx_bps", "rx_pps", "tx_pps", "rx_errs", "tx_errs",
                                     "rx_drop", "tx_drop"]
    assert s["nics"]["lo"]["rx_pps"] == 5316.0
