"""Health counters: the parsers on public and recorded outputs, the deltas between two
snapshots, and the probe script on recorded trees (sh only: the fast tier).

The trees under tmp_path are made here from the public smartctl outputs, with the counters a
failing machine would show written into them (a DIMM's corrected errors, a disk's
reallocated sectors): the probe reads them as it reads a live host, so before/after rises are
tested for real on the same code path as the run-level watch.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES
from stackprobe.analysis.health_delta import (
    StepWindow,
    absolute_findings,
    compare_runs,
    sel_findings,
    step_at,
)
from stackprobe.kinds.host.health_probe_script import probe_argv
from stackprobe.parsers.host.edac import parse_edac
from stackprobe.parsers.host.health_probe import parse_health_probe
from stackprobe.parsers.host.kmsg import parse_kmsg, why_error
from stackprobe.parsers.host.nvme_smart_log import parse_nvme_smart_log
from stackprobe.parsers.host.smartctl_json import parse_smartctl_json
from stackprobe.schema.bmc_records import SelEntry

SMART = FIXTURES / "public" / "smartctl"
RECORDED = FIXTURES / "recorded"


def test_smartctl_ata_with_reallocated_sectors():
    r = parse_smartctl_json((SMART / "ST3500418AS_12.json").read_text(), name="sda")
    assert r.disk.protocol == "ATA" and r.disk.passed is True
    assert r.counters["sda reallocated sectors"] == 304
    assert r.counters["sda pending sectors"] == 0
    assert r.counters["sda reported uncorrectable errors"] == 0
    assert r.disk.temperature_c is not None and r.disk.power_on_hours


def test_smartctl_scsi_grown_defects_and_uncorrected():
    r = parse_smartctl_json((SMART / "HITACHI_H109060SESUN600G_10.json").read_text(), name="sdb")
    assert r.disk.protocol == "SCSI" and r.disk.model == "HITACHI H109060SESUN600G"
    assert r.counters == {"sdb grown defects": 0, "sdb read uncorrected errors": 0,
                          "sdb write uncorrected errors": 0, "sdb verify uncorrected errors": 0}
    assert r.disk.temperature_c == 26 and r.disk.power_on_hours == 22364


def test_smartctl_nvme_failed_with_critical_warning():
    r = parse_smartctl_json(
        (SMART / "nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json").read_text(), name="nvme0n1")
    assert r.disk.passed is False and r.disk.critical_warning == 16
    assert "nvme0n1 media errors" in r.counters
    healthy = parse_smartctl_json((SMART / "SAMSUNG_MZVL21T0HCLR-00B00_23.json").read_text())
    assert healthy.disk.name == "nvme0" and healthy.disk.percentage_used == 16
    assert absolute_findings_of(r) == ["h: nvme0n1 SMART overall health FAILED",
                                       "h: nvme0n1 NVMe critical warning 0x10"]


def absolute_findings_of(reading):
    from stackprobe.schema.health_records import HealthRecord
    return absolute_findings(HealthRecord(host="h", disks=[reading.disk]))


def test_smartctl_on_a_disk_it_cannot_identify_keeps_the_message():
    text = (RECORDED / "health_probe" / "vm-before_no-cursor.txt").read_text()
    body = text.split("### smart vda\n")[1].split("### kmsg")[0]
    r = parse_smartctl_json(body, name="vda")
    assert r.disk.problem == "/dev/vda: Unable to detect device type" and not r.counters


def test_nvme_smart_log_of_a_real_drive():
    """nvme-cli 1.x's own layout, from a captured drive (public/SOURCES.md)."""
    text = (FIXTURES / "public" / "nvme" / "nvme-cli-1.x_smart-log_json_dell-server-nvme0n1.json"
            ).read_text()
    r = parse_nvme_smart_log(text, name="nvme0n1")
    assert r.disk.critical_warning == 0 and r.disk.percentage_used == 15
    assert r.disk.temperature_c == pytest.approx(301 - 273.15, abs=0.05)  # kelvin, 0.1 C
    assert r.disk.power_on_hours == 38313
    assert r.counters == {"nvme0n1 media errors": 0, "nvme0n1 error log entries": 17}


@pytest.mark.parametrize("name, warning, media, temp", [
    ("nvme-cli-1.x_old-style.json", 0, 0, 27.9),
    ("nvme-cli-2.x_new-style_critical-warning.json", 16, 2, 39.9)])
def test_nvme_smart_log_both_field_styles(name, warning, media, temp):
    r = parse_nvme_smart_log((FIXTURES / "synthetic" / "nvme_smart_log" / name).read_text(),
                             name="nvme0n1")
    assert r.disk.critical_warning == warning and r.disk.temperature_c == temp
    assert r.counters["nvme0n1 media errors"] == media


