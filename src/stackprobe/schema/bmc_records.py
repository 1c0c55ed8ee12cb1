"""Records of a host's management controller (BMC) as ipmitool reads it over IPMI.

Why a module of its own: a BMC is judged by what it says about the machine, not by a
figure measured under load — does it answer at all (seed 004: "not every server's IPMI
works as it should"), which sensors stand outside their thresholds, which errors its
System Event Log holds, and whether the chassis reports a power or cooling fault. One
`BmcRecord` per BMC keeps all of it; the checks (kinds/host/ipmi_checks.py) read it.

Sensor values stay in the unit the BMC gives (`unit`, as ipmitool prints it: 'degrees C',
'RPM', 'Volts', 'Watts'): they are compared only with the thresholds of the same sensor.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stackprobe.schema.record_base import MODEL, RecordBase

# ipmitool's threshold names, lowest to highest, as `sensor` prints their columns
THRESHOLDS = ("lnr", "lcr", "lnc", "unc", "ucr", "unr")


class BmcInfo(BaseModel):
    """`mc info`: who made the BMC and what firmware it runs."""

    model_config = MODEL

    device_id: int | None = None
    firmware: str | None = None  # 'Firmware Revision', e.g. '1.28'
    ipmi_version: str | None = None
    manufacturer_id: int | None = None
    manufacturer: str | None = None  # 'Hewlett-Packard', or ipmitool's 'Unknown (0x1291)'
    product_id: int | None = None
    product: str | None = None


class BmcSensor(BaseModel):
    """One line of `sensor`: a reading beside its thresholds."""

    model_config = MODEL

    name: str
    value: float | None = None  # None: 'na' (no reading), or a discrete sensor's state
    discrete: bool = False
    state: str | None = None  # a discrete sensor's state bits as printed ('0x0180')
    unit: str = ""
    status: str  # ipmitool's: ok, nc, cr, nr, na, ns; discrete sensors print their bits
    thresholds: dict[str, float] = Field(default_factory=dict)  # THRESHOLDS present
    # why the sensor is out of range ('45 degrees C > ucr 40'), None: within range
    out_of_range: str | None = None


class SelEntry(BaseModel):
    """One event of the System Event Log (`sel elist` / `sel list`)."""

    model_config = MODEL

    id: str  # ipmitool prints it in hex without 0x ('a', '1f')
    date: str | None = None  # as printed: '06/29/2021', 'Pre-Init'
    time: str | None = None
    sensor: str  # 'Memory #0x2b', 'Temperature CPU Temp'
    event: str  # 'Correctable ECC logging limit reached'
    direction: str | None = None  # Asserted | Deasserted
    error: bool = False  # an event that says something failed (SEL_ERROR_WORDS)


class ChassisStatus(BaseModel):
    """`chassis status`: power, and the faults the chassis itself reports."""

    model_config = MODEL

    power_on: bool | None = None
    faults: list[str] = Field(default_factory=list)  # 'Main Power Fault', 'Cooling/Fan Fault'


class BmcRecord(RecordBase):
    """One BMC as the step found it."""

    type: Literal["bmc"] = "bmc"
    tool: str = "ipmitool"
    host: str | None = None  # the hosts.yaml entry
    address: str | None = None  # where it was asked (address:port), or 'local' for -I open
    reachable: bool
    problem: str | None = None  # why not, in one line: unreachable, refused login, ...
    info: BmcInfo | None = None
    sensors: list[BmcSensor] = Field(default_factory=list)
    sel: list[SelEntry] = Field(default_factory=list)
    sel_since: str | None = None  # the step's `sel_since`: the last entry seen before
    new_events: list[SelEntry] = Field(default_factory=list)  # entries after sel_since
    chassis: ChassisStatus | None = None

    @property
    def out_of_range(self) -> list[BmcSensor]:
        return [s for s in self.sensors if s.out_of_range]

    @property
    def sel_errors(self) -> list[SelEntry]:
        return [e for e in self.sel if e.error]
