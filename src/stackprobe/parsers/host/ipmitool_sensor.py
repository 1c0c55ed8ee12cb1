"""`ipmitool sensor` (the list) -> BmcSensors: each reading beside its six thresholds.

Why `sensor` and not `sdr elist`: only `sensor` prints the thresholds, so a reading can be
checked against them here and the finding say by how much ('45 > ucr 40'), not only
ipmitool's status letters. Its line has ten '|'-separated columns: name, value, unit,
status, then lnr, lcr, lnc, unc, ucr, unr ('na' where the BMC has none). A discrete sensor
prints a state ('0x0') for its value, 'discrete' for its unit and its state bits
('0x0180') for its status; it has no thresholds and is never out of range here.

A sensor is out of range when ipmitool's status says so (nc, cr, nr: non-critical,
critical, non-recoverable, from the BMC's own comparison) or when its value lies beyond
one of its thresholds; the reason names the farthest threshold crossed. An upper threshold
below a nearer one (HPE iLO prints 'unr 0.000' beside 'ucr 75.000' for a threshold it does
not have) is not judged against, nor a lower one above a nearer one: `usable()`.
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.bmc_records import THRESHOLDS, BmcSensor

_COLUMNS = 4 + len(THRESHOLDS)
_BAD_STATUS = {"nc": "non-critical", "cr": "critical", "nr": "non-recoverable"}
_UPPER = ("unr", "ucr", "unc")  # the farthest first
_LOWER = ("lnr", "lcr", "lnc")


def _number(text: str, what: str) -> float | None:
    return None if text in ("na", "") else finite(text, what)


def usable(thresholds: dict[str, float]) -> dict[str, float]:
    """The thresholds in their order: unc <= ucr <= unr and lnc >= lcr >= lnr; one out of
    that order is a placeholder, not a limit."""
    out: dict[str, float] = {}
    for side, better in ((("unc", "ucr", "unr"), float.__ge__), (("lnc", "lcr", "lnr"), float.__le__)):
        last = None
        for name in side:
            if name in thresholds and (last is None or better(thresholds[name], last)):
                out[name] = last = thresholds[name]
    return out


def out_of_range(value: float | None, status: str, thresholds: dict[str, float],
                 unit: str) -> str | None:
    """Why a reading is out of range ('45 degrees C > ucr 40'), None when it is not."""
    thresholds = usable(thresholds)
    if value is not None:
        for name in _UPPER:
            if name in thresholds and value > thresholds[name]:
                return f"{value:g} {unit} > {name} {thresholds[name]:g}".replace("  ", " ")
        for name in _LOWER:
            if name in thresholds and value < thresholds[name]:
                return f"{value:g} {unit} < {name} {thresholds[name]:g}".replace("  ", " ")
    if status in _BAD_STATUS:
        shown = "no reading" if value is None else f"{value:g} {unit}".strip()
        return f"{shown}, status {status} ({_BAD_STATUS[status]})"
    return None


def _sensor(fields: list[str], n: int) -> BmcSensor:
    name, raw, unit, status = fields[:4]
    if not name:
        raise ValueError(f"ipmitool sensor: line {n}: no sensor name")
    discrete = unit == "discrete"
    value = None if discrete else _number(raw, f"ipmitool sensor: line {n}: value")
    thresholds = {}
    for key, text in zip(THRESHOLDS, fields[4:], strict=True):
        number = _number(text, f"ipmitool sensor: line {n}: {key}")
        if number is not None:
            thresholds[key] = number
    reason = None if discrete else out_of_range(value, status, thresholds, unit)
    return BmcSensor(name=name, value=value, discrete=discrete,
                     state=raw if discrete and raw != "na" else None, unit=unit,
                     status=status, thresholds=thresholds, out_of_range=reason)


@guard("ipmitool sensor")
def parse_ipmitool_sensor(text: str) -> list[BmcSensor]:
    """Every sensor line of `ipmitool sensor`; other lines (ipmitool's notes) are passed
    over, and text with none at all is refused unless it is empty (a BMC without SDRs)."""
    sensors, other = [], 0
    for n, line in enumerate(text.splitlines(), 1):
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != _COLUMNS:
            other += bool(line.strip())
            continue
        sensors.append(_sensor(fields, n))
    if other and not sensors:
        raise ValueError("ipmitool sensor: no sensor line (name | value | unit | status | "
                         "six thresholds)")
    return sensors