def test_edac_counts_named_per_controller_and_dimm():
    counts = parse_edac("mc0/ce_count:3\nmc0/ue_count:0\nmc0/dimm2/dimm_ce_count:3\n"
                        "mc1/csrow0/ue_count:1\n")
    assert counts == {"EDAC mc0 corrected errors": 3, "EDAC mc0 uncorrected errors": 0,
                      "EDAC mc0/dimm2 corrected errors": 3,
                      "EDAC mc1/csrow0 uncorrected errors": 1}
    with pytest.raises(ValueError, match="edac line 1"):
        parse_edac("mc0/ce_count:lots")


def test_kmsg_records_and_which_are_errors():
    lines = parse_kmsg((RECORDED / "kmsg" / "vm-kmsg-tail.txt").read_text())
    assert len(lines) == 40 and all(ln.seq for ln in lines)
    errors = [ln for ln in lines if why_error(ln.level, ln.text)]
    assert [(e.level, e.facility, why_error(e.level, e.text)) for e in errors] == [
        (3, 1, "I/O error")]  # the test line; the labs' bridge lines are not errors
    raw = parse_kmsg((RECORDED / "kmsg" / "vm-dmesg-raw-tail.txt").read_text(), "dmesg")
    assert raw[0].seq is None and raw[0].usec == 68150092214
    assert why_error(6, "ixgbe 0000:01:00.0 eth2: NIC Link is Down") == "link down"
    assert why_error(4, "nvme nvme0: I/O 12 QID 3 timeout, aborting") == "nvme timeout"
    assert why_error(2, "something critical") == "level crit"
    assert why_error(6, "EXT4-fs (vda1): mounted filesystem") is None
    with pytest.raises(ValueError, match="kmsg line 1"):
        parse_kmsg("6,x,1,-;text")


def test_recorded_probe_reads_whole_and_finds_the_test_line():
    before = parse_health_probe((RECORDED / "health_probe" / "vm-before_no-cursor.txt").read_text(),
                                host="vm")
    assert before.kmsg_source == "kmsg" and before.kmsg_cursor == 12811
    assert not before.kernel_errors and "eth0 rx_crc_errors" in before.counters
    after = parse_health_probe(
        (RECORDED / "health_probe" / "vm-after_with-test-io-error.txt").read_text(),
        host="vm", since=before.kmsg_cursor)
    (line,) = after.kernel_errors
    assert line.why == "I/O error" and line.wall and line.wall.startswith("2026-11-24T23:24")
    findings, compared = compare_runs([before], [after], [
        StepWindow("01-health", "2026-11-24T23:24:36Z", "2026-11-24T23:24:36Z"),
        StepWindow("02-rr", "2026-11-24T23:24:36Z", "2026-11-24T23:24:41Z")])
    assert compared == 13
    assert [f.sentence for f in findings] == [
        "vm kernel log: 'stackprobe test: I/O error, dev sdz, sector 42 (a test line, not a "
        "fault)' at 23:24:37, during step 02-rr (I/O error)"]


