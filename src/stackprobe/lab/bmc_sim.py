"""What the BMC lab's ipmi_sim is told to be: its lan.conf, its .emu and its SDRs.

Why these sensors: a BMC worth checking reports each kind of reading a real one does —
temperatures, a fan, a voltage rail, a power supply — and the lab needs one of each finding
the `ipmi` kind looks for: 'Inlet Temp' reads 45 degrees C above its upper critical
threshold of 42 (status cr), and the System Event Log already holds one error, the power
supply's 'Failure detected'. The rest read within their thresholds.

Names keep a lower-case letter: sdrcomp packs an all-capitals name ('FAN1') as 6-bit
ASCII, which ipmitool prints as garbage. OpenIPMI's lanserv documentation (lan.conf, ipmisim1.emu, ipmi_sim_cmd(5)) describes the
commands; sensor values and thresholds are raw bytes, turned into units by the SDR's
linear conversion (value = M × raw × 10^r_exp): M=1 for degrees, M=100 for RPM, M=6 with
r_exp -2 for volts.
"""

from __future__ import annotations

from dataclasses import dataclass

BMC_ADDR = "0x20"
USER = "admin"
PSU_SENSOR = 5


@dataclass(frozen=True)
class SimSensor:
    """A threshold sensor: raw value and thresholds (None: not set), its SDR's conversion."""

    number: int
    name: str
    sensor_type: str  # sdrcomp's name and the IPMI type byte
    type_code: int
    unit: str
    m: int
    r_exp: int
    raw: int
    thresholds: tuple[int | None, ...]  # lnr lcr lnc unc ucr unr


SENSORS = (
    SimSensor(1, "CPU Temp", "Temperature", 0x01, "degrees_C", 1, 0, 48,
              (None, None, None, 85, 90, 95)),
    SimSensor(2, "Inlet Temp", "Temperature", 0x01, "degrees_C", 1, 0, 45,
              (None, None, None, 38, 42, 50)),
    SimSensor(3, "System Fan 1", "Fan", 0x04, "RPM", 100, 0, 54, (3, 5, 8, None, None, None)),
    SimSensor(4, "12V Rail", "Voltage", 0x02, "Volts", 6, -2, 200, (170, 180, 190, 210, 220, 230)),
)
OVER_THRESHOLD = "Inlet Temp"
PSU_NAME = "PSU1 Status"
_SDR_NAMES = ("lnr", "lc", "lnc", "unc", "uc", "unr")


def lan_conf(name: str, port: int, password: str) -> str:
    """One LAN channel on 127.0.0.1:port, one admin user (IPMI 1.5 and 2.0 logins)."""
    auths = "none md2 md5 straight"
    return "\n".join([
        f'name "{name}"', f"set_working_mc {BMC_ADDR}", "  startlan 1",
        f"    addr 127.0.0.1 {port}", "    priv_limit admin",
        *(f"    allowed_auths_{who} {auths}" for who in ("callback", "user", "operator", "admin")),
        "    guid a123456789abcdefa123456789abcdef", "  endlan",
        f'  user 2 true "{USER}" "{password}" admin 10 {auths}', ""])


def _emu_order(values: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """lnr lcr lnc unc ucr unr as sensor_set_threshold takes them: value5 (unr) down to
    value0 (lnc) — upper non-recoverable, critical, non-critical, then lower
    non-recoverable, critical, non-critical."""
    lnr, lcr, lnc, unc, ucr, unr = values
    return (unr, ucr, unc, lnr, lcr, lnc)


def emu(sel_time: int) -> str:
    """The BMC, its sensors with values and thresholds, the SEL with one PSU failure."""
    lines = [f"mc_setbmc {BMC_ADDR}",
             f"mc_add {BMC_ADDR} 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr",
             f"sel_enable {BMC_ADDR} 1000 0x0a"]
    for s in SENSORS:
        order = _emu_order(s.thresholds)
        bits = "".join("0" if v is None else "1" for v in order)
        raw = " ".join(f"0x{(v or 0):02x}" for v in order)
        lines += [f"sensor_add {BMC_ADDR} 0 {s.number} 0x{s.type_code:02x} 0x01",
                  f"sensor_set_threshold {BMC_ADDR} 0 {s.number} settable {bits} {raw}",
                  f"sensor_set_value {BMC_ADDR} 0 {s.number} {s.raw} 0"]
    lines += [f"sensor_add {BMC_ADDR} 0 {PSU_SENSOR} 0x08 0x6f",
              f"sensor_set_bit_clr_rest {BMC_ADDR} 0 {PSU_SENSOR} 0 0"]
    stamp = " ".join(f"0x{(sel_time >> (8 * i)) & 0xff:02x}" for i in range(4))
    # a system event (record type 2): generator 0x20, EvM 4, power supply sensor, sensor-
    # specific assertion (0x6f), offset 1: 'Power Supply Failure detected'
    lines += [f"sel_add {BMC_ADDR} 0x02 {stamp} 0x20 0x00 0x04 0x08 0x{PSU_SENSOR:02x} 0x6f "
              "0x01 0xff 0xff", f"mc_enable {BMC_ADDR}", ""]
    return "\n".join(lines)


def sdrs() -> str:
    """sdrcomp input: the BMC's own record and one full sensor record per sensor."""
    out = ["sdr type 18", "\tdevice_slave_address 0x20", "\tdevice_channel_number 0",
           "\tchassis true", "\tsel true", "\tsdr true", "\tsensor true",
           "\tfru_inventory false", "\tentity_id system_board", "\tentity_instance 1",
           '\tid_string "stackprobe lab BMC"', "endsdr"]
    for s in SENSORS:
        out += ["sdr type 1", "\tsensor_owner_id 0x20", "\tsensor_owner_lun 0",
                "\tchannel_number 0", f"\tsensor_number {s.number}",
                "\tentity_id system_board", "\tentity_instance 1",
                f"\tsensor_type {s.sensor_type}", "\tinit_scanning true", "\tinit_events true",
                "\tinit_thresholds true", "\tinit_sensor_type true",
                "\tdefault_event_gen_on true", "\tdefault_sensor_scan_on true",
                "\tevent_reading_type_code 1", "\tsensor_threshold_access readable",
                "\tanalog_data_format unsigned", "\trate_unit none", "\tmodifier_unit none",
                "\tpercentage false", f"\tbase_unit {s.unit}",
                "\tmodifier_unit_code unspecified", "\tlinearization linear",
                f"\tm {s.m}", "\ttolerance 0", "\tb 0", "\taccuracy 1", "\taccuracy_exp 0",
                "\tsensor_direction input", f"\tr_exp {s.r_exp}", "\tb_exp 0",
                "\tsensor_maximum 255", "\tsensor_minimum 0"]
        for name, value in zip(_SDR_NAMES, s.thresholds, strict=True):
            if value is not None:
                out += [f"\t{name}_thrsh_readable true", f"\t{name}_thresh {value}"]
        out += [f'\tid_string "{s.name}"', "endsdr"]
    out += ["sdr type 2", "\tsensor_owner_id 0x20", "\tsensor_owner_lun 0",
            "\tchannel_number 0", f"\tsensor_number {PSU_SENSOR}", "\tentity_id power_supply",
            "\tentity_instance 1", "\tsensor_type Power_Supply", "\tinit_scanning true",
            "\tinit_events true", "\tinit_sensor_type true", "\tdefault_event_gen_on true",
            "\tdefault_sensor_scan_on true", "\tevent_reading_type_code 0x6f",
            f'\tid_string "{PSU_NAME}"', "endsdr", ""]
    return "\n".join(out)
