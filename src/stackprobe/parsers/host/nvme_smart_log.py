"""`nvme smart-log -o json <namespace>` (nvme-cli) -> the disk's health and error counters.

The field names follow nvme-cli, and changed across its versions (its nvme-print-json.c):
1.x prints `critical_warning` as a number and the 128-bit counters as floats
(`"media_errors": 0.0`); 2.x prints `critical_warning` as an object whose `value` is the
bit field, and whole numbers. Both spell wear `percent_used` (smartctl: `percentage_used`),
and the temperature is in kelvin (smartctl: Celsius). Some builds print large counters as
strings; a string of digits is taken as the number it spells.
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import guard, load_json
from stackprobe.parsers.host.smartctl_json import NVME_COUNTERS, DiskReading, count
from stackprobe.schema.health_records import DiskHealth

_KELVIN = 273.15


def _number(value, where: str) -> int:
    """A count as nvme-cli writes it: an int, a whole float (1.x), or digits in a string."""
    if isinstance(value, float) and value.is_integer() and 0 <= value < 2**63:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return count(int(value.strip()), where)
    return count(value, where)


@guard("nvme smart-log")
def parse_nvme_smart_log(text: str, name: str = "nvme") -> DiskReading:
    """One namespace's reading; `name` is its kernel name ('nvme0n1')."""
    doc = load_json(text, "nvme smart-log", dict)
    if "critical_warning" not in doc or "media_errors" not in doc:
        raise ValueError("nvme smart-log: no critical_warning or media_errors: not a smart log")
    warning = doc["critical_warning"]
    if isinstance(warning, dict):  # nvme-cli 2.x: the bits spelled out beside their value
        warning = warning.get("value")
    disk = DiskHealth(name=name, source="nvme smart-log", protocol="NVMe",
                      critical_warning=_number(warning, "nvme smart-log: critical_warning"))
    used = doc.get("percent_used", doc.get("percentage_used"))
    disk.percentage_used = None if used is None else _number(used, "nvme smart-log: percent_used")
    temp = doc.get("temperature")
    if temp is not None:
        kelvin = _number(temp, "nvme smart-log: temperature")
        disk.temperature_c = round(kelvin - _KELVIN, 1) if kelvin else None
    hours = doc.get("power_on_hours")
    disk.power_on_hours = None if hours is None else _number(hours, "nvme smart-log: power_on_hours")
    counters = {f"{name} {what}": _number(doc[key], f"nvme smart-log: {key}")
                for key, what in NVME_COUNTERS.items() if key in doc}
    return DiskReading(disk, counters)
