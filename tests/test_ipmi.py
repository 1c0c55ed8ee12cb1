"""The ipmi kind's pure parts: ipmitool's outputs parsed (public outputs of real servers and
outputs recorded from ipmi_sim here), thresholds judged, SEL errors named, new events found,
failures told apart, the password kept off the command line, and the criteria."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from stackprobe.analysis.bmc_events import new_since
from stackprobe.kinds.checks import Check
from stackprobe.kinds.host.ipmi_checks import CHECKS
from stackprobe.kinds.host.ipmi_command import PasswordMissing, failure, ipmitool_argv
from stackprobe.kinds.registry import checks
from stackprobe.parsers.host.ipmitool_mc import parse_ipmitool_chassis, parse_ipmitool_mc_info
from stackprobe.parsers.host.ipmitool_sel import parse_ipmitool_sel
from stackprobe.parsers.host.ipmitool_sensor import parse_ipmitool_sensor
from stackprobe.schema.bmc_records import BmcRecord, ChassisStatus
from stackprobe.schema.results import StepResult
from stackprobe.spec.bmc import BmcSettings
from stackprobe.spec.hosts import HostsFile

FIX = Path(__file__).parent / "fixtures"
PUBLIC = FIX / "public" / "ipmitool"
RECORDED = FIX / "recorded" / "ipmitool"


def _read(path: Path) -> str:
    return path.read_text()


def test_public_sensor_lists_real_servers():
    hpe = parse_ipmitool_sensor(_read(PUBLIC / "hpe-dl360p-g8_sensor.txt"))
    assert len(hpe) == 10
    inlet = next(s for s in hpe if s.name == "01-Inlet Ambient")
    assert (inlet.value, inlet.unit, inlet.status) == (32.0, "degrees C", "ok")
    assert inlet.thresholds == {"unc": 40.0, "ucr": 42.0, "unr": 46.0}
    assert hpe[0].discrete and hpe[0].state == "0x1" and hpe[0].value is None
    assert not [s for s in hpe if s.out_of_range]
    other = parse_ipmitool_sensor(_read(PUBLIC / "home-assistant-ipmi-33_sensor.txt"))
    margin = next(s for s in other if s.name == "CPU0_Margin_Temp")
    assert margin.thresholds == {"lcr": 1.0, "lnc": 2.0} and margin.out_of_range is None


def test_a_reading_beyond_a_threshold_names_the_farthest_one():
    line = "Inlet | {v} | degrees C | {st} | na | 5.000 | 10.000 | 38.000 | 42.000 | 50.000\n"
    over = parse_ipmitool_sensor(line.format(v="45.000", st="cr"))[0]
    assert over.out_of_range == "45 degrees C > ucr 42"
    low = parse_ipmitool_sensor(line.format(v="4.000", st="cr"))[0]
    assert low.out_of_range == "4 degrees C < lcr 5"
    says = parse_ipmitool_sensor(line.format(v="30.000", st="nc"))[0]
    assert says.out_of_range == "30 degrees C, status nc (non-critical)"
    # HPE iLO: 'unr 0.000' beside 'ucr 78.000' is a placeholder, not a limit
    hpe = "15.2-PCI 1-SFP28 | 41.000 | degrees C | ok | na | na | na | 73.000 | 78.000 | 0.000"
    assert parse_ipmitool_sensor(hpe)[0].out_of_range is None


def test_public_sel_and_mc_info():
    sel = parse_ipmitool_sel(_read(PUBLIC / "hp-proliant_sel-list.txt"))
    assert [(e.id, e.sensor, e.direction, e.error) for e in sel] == [
        ("0", "Memory #0x2b", "Asserted", True), ("1", "Memory #0x2b", "Asserted", True)]
    info = parse_ipmitool_mc_info(_read(PUBLIC / "hp-ilo3_mc-info.txt"))
    assert (info.firmware, info.manufacturer, info.manufacturer_id, info.product_id) == (
        "1.28", "Hewlett-Packard", 11, 8192)


@pytest.mark.parametrize(("event", "direction", "error"), [
    ("Upper Critical going high", "Asserted", True),
    ("Upper Non-critical going high", "Asserted", False),
    ("Upper Critical going high", "Deasserted", False),
    ("Failure detected", "Asserted", True),
    ("Presence detected", "Asserted", False),
    ("Uncorrectable ECC", None, True),
])
def test_which_sel_events_are_errors(event, direction, error):
    line = f"   a | 10/04/2018 | 07:28:04 | Temperature #0x03 | {event}" + (
        f" | {direction}" if direction else "")
    assert parse_ipmitool_sel(line)[0].error is error


def test_sel_pre_init_and_empty():
    pre = parse_ipmitool_sel("   2 | Pre-Init  |0000005616| Power Unit #0x51 | Power off/down | Asserted")
    assert (pre[0].date, pre[0].time, pre[0].error) == ("Pre-Init", "0000005616", False)
    assert parse_ipmitool_sel("SEL has no entries\n") == []


def test_recorded_from_ipmi_sim():
    sensors = parse_ipmitool_sensor(_read(RECORDED / "ipmi_sim_sensor.stdout"))
    bad = [(s.name, s.out_of_range) for s in sensors if s.out_of_range]
    assert bad == [("Inlet Temp", "45 degrees C > ucr 42")]
    sel = parse_ipmitool_sel(_read(RECORDED / "ipmi_sim_sel-elist.stdout"))
    assert [e.event for e in sel if e.error] == ["Failure detected"]
    info = parse_ipmitool_mc_info(_read(RECORDED / "ipmi_sim_mc-info.stdout"))
    assert info.firmware == "9.08"
    chassis = parse_ipmitool_chassis(_read(RECORDED / "ipmi_sim_chassis-status.stdout"))
    assert chassis.faults == []


def test_chassis_faults():
    text = ("System Power         : on\nPower Overload       : false\nMain Power Fault     : true\n"
            "Chassis Intrusion    : active\nCooling/Fan Fault    : false\n")
    assert parse_ipmitool_chassis(text) == ChassisStatus(
        power_on=True, faults=["Main Power Fault", "Chassis Intrusion"])


@pytest.mark.parametrize(("parse", "text"), [
    (parse_ipmitool_sensor, "not | a | sensor\n"),
    (parse_ipmitool_sensor, "x | 1e999 | C | ok | na | na | na | na | na | na"),
    (parse_ipmitool_sel, "zz | 01/01/2020 | 00:00:00 | Fan | Failure | Asserted"),
    (parse_ipmitool_sel, "hello world"),
    (parse_ipmitool_mc_info, "Error: Unable to establish IPMI v2 / RMCP+ session\n"),
    (parse_ipmitool_chassis, "Device ID : 1\n"),
])
def test_bad_input_is_one_line(parse, text):
    with pytest.raises(ValueError) as err:
        parse(text)
    assert "\n" not in str(err.value) and str(err.value).startswith("ipmitool")


def _entries(ids):
    return parse_ipmitool_sel("\n".join(
        f"{i} | 11/24/2026 | 20:0{n}:00 | Fan #0x30 | Failure detected | Asserted"
        for n, i in enumerate(ids)))


def test_new_events_since_an_id_or_a_time():
    from datetime import datetime

    log = _entries(["1", "2", "a", "b"])
    assert [e.id for e in new_since(log, "2").entries] == ["a", "b"]
    assert [e.id for e in new_since(log, "0x000b").entries] == []
    gone = new_since(log, "ff")
    assert gone.cleared and len(gone.entries) == 4
    first = new_since(log, "0")
    assert not first.cleared and len(first.entries) == 4
    assert [e.id for e in new_since(log, after=datetime(2026, 11, 24, 20, 1, 30)).entries] == ["a", "b"]


def test_failures_told_apart():
    """ipmitool -v's stderr, recorded against ipmi_sim (RECORDED.md): a closed port, a wrong
    password and an unknown user all end in the same last line; the line before differs."""
    lan = BmcSettings(user="admin", port=9, password_env="X")
    closed = failure(_read(RECORDED / "closed-port_mc-info.stderr"), 1, "127.0.0.1", lan)
    assert closed == ("BMC at 127.0.0.1:9 does not answer (nothing listening there, or the "
                      "network drops IPMI)")
    refused = "BMC at 127.0.0.1:9 refused the login of user 'admin' (wrong user or password?)"
    for name in ("ipmi_sim_wrong-password_mc-info.stderr", "ipmi_sim_unknown-user_mc-info.stderr"):
        assert failure(_read(RECORDED / name), 1, "127.0.0.1", lan) == refused


def test_the_password_never_goes_on_the_command_line(monkeypatch):
    monkeypatch.setenv("BMC_PW", "s3cret-pass-word")
    argv, env = ipmitool_argv("10.99.0.5", BmcSettings(user="admin", password_env="BMC_PW",
                                                       cipher_suite=3))
    assert "-E" in argv and "-P" not in argv and "s3cret-pass-word" not in " ".join(argv)
    assert env == {"IPMI_PASSWORD": "s3cret-pass-word"}
    argv, env = ipmitool_argv("h", BmcSettings(password_file="/root/pw"))
    assert argv[-2:] == ["-f", "/root/pw"] and env == {}
    monkeypatch.delenv("BMC_PW")
    with pytest.raises(PasswordMissing, match="BMC_PW"):
        ipmitool_argv("h", BmcSettings(password_env="BMC_PW"))
    assert ipmitool_argv("", BmcSettings(interface="open")) == (["ipmitool", "-I", "open"], {})


def test_hosts_file_refuses_a_password():
    entry = {"name": "b", "access": "management", "address": "10.0.0.1",
             "bmc": {"user": "admin", "password": "x"}}
    with pytest.raises(ValidationError, match="never in the hosts file"):
        HostsFile(hosts=[entry])
    with pytest.raises(ValidationError, match="give one of them"):
        BmcSettings(password_env="A", password_file="/x")


def _step(records) -> StepResult:
    return StepResult(id="ipmi", index=0, name="ipmi", kind="ipmi", title="BMC", status="ok",
                      layer="hardware",
                      params={}, records=records, hosts=[r.host for r in records])


def test_criteria_name_what_they_found():
    sel = _entries(["1"])
    sensors = parse_ipmitool_sensor(_read(RECORDED / "ipmi_sim_sensor.stdout"))
    good = BmcRecord(host="b1", address="127.0.0.1:9001", reachable=True, sensors=sensors,
                     sel=sel, chassis=ChassisStatus(power_on=True))
    gone = BmcRecord(host="b2", address="127.0.0.1:9", reachable=False, problem="does not answer")
    step = _step([good, gone])
    by = {c.phrase: c for c in CHECKS}
    assert all(isinstance(checks().find(p), Check) for p in by)
    answers = by["every bmc answers"].outcomes(None, [step])
    assert [o.ok for o in answers] == [True, False] and "does not answer" in answers[1].measured
    out = [o for o in by["no sensor out of range"].outcomes(None, [step]) if not o.ok]
    assert [o.measured for o in out] == ["b1 Inlet Temp: 45 degrees C > ucr 42"]
    errors = by["no sel error"].outcomes(None, [step])
    assert [o.measured for o in errors] == ["b1: SEL 1 Fan #0x30: Failure detected"]
    assert [o.ok for o in by["no chassis fault"].outcomes(None, [step])] == [True]
