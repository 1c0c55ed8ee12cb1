"""`ipmitool mc info` and `ipmitool chassis status` -> BmcInfo, ChassisStatus.

Both print `Name : value` lines; only the names below are read. `mc info` says who made
the BMC and its firmware (ipmitool prints 'Unknown (0x1291)' for a manufacturer it has no
name for); `chassis status` says whether the machine is powered and which faults the
chassis latches (power overload, main power, power control, drive, cooling/fan), and
whether its intrusion switch or power interlock is active.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard
from stackprobe.schema.bmc_records import BmcInfo, ChassisStatus

_LINE = re.compile(r"^([A-Za-z][A-Za-z /.-]*?)\s*:\s*(.*?)\s*$")
_NUMBER = re.compile(r"^(\d{1,10})\b")
_FAULTS = ("Power Overload", "Main Power Fault", "Power Control Fault", "Drive Fault",
           "Cooling/Fan Fault")
_ACTIVE = ("Chassis Intrusion", "Power Interlock")


def _fields(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2)
    return out


def _int(value: str | None) -> int | None:
    m = _NUMBER.match(value or "")
    return int(m.group(1)) if m else None


@guard("ipmitool mc info")
def parse_ipmitool_mc_info(text: str) -> BmcInfo:
    f = _fields(text)
    if "Firmware Revision" not in f and "Device ID" not in f:
        raise ValueError("ipmitool mc info: no 'Device ID' or 'Firmware Revision' line")
    return BmcInfo(device_id=_int(f.get("Device ID")), firmware=f.get("Firmware Revision") or None,
                   ipmi_version=f.get("IPMI Version") or None,
                   manufacturer_id=_int(f.get("Manufacturer ID")),
                   manufacturer=f.get("Manufacturer Name") or None,
                   product_id=_int(f.get("Product ID")), product=f.get("Product Name") or None)


@guard("ipmitool chassis status")
def parse_ipmitool_chassis(text: str) -> ChassisStatus:
    f = _fields(text)
    power = f.get("System Power")
    if power is None:
        raise ValueError("ipmitool chassis status: no 'System Power' line")
    faults = [name for name in _FAULTS if f.get(name, "").lower() == "true"]
    faults += [name for name in _ACTIVE if f.get(name, "").lower() == "active"]
    return ChassisStatus(power_on={"on": True, "off": False}.get(power.lower()), faults=faults)