def test_a_probe_cut_short_is_refused_and_a_broken_part_loses_nothing_else():
    text = (RECORDED / "health_probe" / "vm-before_no-cursor.txt").read_text()
    with pytest.raises(ValueError, match="cut short"):
        parse_health_probe(text[: len(text) // 2])
    broken = text.replace('"json_format_version"', '"json_format_version" oops', 1)
    rec = parse_health_probe(broken, host="vm")
    assert rec.problems and rec.problems[0].startswith("smart vda: smartctl json")
    assert len(rec.counters) == 13 and rec.kmsg_cursor == 12811


def _tree(root: Path, ce: int, realloc: int, kmsg: list[str], uptime: float) -> None:
    edac = root / "sys/devices/system/edac/mc/mc0"
    edac.mkdir(parents=True)
    (edac / "ce_count").write_text(f"{ce}\n")
    (edac / "ue_count").write_text("0\n")
    for nic, device in (("eth0", True), ("veth1", False)):
        stats = root / "sys/class/net" / nic / "statistics"
        stats.mkdir(parents=True)
        (stats / "rx_crc_errors").write_text("5\n")
        if device:
            (root / "sys/class/net" / nic / "device").mkdir()
    port = root / "sys/class/infiniband/mlx5_0/ports/1/counters"
    port.mkdir(parents=True)
    (port / "symbol_error").write_text("0\n")
    doc = json.loads((SMART / "ST3500418AS_12.json").read_text())
    for attr in doc["ata_smart_attributes"]["table"]:
        if attr["id"] == 5:
            attr["raw"]["value"] = realloc
    (root / "commands").mkdir()
    (root / "commands" / "smartctl_sda.json").write_text(json.dumps(doc))
    (root / "kmsg.txt").write_text("".join(line + "\n" for line in kmsg))
    (root / "clock.txt").write_text(f"1790000000.5 {uptime}\n")


def _probe(root: Path, cursor=None):
    res = subprocess.run(probe_argv(str(root), cursor), capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    return parse_health_probe(res.stdout, host="h1", since=cursor)


def test_probe_on_recorded_trees_rises_said_as_sentences(tmp_path):
    _tree(tmp_path / "a", ce=0, realloc=8, kmsg=["6,10,1000,-;boot"], uptime=100.0)
    _tree(tmp_path / "b", ce=3, realloc=12, uptime=160.0, kmsg=[
        "6,10,1000,-;boot", "3,11,130000000,-;blk_update_request: I/O error, dev sdb, sector 1234",
        " SUBSYSTEM=block", "6,12,131000000,-;eth0: renamed"])
    before = _probe(tmp_path / "a")
    assert before.kmsg_cursor == 10 and before.counters["mlx5_0/1 symbol_error"].value == 0
    assert "veth1 rx_crc_errors" not in before.counters  # no device behind it
    assert before.counters["EDAC mc0 corrected errors"].source == "sysfs edac"
    after = _probe(tmp_path / "b", before.kmsg_cursor)
    findings, compared = compare_runs([before], [after],
                                      [StepWindow("02-fio", "2026-09-21T14:12:00Z", None)])
    sentences = [f.sentence for f in findings]
    assert "h1: EDAC mc0 corrected errors 0 -> 3 (+3)" in sentences
    assert "h1: sda reallocated sectors 8 -> 12 (+4)" in sentences
    (kernel,) = [f for f in findings if f.what == "kernel"]
    assert kernel.sentence == ("h1 kernel log: 'blk_update_request: I/O error, dev sdb, sector "
                               "1234' at 14:12:50, during step 02-fio (I/O error)")
    assert all(f.bad for f in findings) and compared == len(after.counters)


def test_counters_that_fell_and_devices_that_came_or_went(tmp_path):
    _tree(tmp_path / "a", ce=7, realloc=8, kmsg=[], uptime=5000.0)
    _tree(tmp_path / "b", ce=0, realloc=8, kmsg=[], uptime=30.0)
    (tmp_path / "b/commands/smartctl_sda.json").rename(tmp_path / "b/commands/smartctl_sdc.json")
    findings, _ = compare_runs([_probe(tmp_path / "a")], [_probe(tmp_path / "b")])
    said = {f.what: f.sentence for f in findings}
    assert findings[0].sentence.startswith("h1: rebooted during the run (uptime 5000 s -> 30 s)")
    fell = [f for f in findings if f.subject == "EDAC mc0 corrected errors"][0]
    assert fell.what == "fell" and "not a rise" in fell.sentence and not fell.bad
    assert said["gone"] == "h1: sda disappeared during the run (4 counters no longer read)"
    assert said["appeared"] == "h1: sdc appeared during the run (4 counters not there before)"


def test_step_at_and_sel_sentences():
    steps = [StepWindow("01-a", "2026-01-01T10:00:00Z", "2026-01-01T10:00:05Z"),
             StepWindow("02-b", "2026-01-01T10:00:06Z", None)]
    assert step_at("2026-01-01T10:00:03Z", steps) == "01-a"
    assert step_at("2026-01-01T10:00:09Z", steps) == "02-b"
    assert step_at("2026-01-01T09:59:59Z", steps) is None
    (f,) = sel_findings("bmc1", [SelEntry(id="5", sensor="Fan #0x03", event="Lower Critical going "
                                          "low", direction="Asserted")], steps)
    assert f.sentence == "bmc1 SEL: Fan #0x03: Lower Critical going low (Asserted) (entry 5)"


def test_health_step_on_recorded_trees_judges_what_a_value_alone_says(tmp_path):
    """`stackprobe run` of a health step reading a recorded tree (probe_root with {host}):
    the failed NVMe drive fails 'healthy hardware'; without the run's watch (--no-health)
    'no health counter rose' measured nothing."""
    import socket

    from conftest import run_cli

    root = tmp_path / "trees" / socket.gethostname()
    _tree(root, ce=0, realloc=0, kmsg=[], uptime=10.0)
    (root / "commands" / "smartctl_nvme0n1.json").write_text(
        (SMART / "nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json").read_text())
    (tmp_path / "s.yaml").write_text(
        "name: health-tree\ncriteria: [healthy hardware, no health counter rose]\nsteps:\n"
        f"  - kind: health\n    probe_root: {tmp_path}/trees/{{host}}\n")
    proc = run_cli(["run", tmp_path / "s.yaml", "--out", tmp_path / "runs", "--target", tmp_path,
                    "--no-health"], check=3)
    doc = json.loads(next((tmp_path / "runs").glob("*/results.json")).read_text())
    items = {i["rule"]: i for i in doc["verdict"]["items"]}
    assert items["healthy hardware"]["status"] == "fail"
    assert items["healthy hardware"]["measured"] == (
        f"{socket.gethostname()}: nvme0n1 SMART overall health FAILED; "
        f"{socket.gethostname()}: nvme0n1 NVMe critical warning 0x10")
    assert items["no health counter rose"]["status"] == "not measured"
    assert doc["health"] is None
    (rec,) = doc["steps"][0]["records"]
    assert rec["counters"]["sda reallocated sectors"] == {"value": 0, "source": "smartctl"}
    assert "Health counters (recorded trees)" in proc.stdout
